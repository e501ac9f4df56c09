def total(items):
    subtotal = sum(i.price * i.qty for i in items)
    return subtotal
