# attnprep: swiglu
# expect: pass
# style: 1-D input promoted to one row with np.atleast_2d and squeezed back; tanh form of the sigmoid
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    x = np.asarray(x, dtype=np.float64)
    rows = np.atleast_2d(x).reshape(-1, x.shape[-1])
    a = rows @ W_gate
    gate = a * 0.5 * (1.0 + np.tanh(0.5 * a))
    out = (gate * (rows @ W_up)) @ W_down
    return out.reshape(x.shape[:-1] + (W_down.shape[1],))
