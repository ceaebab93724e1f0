# attnprep: swiglu
# expect: fail stable
# must-pass: shape position-wise gate matches-reference input-unchanged
# mistake: a single position (1-D x) goes through a scalar loop with math.exp, whose naive sigmoid 1 / (1 + exp(-a))
#          raises OverflowError once -a passes about 709; batches use NumPy and are fine
# diagnosis: overflow-error-one-position
import math

import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    if np.ndim(x) == 1:
        a = x @ W_gate
        gate = np.array([v / (1.0 + math.exp(-v)) for v in a])
        return (gate * (x @ W_up)) @ W_down
    a = x @ W_gate
    return (a / (1.0 + np.exp(-a)) * (x @ W_up)) @ W_down
