msg = “hello”
