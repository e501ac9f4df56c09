const a = require('./a');

class A {
