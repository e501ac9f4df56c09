let v = compute(a, b, c);
