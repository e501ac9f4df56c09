def hi():
    print('hello there')
