def f():
    print(“hello”)
