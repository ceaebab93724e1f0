# attnprep: swiglu
# expect: fail position-wise
# mistake: flattens the positions with reshape(d_model, -1).T, which mixes features of different positions
# diagnosis: mixes-positions
# must-pass: stable gate
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    d_model = x.shape[-1]
    flat = x.reshape(d_model, -1).T            # meant to be (n_positions, d_model)
    a = flat @ W_gate
    out = (a / (1.0 + np.exp(-a)) * (flat @ W_up)) @ W_down
    return out.T.reshape(x.shape)
