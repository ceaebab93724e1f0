# attnprep: swiglu
# expect: fail gate
# mistake: uses relu for the gate, as in the original transformer's feed-forward
# diagnosis: relu-gate
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    gate = np.maximum(x @ W_gate, 0.0)
    return (gate * (x @ W_up)) @ W_down
