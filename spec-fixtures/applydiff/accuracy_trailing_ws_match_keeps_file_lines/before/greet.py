def greet(name):  
    """Say hello."""  
    message = "hi " + name  
    print(message)  
    return message  
