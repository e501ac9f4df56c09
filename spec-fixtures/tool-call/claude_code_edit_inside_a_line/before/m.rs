let v = compute(a, b);
