# attnprep: flash
# expect: fail block-size-independent matches-reference stable
# mistake: tiles and running state computed in float32 (mixed-precision GPU habit: q/k/v blocks cast with .float()) and only the output cast back to float64; error ~1e-7 * |score|, invisible for O(1) scores but ~1e-3 for scores near +-1e4
import math
import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    d_v = v.shape[1]
    scale = 1.0 / math.sqrt(d)
    out = torch.empty(T, d_v, dtype=torch.float64)

    for qs in range(0, T, block_size):
        qe = min(qs + block_size, T)
        qb = q[qs:qe].float()
        m = torch.full((qe - qs,), float("-inf"))
        l = torch.zeros(qe - qs)
        acc = torch.zeros(qe - qs, d_v)
        for ks in range(0, qe if causal else T, block_size):
            ke = min(ks + block_size, T)
            s = qb @ k[ks:ke].float().T * scale
            if causal:
                s = s.masked_fill(torch.arange(ks, ke)[None, :] > torch.arange(qs, qe)[:, None], float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=1))
            alpha = torch.exp(m - m_new)
            p = torch.exp(s - m_new[:, None])
            l = alpha * l + p.sum(dim=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke].float()
            m = m_new
        out[qs:qe] = (acc / l[:, None]).double()
    return out
