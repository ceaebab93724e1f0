# attnprep: swiglu
"""Reference solution: the SwiGLU feed-forward layer."""

import numpy as np


def _sigmoid(a):
    # exp(-|a|) is at most 1, so nothing overflows: the sigmoid is
    # 1 / (1 + e) for a >= 0 and e / (1 + e) = 1 / (1 + exp(-a)) for a < 0.
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def silu(a):
    return a * _sigmoid(a)


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=np.float64)
    # `@` contracts the last axis of x with the first of W, whatever the
    # number of leading dimensions: (..., d_model) @ (d_model, d_ff).
    gate = silu(x @ W_gate)   # (..., d_ff), the branch that goes through SiLU
    up = x @ W_up             # (..., d_ff), the linear branch
    return (gate * up) @ W_down  # (..., d_ff) @ (d_ff, d_model) -> (..., d_model)
