class Store:
    def add(self, item):
        if item is None:
            raise ValueError("item is None")
        self.items.append(item)
