# attnprep: swiglu
# expect: fail gate
# mistake: applies silu to the x @ W_up branch and leaves x @ W_gate linear
# diagnosis: silu-on-up-branch
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    up = x @ W_up
    return ((x @ W_gate) * (up / (1.0 + np.exp(-up)))) @ W_down
