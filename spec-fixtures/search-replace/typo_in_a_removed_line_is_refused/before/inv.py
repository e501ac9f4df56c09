def restock(self, amount):
    if amount <= 0:
        raise ValueError('no')
    self.n += amount
