# attnprep: swiglu
# expect: fail stable
# mistake: sigmoid written as exp(a) / (1 + exp(a)), which is inf / inf = nan for large a
# diagnosis: sigmoid-overflow
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    sig = np.exp(a) / (1.0 + np.exp(a))
    return (a * sig * (x @ W_up)) @ W_down
