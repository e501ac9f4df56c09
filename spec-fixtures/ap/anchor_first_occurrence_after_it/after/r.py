log("start")
def run():
    log("run")
    work()
    log("start")
