# attnprep: swiglu
# expect: pass
# style: float32 arithmetic with float32 results: judged at float32 precision (the same code
#        returning float64 would be wrong, as float64 results are held to float64)
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    x32 = x.astype(np.float32)
    a = x32 @ W_gate.astype(np.float32)
    gate = a * (0.5 * (1.0 + np.tanh(0.5 * a)))
    return (gate * (x32 @ W_up.astype(np.float32))) @ W_down.astype(np.float32)
