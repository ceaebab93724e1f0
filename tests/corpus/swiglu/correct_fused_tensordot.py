# attnprep: swiglu
# expect: pass
# style: one fused up-projection (concatenated W_gate | W_up, then np.split), np.tensordot, exp argument clipped
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    d_ff = W_gate.shape[1]
    W_fused = np.concatenate([W_gate, W_up], axis=1)         # (d_model, 2 * d_ff)
    h = np.tensordot(x, W_fused, axes=([-1], [0]))           # (..., 2 * d_ff)
    a, u = np.split(h, [d_ff], axis=-1)
    # Clip only the exponent: for a < -700, a * sigmoid(a) is far below any tolerance anyway.
    sig = 1.0 / (1.0 + np.exp(-np.clip(a, -700.0, 700.0)))
    return np.tensordot(a * sig * u, W_down, axes=([-1], [0]))
