const x = 1;

function add(a, b) {
  // the sum
  return a + b;
}

module.exports = { add };
