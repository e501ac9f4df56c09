fn f() {
    setup();
    work();
    done();
}
