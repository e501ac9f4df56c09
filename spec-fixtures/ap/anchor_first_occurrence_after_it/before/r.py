log("start")
def run():
    log("start")
    work()
    log("start")
