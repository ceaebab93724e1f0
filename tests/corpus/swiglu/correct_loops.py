# attnprep: swiglu
# expect: pass
# style: plain Python loops over positions and hidden units, a branch-stable scalar sigmoid
import math

import numpy as np


def _sigmoid(a):
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=float)
    d_model, d_ff = W_gate.shape
    flat = x.reshape(-1, d_model)
    out = np.zeros((flat.shape[0], W_down.shape[1]))
    for p in range(flat.shape[0]):
        for j in range(d_ff):
            a = sum(flat[p, i] * W_gate[i, j] for i in range(d_model))
            u = sum(flat[p, i] * W_up[i, j] for i in range(d_model))
            h = a * _sigmoid(a) * u
            for k in range(W_down.shape[1]):
                out[p, k] += h * W_down[j, k]
    return out.reshape(x.shape[:-1] + (W_down.shape[1],))
