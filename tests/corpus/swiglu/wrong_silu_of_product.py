# attnprep: swiglu
# expect: fail gate
# diagnosis: silu-of-product
# mistake: applies silu after multiplying the two branches, silu((x @ W_gate) * (x @ W_up))
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    h = (x @ W_gate) * (x @ W_up)
    return (h / (1.0 + np.exp(-h))) @ W_down
