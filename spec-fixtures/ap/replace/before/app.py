def greet(name):
    message = "hi " + name
    print(message)
