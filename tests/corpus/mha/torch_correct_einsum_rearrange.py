# attnprep: mha
# expect: pass
# style: PyTorch, reshape + permute, einsum for scores and values, a -inf triu mask added to the scores
import torch


def split_heads(x, n_heads):
    B, T, C = x.shape
    if C % n_heads != 0:
        raise ValueError(f"{C} % {n_heads} != 0")
    return x.reshape(B, T, n_heads, C // n_heads).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, D = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, T, H * D)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    T, D = q.shape[-2], q.shape[-1]
    bias = torch.triu(torch.full((T, T), float("-inf"), dtype=x.dtype), diagonal=1)
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) / D ** 0.5 + bias
    w = torch.softmax(scores, dim=-1)
    return merge_heads(torch.einsum("bhts,bhsd->bhtd", w, v)) @ W_o, w
