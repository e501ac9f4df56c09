def first():
    return None

def second():
    return 2
