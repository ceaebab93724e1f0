# attnprep: swiglu
# expect: fail stable
# must-pass: shape position-wise gate matches-reference input-unchanged
# mistake: the sigmoid is built from exp(-|a|) only on the (T, d_model) path it was tested on; 1-D and batched
#          inputs use exp(a) / (1 + exp(a)), which is inf / inf = nan past a = 710
# diagnosis: sigmoid-overflow
import numpy as np


def _sigmoid_stable(a):
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    if x.ndim == 2:
        s = _sigmoid_stable(a)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            s = np.exp(a) / (1.0 + np.exp(a))
    return (a * s * (x @ W_up)) @ W_down
