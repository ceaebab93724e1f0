# attnprep: mha
# expect: fail upper-triangle-zero matches-reference
# must-pass: split-layout merge-layout round-trip shape bad-input input-unchanged
# mistake: PyTorch, adds -10000.0 above the diagonal as an old Hugging Face attention mask does, instead of -inf: the future keeps a weight of about exp(-1e4 + its score), and all of it once scores reach thousands
import math

import torch


def split_heads(x, n_heads):
    B, T, D = x.shape
    return x.view(B, T, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, T, d = x.shape
    return x.transpose(1, 2).reshape(B, T, H * d)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, D = x.shape
    if D % n_heads != 0:
        raise ValueError("n_heads must divide d_model")
    q, k, v = (split_heads(x @ W, n_heads) for W in (W_q, W_k, W_v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(D // n_heads)
    scores = scores + torch.triu(torch.full((T, T), -10000.0, dtype=scores.dtype), diagonal=1)
    weights = torch.softmax(scores, dim=-1)
    return merge_heads(weights @ v) @ W_o, weights
