# attnprep: flash torch
"""Reference solution in PyTorch: FlashAttention's tiled forward pass with an online softmax."""

import math

import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = torch.empty(T, v.shape[1], dtype=q.dtype)
    scale = 1.0 / math.sqrt(d)
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        qb = q[qs:qe] * scale
        m = torch.full((qe - qs,), float("-inf"), dtype=q.dtype)  # running max of each row
        l = torch.zeros(qe - qs, dtype=q.dtype)                    # running sum of exp(s - m)
        acc = torch.zeros(qe - qs, v.shape[1], dtype=q.dtype)
        k_stop = qe if causal else T
        for ks in range(0, k_stop, block_size):
            ke = min(ks + block_size, k_stop)
            s = qb @ k[ks:ke].transpose(-2, -1)
            if causal and ke - 1 > qs:  # mask with the global positions
                future = torch.arange(ks, ke)[None, :] > torch.arange(qs, qe)[:, None]
                s = s.masked_fill(future, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=1))
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[:, None])
            l = alpha * l + p.sum(dim=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
