x = old
y = old + old
