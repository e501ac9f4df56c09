total = compute_total(items, tax=True)
