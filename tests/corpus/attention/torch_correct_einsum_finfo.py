# attnprep: attention
# expect: pass
# style: PyTorch, einsum over any leading dims, the mask filled with finfo.min, matmul
import torch


def attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) * q.shape[-1] ** -0.5
    if mask is not None:
        scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    scores = scores - scores.amax(dim=-1, keepdim=True)
    w = torch.exp(scores)
    return torch.matmul(w / w.sum(dim=-1, keepdim=True), v)
