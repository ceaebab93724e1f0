# attnprep: flash
# expect: fail memory
# must-pass: stable scale causal
# mistake: PyTorch, builds the whole (T, T) bool causal mask once with torch.triu and slices a tile of it per step
import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if causal else None
    out = torch.empty(T, v.shape[1], dtype=q.dtype)
    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        m = torch.full((qe - qs,), float("-inf"), dtype=q.dtype)
        l = torch.zeros(qe - qs, dtype=q.dtype)
        acc = torch.zeros(qe - qs, v.shape[1], dtype=q.dtype)
        for ks in range(0, T, block_size):
            ke = min(ks + block_size, T)
            s = q[qs:qe] @ k[ks:ke].T / d ** 0.5
            if causal:
                s = s.masked_fill(future[qs:qe, ks:ke], float("-inf"))
            m_new = torch.maximum(m, s.max(dim=1).values)
            safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            a = torch.exp(m - safe)
            p = torch.exp(s - safe[:, None])
            l = l * a + p.sum(dim=1)
            acc = acc * a[:, None] + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]
    return out
