const alpha = 1;
const b = alpha;
