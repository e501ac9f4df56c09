def total(xs):
	s = 0
	for x in xs:
		if x > 0:
			s += x
	return s
