def first():
    value = compute(1)
    log(value)
    return value


def second():
    value = compute(2)
    log(value, level=2)
    return value
