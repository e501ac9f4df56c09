def main():
    run()
    cleanup()
