# attnprep: flash
# expect: pass
# style: PyTorch, tiles of keys with a running max and sum, torch.cat of the query blocks
import math

import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    outs = []
    for i in range(0, T, block_size):
        qi = q[i:i + block_size] / math.sqrt(d)
        n = qi.shape[0]
        m = torch.full((n, 1), float("-inf"), dtype=q.dtype)
        l = torch.zeros(n, 1, dtype=q.dtype)
        acc = torch.zeros(n, v.shape[1], dtype=q.dtype)
        for j in range(0, T, block_size):
            if causal and j > i + n - 1:
                break
            s = qi @ k[j:j + block_size].T
            if causal:
                rows = torch.arange(i, i + n)[:, None]
                cols = torch.arange(j, j + s.shape[1])[None, :]
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=1, keepdim=True))
            p = torch.exp(s - m_new)
            scale = torch.exp(m - m_new)
            l = l * scale + p.sum(dim=1, keepdim=True)
            acc = acc * scale + p @ v[j:j + block_size]
            m = m_new
        outs.append(acc / l)
    return torch.cat(outs, dim=0)
