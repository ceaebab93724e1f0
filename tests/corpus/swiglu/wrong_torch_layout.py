# attnprep: swiglu
# expect: fail shape
# mistake: transposes every weight as nn.Linear would (x @ W.T), which only works when d_ff == d_model
# diagnosis: transposed-weights
# must-pass: stable gate input-unchanged position-wise
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate.T
    hidden = a / (1.0 + np.exp(-a)) * (x @ W_up.T)
    return hidden @ W_down.T
