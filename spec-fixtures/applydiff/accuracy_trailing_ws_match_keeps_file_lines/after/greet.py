def greet(name):  
    """Say hello."""  
    message = "hello " + name
    print(message)  
    return message  
