# attnprep: swiglu
# expect: pass
# style: the textbook 1 / (1 + exp(-a)); exp overflows (with a warning) to the right limit
import numpy as np


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def swiglu(x, W_gate, W_up, W_down):
    a = np.dot(x, W_gate)
    return np.dot(a * sigmoid(a) * np.dot(x, W_up), W_down)
