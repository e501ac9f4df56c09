def greet():
    print(“hello”)
    print(“hello”)

def other():
    print(“hello”)
