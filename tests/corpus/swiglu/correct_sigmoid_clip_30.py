# attnprep: swiglu
# expect: pass
# style: the sigmoid's argument clipped at +-30 before exp (as some frameworks do): silu(a) = a / (1 + exp(-clip(a)))
#        is exact to 1e-9 over the whole documented range |a| <= 1e4
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    gate = a / (1.0 + np.exp(-np.clip(a, -30.0, 30.0)))
    return (gate * (x @ W_up)) @ W_down
