# attnprep: swiglu
# expect: pass
# style: einsum with an ellipsis for the leading dimensions, tanh form of the sigmoid
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = np.einsum("...d,df->...f", x, W_gate)
    u = np.einsum("...d,df->...f", x, W_up)
    silu = a * 0.5 * (1.0 + np.tanh(0.5 * a))
    return np.einsum("...f,fd->...d", silu * u, W_down)
