# attnprep: swiglu
# expect: fail gate
# mistake: PyTorch, F.gelu(approximate="tanh") as the gate (GeGLU) instead of F.silu
# diagnosis: gelu-gate
# must-pass: stable
import torch.nn.functional as F


def swiglu(x, W_gate, W_up, W_down):
    return (F.gelu(x @ W_gate, approximate="tanh") * (x @ W_up)) @ W_down
