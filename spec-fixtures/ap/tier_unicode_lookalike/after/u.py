def f():
    print("bye")
