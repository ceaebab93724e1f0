# attnprep: swiglu
# expect: fail shape
# mistake: only the down projection is written as hidden @ W_down.T (nn.Linear habit), which needs d_ff == d_model
# must-pass: stable gate input-unchanged position-wise
# diagnosis: down-transposed
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    gate = a / (1.0 + np.exp(-a))
    return (gate * (x @ W_up)) @ W_down.T
