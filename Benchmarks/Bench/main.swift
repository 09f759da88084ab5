print("osprey-bench: placeholder")
