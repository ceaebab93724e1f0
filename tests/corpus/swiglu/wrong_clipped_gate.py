# attnprep: swiglu
# expect: fail stable
# mistake: clips the gate pre-activation to [-30, 30] to avoid overflow, which changes large outputs
# diagnosis: clipped-gate
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = np.clip(x @ W_gate, -30.0, 30.0)
    return (a / (1.0 + np.exp(-a)) * (x @ W_up)) @ W_down
