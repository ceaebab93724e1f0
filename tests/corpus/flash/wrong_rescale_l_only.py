# attnprep: flash
# expect: fail block-size-independent constant-values matches-reference
# must-pass: stable scale ragged-blocks causal
# mistake: rescales the running sum l when the max grows but forgets to rescale the accumulator
# diagnosis: flash-rescale-l-only
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for i0 in range(0, T, block_size):
        qb = q[i0:i0 + block_size]
        n = qb.shape[0]
        m = np.full((n, 1), -np.inf)
        l = np.zeros((n, 1))
        acc = np.zeros((n, v.shape[1]))
        for j0 in range(0, T, block_size):
            if causal and j0 > i0 + n - 1:
                break
            s = qb @ k[j0:j0 + block_size].T / np.sqrt(d)
            if causal:
                rows = np.arange(i0, i0 + n)[:, None]
                cols = np.arange(j0, j0 + s.shape[1])[None, :]
                s = np.where(cols <= rows, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p = np.exp(s - m_new)
            l = l * np.exp(m - m_new) + p.sum(axis=1, keepdims=True)
            acc += p @ v[j0:j0 + block_size]
            m = m_new
        out[i0:i0 + n] = acc / l
    return out
