print("dspbench: placeholder")
