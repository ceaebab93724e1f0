# attnprep: swiglu
# expect: fail gate
# diagnosis: added-branches
# mistake: adds the linear branch to the gate instead of multiplying (a residual-style sum)
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    gate = a * 0.5 * (1.0 + np.tanh(0.5 * a))
    return (gate + x @ W_up) @ W_down
