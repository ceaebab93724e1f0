# attnprep: swiglu
# expect: fail shape
# mistake: PyTorch, F.linear(x, W) as nn.Linear does (x @ W.T): the weights here are (in, out), not (out, in)
# diagnosis: transposed-weights
# must-pass: stable gate input-unchanged position-wise
import torch.nn.functional as F


def swiglu(x, W_gate, W_up, W_down):
    return F.linear(F.silu(F.linear(x, W_gate)) * F.linear(x, W_up), W_down)
