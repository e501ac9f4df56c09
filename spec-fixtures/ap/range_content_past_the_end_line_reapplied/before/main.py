def swap(x):
    old = x.value
    x.value = 0
    log(old)
    x.done = True
