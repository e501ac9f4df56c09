// unused
