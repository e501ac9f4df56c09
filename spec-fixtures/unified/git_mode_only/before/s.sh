echo a
