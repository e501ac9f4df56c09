def hello():
    say("it's fine")
    return True
