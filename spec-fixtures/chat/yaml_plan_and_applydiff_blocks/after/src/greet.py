def hi():
    print('hello')
