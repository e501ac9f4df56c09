def total(items):
    price = sum(i.price for i in items)
    tax = price * 0.2
    return price + tax
