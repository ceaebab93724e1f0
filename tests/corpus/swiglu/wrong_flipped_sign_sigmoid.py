# attnprep: swiglu
# expect: fail gate
# mistake: sigmoid written as 1 / (1 + exp(a)), the minus sign inside exp forgotten
# must-pass: stable
# diagnosis: flipped-sigmoid-sign
import numpy as np


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    with np.errstate(over="ignore"):
        gate = a / (1.0 + np.exp(a))
    return (gate * (x @ W_up)) @ W_down
