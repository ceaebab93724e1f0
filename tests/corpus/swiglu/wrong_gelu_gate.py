# attnprep: swiglu
# expect: fail gate
# mistake: uses the tanh approximation of gelu (GeGLU) instead of silu
# diagnosis: gelu-gate
# must-pass: stable
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    gate = 0.5 * a * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (a + 0.044715 * a ** 3)))
    return (gate * (x @ W_up)) @ W_down
