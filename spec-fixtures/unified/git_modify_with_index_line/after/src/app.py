def main():
    print('hello')
    return 0
