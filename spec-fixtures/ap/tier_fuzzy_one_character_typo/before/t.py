def total(items):
    subtotal = sum(i.price for i in items)
    return subtotal
