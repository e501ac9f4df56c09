const x = 1;

function add(a, b) {
  return a - b;
}

module.exports = { add };
