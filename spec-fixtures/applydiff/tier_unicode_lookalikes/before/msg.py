def greet(name):
    print("Hello, " + name + "!")
    return "done"
