class Inventory:
    def __init__(self):
        self.count = 0

    def restock(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.count += amount
