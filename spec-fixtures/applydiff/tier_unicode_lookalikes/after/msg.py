def greet(name):
    print("Hi, " + name + "!")
    return "done"
