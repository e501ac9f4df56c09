export const f = () => {
	if (ok) {
		run();
	}
};
