# attnprep: swiglu
# expect: fail shape
# mistake: forgets the down projection and returns the hidden activations
# diagnosis: no-down-projection
# must-pass: stable gate position-wise
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    return a / (1.0 + np.exp(-a)) * (x @ W_up)
