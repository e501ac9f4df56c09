x = modern_compute_value(1)
y = legacy_compute(2)
