# attnprep: swiglu
# expect: pass
# style: PyTorch, a * torch.sigmoid(a) written out, torch.matmul
import torch


def swiglu(x, W_gate, W_up, W_down):
    a = torch.matmul(x, W_gate)
    return torch.matmul(a * torch.sigmoid(a) * torch.matmul(x, W_up), W_down)
