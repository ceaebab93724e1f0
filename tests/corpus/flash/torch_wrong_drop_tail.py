# attnprep: flash
# expect: fail ragged-blocks block-size-independent matches-reference
# mistake: PyTorch, T // block_size blocks: the last, partial block of keys is never seen
# must-pass: stable scale causal
import math

import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    n_blocks = max(1, T // block_size)
    out = torch.zeros(T, v.shape[1], dtype=q.dtype)
    for i in range(0, T, block_size):
        qi = q[i:i + block_size] / math.sqrt(d)
        m = torch.full((qi.shape[0],), float("-inf"), dtype=q.dtype)
        l = torch.zeros(qi.shape[0], dtype=q.dtype)
        acc = torch.zeros(qi.shape[0], v.shape[1], dtype=q.dtype)
        for b in range(n_blocks):
            j = b * block_size
            s = qi @ k[j:j + block_size].T
            if causal:
                s = s.masked_fill(torch.arange(j, j + s.shape[1])[None] > torch.arange(i, i + qi.shape[0])[:, None],
                                  float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=1))
            p = torch.exp(s - m_new[:, None])
            a = torch.exp(m - m_new)
            l = a * l + p.sum(1)
            acc = a[:, None] * acc + p @ v[j:j + block_size]
            m = m_new
        out[i:i + block_size] = acc / l[:, None]
    return out
