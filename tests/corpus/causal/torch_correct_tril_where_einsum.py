# attnprep: causal
# expect: pass
# style: PyTorch, a tril "allowed" matrix inverted for the mask, einsum scores, torch.where
import math

import torch


def causal_mask(T):
    allowed = torch.tril(torch.ones(T, T)).bool()
    return ~allowed


def causal_attention(q, k, v):
    T, d_k = q.shape
    scores = torch.einsum("id,jd->ij", q, k) / math.sqrt(d_k)
    scores = torch.where(causal_mask(T), torch.tensor(float("-inf"), dtype=scores.dtype), scores)
    scores = scores - scores.max(dim=-1, keepdim=True).values
    w = scores.exp()
    w = w / w.sum(-1, keepdim=True)
    return torch.einsum("ij,jd->id", w, v), w
