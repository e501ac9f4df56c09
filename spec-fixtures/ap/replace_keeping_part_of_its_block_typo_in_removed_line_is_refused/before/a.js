const a = require('./a');

// @ts-check

class A {
