# attnprep: swiglu
# expect: pass
# style: flatten to (n_positions, d_model) and back; sigmoid as exp(-logaddexp(0, -a))
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    lead = x.shape[:-1]
    flat = x.reshape(-1, x.shape[-1])
    a = flat @ W_gate
    gate = a * np.exp(-np.logaddexp(0.0, -a))
    out = (gate * (flat @ W_up)) @ W_down
    return out.reshape(*lead, W_down.shape[1])
