# attnprep: flash
# expect: pass
# style: torch under torch.no_grad in the FlashAttention-2 kernel style: scores pre-multiplied by log2(e)/sqrt(d) so the running max and sums live in base 2 and torch.exp2 replaces exp (mathematically identical, rounding-level differences only)
import math
import torch


def flash_attention(q, k, v, block_size=64, causal=False):
    with torch.no_grad():
        T, d = q.shape
        d_v = v.shape[1]
        c = math.log2(math.e) / math.sqrt(d)
        out = torch.empty(T, d_v, dtype=torch.float64)
        for qs in range(0, T, block_size):
            qe = min(qs + block_size, T)
            qb = q[qs:qe].to(torch.float64)
            m = torch.full((qe - qs,), float("-inf"), dtype=torch.float64)
            l = torch.zeros(qe - qs, dtype=torch.float64)
            acc = torch.zeros(qe - qs, d_v, dtype=torch.float64)
            last_key = qe if causal else T
            for ks in range(0, last_key, block_size):
                ke = min(ks + block_size, T)
                s = (qb @ k[ks:ke].to(torch.float64).T) * c          # base-2 logits
                if causal and ke - 1 > qs:
                    qi = torch.arange(qs, qe).unsqueeze(1)
                    kj = torch.arange(ks, ke).unsqueeze(0)
                    s = s.masked_fill(kj > qi, float("-inf"))
                m_new = torch.maximum(m, s.amax(dim=1))
                alpha = torch.exp2(m - m_new)
                p = torch.exp2(s - m_new.unsqueeze(1))
                l = l * alpha + p.sum(dim=1)
                acc = acc * alpha.unsqueeze(1) + p @ v[ks:ke].to(torch.float64)
                m = m_new
            out[qs:qe] = acc / l.unsqueeze(1)
        return out
