def start():
    connect(timeout=5)
    run()

def restart():
    connect(timeout=5)
    run(retries=3)
