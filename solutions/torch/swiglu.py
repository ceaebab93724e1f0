# attnprep: swiglu torch
"""Reference solution in PyTorch: the SwiGLU feed-forward layer."""

import torch.nn.functional as F


def swiglu(x, W_gate, W_up, W_down):
    # F.silu(a) = a * sigmoid(a), stable at any magnitude.
    return (F.silu(x @ W_gate) * (x @ W_up)) @ W_down
