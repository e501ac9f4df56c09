msg = "hello there"
