x = legacy_compute(1)
y = legacy_compute(2)
