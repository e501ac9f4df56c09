x = new
y = new + new
