# attnprep: swiglu
# expect: fail gate
# mistake: gates with a plain sigmoid (GLU) instead of silu = a * sigmoid(a)
# diagnosis: sigmoid-gate
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    gate = 1.0 / (1.0 + np.exp(-(x @ W_gate)))
    return (gate * (x @ W_up)) @ W_down
