function a() {
  one();
}

function b() {
  if (x) {
    two();
  }
  three();
}
