# attnprep: swiglu
# expect: pass
# style: np.apply_along_axis over positions, one-expression stable sigmoid exp(min(a, 0)) / (1 + exp(-|a|)), nested lists
import numpy as np


def _one_position(v, W_gate, W_up, W_down):
    a = v @ W_gate
    sig = np.exp(np.minimum(a, 0.0)) / (1.0 + np.exp(-np.abs(a)))
    return (a * sig * (v @ W_up)) @ W_down


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=np.float64)
    out = np.apply_along_axis(_one_position, -1, x, W_gate, W_up, W_down)
    return out.tolist()
