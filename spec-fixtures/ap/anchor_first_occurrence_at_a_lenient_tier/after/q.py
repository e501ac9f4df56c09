def greet():
    print("hi")
    print(“hello”)

def other():
    print(“hello”)
