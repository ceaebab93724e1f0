# attnprep: swiglu
# expect: fail matches-reference
# must-pass: gate
# mistake: casts the input and weights to float32 for speed, losing precision far beyond rtol 1e-6
# diagnosis: float32-arithmetic
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    x32 = x.astype(np.float32)
    a = x32 @ W_gate.astype(np.float32)
    gate = a * (0.5 * (1.0 + np.tanh(0.5 * a)))
    return (gate * (x32 @ W_up.astype(np.float32))) @ W_down.astype(np.float32)
