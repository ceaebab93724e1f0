# attnprep: swiglu
# expect: fail position-wise shape
# mistake: einsum subscripts written for a (T, d_model) input only
# diagnosis: two-dims-only
# must-pass: stable input-unchanged
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = np.einsum("td,df->tf", x, W_gate)
    up = np.einsum("td,df->tf", x, W_up)
    return np.einsum("tf,fd->td", a / (1.0 + np.exp(-a)) * up, W_down)
