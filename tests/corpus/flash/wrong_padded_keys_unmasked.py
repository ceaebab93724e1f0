# attnprep: flash
# expect: fail block-size-independent ragged-blocks constant-values matches-reference
# must-pass: stable scale causal
# mistake: pads k and v with zero rows to whole tiles and never masks the padding, so it counts in every sum
# diagnosis: flash-padded-keys-unmasked
import numpy as np


def flash_attention(q, k, v, block_size=64, causal=False):
    T, d = q.shape
    d_v = v.shape[1]
    nb = -(-T // block_size)
    Tp = nb * block_size
    # pad so every tile is full-sized
    kp = np.zeros((Tp, d)); kp[:T] = k
    vp = np.zeros((Tp, d_v)); vp[:T] = v
    scale = 1.0 / np.sqrt(d)
    out = np.zeros((T, d_v))
    for bi in range(nb):
        i0, i1 = bi * block_size, min((bi + 1) * block_size, T)
        qb = q[i0:i1]
        m = np.full(i1 - i0, -np.inf)
        l = np.zeros(i1 - i0)
        acc = np.zeros((i1 - i0, d_v))
        for bj in range(nb):
            j0 = bj * block_size
            if causal and j0 >= i1:
                break
            kb = kp[j0:j0 + block_size]
            vb = vp[j0:j0 + block_size]
            s = qb @ kb.T * scale
            if causal:
                qi = np.arange(i0, i1)[:, None]
                kj = np.arange(j0, j0 + block_size)[None, :]
                s = np.where(kj > qi, -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            p = np.exp(s - m_new[:, None])
            a = np.exp(m - m_new)
            l = a * l + p.sum(axis=1)
            acc = a[:, None] * acc + p @ vb
            m = m_new
        out[i0:i1] = acc / l[:, None]
    return out
