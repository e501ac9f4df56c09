old()
old()
keep()
