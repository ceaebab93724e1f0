# attnprep: swiglu
# expect: pass
# style: textbook column-vector notation W^T x with np.matmul on x[..., None], np.where two-branch sigmoid
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    xc = np.asarray(x, dtype=float)[..., None]                # (..., d_model, 1)
    a = np.matmul(W_gate.T, xc)[..., 0]                       # (..., d_ff)
    u = np.matmul(W_up.T, xc)[..., 0]
    with np.errstate(over="ignore", invalid="ignore"):
        # Both branches are computed; np.where keeps the one that cannot overflow.
        sig = np.where(a >= 0, 1.0 / (1.0 + np.exp(-a)), np.exp(a) / (1.0 + np.exp(a)))
    h = (a * sig * u)[..., None]                              # (..., d_ff, 1)
    return np.matmul(W_down.T, h)[..., 0]
