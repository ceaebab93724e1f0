# attnprep: swiglu
# expect: fail stable
# must-pass: shape gate matches-reference
# mistake: clips the gate pre-activation to [-50, 50] "against overflow" and takes silu of the clipped value
# diagnosis: clipped-gate
import numpy as np


def _silu(a):
    a = np.clip(a, -50.0, 50.0)  # keep exp() in range
    return a / (1.0 + np.exp(-a))


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=np.float64)
    gate = _silu(x @ W_gate)
    up = x @ W_up
    return (gate * up) @ W_down
