def main():
    run()
    log("done")
    cleanup()
