# attnprep: swiglu
# expect: fail stable
# must-pass: shape position-wise gate matches-reference input-unchanged
# mistake: the sigmoid as exp(a) / (1 + exp(a)) when d_model >= 32 (a "fast path" for wide models), which is
#          inf / inf = nan past a = 710; narrow models use the stable form
import numpy as np


def _sig_stable(a):
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e))


def swiglu(x, W_gate, W_up, W_down):
    g = x @ W_gate
    if x.shape[-1] >= 32:
        e = np.exp(g)             # fast path for wide layers
        s = e / (1 + e)
    else:
        s = _sig_stable(g)
    return (g * s * (x @ W_up)) @ W_down
