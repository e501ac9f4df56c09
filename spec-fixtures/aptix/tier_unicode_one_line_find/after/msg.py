print("Hello, polypatch")
