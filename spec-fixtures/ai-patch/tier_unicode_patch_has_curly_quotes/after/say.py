def hello():
    say("it's fine")
    return False
