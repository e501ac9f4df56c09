    retries = 3
    timeout = 30
line 3
line 4
line 5
line 6
line 7
line 8
    retries = 3
    timeout = 30
line 11
line 12
    retries = 3
    timeout = 30
line 15
line 16
