print("dspscore")
