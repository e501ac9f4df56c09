class Cache:
    def load(store, key):
        value = store.get(key)
        if value is None:
            raise KeyError(key)
        return value


def load(store, key):
    value = store.get(key)
    if value is None:
        raise KeyError(key)
    return value
