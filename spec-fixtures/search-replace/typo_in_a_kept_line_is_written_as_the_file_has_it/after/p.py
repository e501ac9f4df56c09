def total(items):
    price = sum(i.price for i in items)
    tax = price * 0.25
    return price + tax
