def total(xs):
	s = 0
	for x in xs:
		s += x
	return s
