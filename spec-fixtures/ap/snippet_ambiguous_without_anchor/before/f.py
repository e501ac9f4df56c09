def first():
    return None

def second():
    return None
