# attnprep: flash
# expect: pass
# style: PyTorch, every query against one strip of keys at a time ((T, block_size) scores), masked_fill for the
#        causal mask from global positions
import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    scale = 1.0 / d ** 0.5
    m = torch.full((T,), float("-inf"), dtype=q.dtype)
    l = torch.zeros(T, dtype=q.dtype)
    acc = torch.zeros(T, v.shape[1], dtype=q.dtype)
    rows = torch.arange(T)[:, None]
    for c0 in range(0, T, block_size):
        c1 = min(c0 + block_size, T)
        s = (q @ k[c0:c1].T) * scale
        if causal:
            cols = torch.arange(c0, c1)[None, :]
            s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.max(dim=1).values)
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - safe)
        p = torch.exp(s - safe[:, None])
        l = l * alpha + p.sum(dim=1)
        acc = acc * alpha[:, None] + p @ v[c0:c1]
        m = m_new
    return acc / l[:, None]
