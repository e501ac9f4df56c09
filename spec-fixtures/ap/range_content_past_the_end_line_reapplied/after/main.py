def swap(x):
    old = x.value
    x.value = 0
    return old
    log(old)
    x.done = True
