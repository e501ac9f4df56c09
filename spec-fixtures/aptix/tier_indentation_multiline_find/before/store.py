class Store:
    def add(self, item):
        if item is None:
            return
        self.items.append(item)
