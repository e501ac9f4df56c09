export const f = () => {
	const log = start();
	if (ok) {
		run();
	}
};
