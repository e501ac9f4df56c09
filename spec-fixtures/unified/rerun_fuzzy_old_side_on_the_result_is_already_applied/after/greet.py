def greet(name):
    print("hello,", name)
    return name
