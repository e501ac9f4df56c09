def greet(name):
    message = "hello, " + name
    print(message)
