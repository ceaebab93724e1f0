# attnprep: swiglu
# expect: fail gate
# diagnosis: silu-before-projection
# mistake: applies silu to the input x, then projects: silu(x) @ W_gate instead of silu(x @ W_gate)
# must-pass: stable
import numpy as np


def _silu(a):
    return a * np.exp(-np.logaddexp(0.0, -a))


def swiglu(x, W_gate, W_up, W_down):
    return ((_silu(x) @ W_gate) * (x @ W_up)) @ W_down
