# attnprep: flash
# expect: fail memory
# must-pass: matches-reference ragged-blocks block-size-independent causal stable
# mistake: forms the whole (T, T) score matrix below T = 1,024 "because small inputs are cheap", the one thing
#          the exercise forbids; tiled only for long inputs
import numpy as np


def _tiled(q, k, v, block_size, causal):
    T, d = q.shape
    scale = 1.0 / np.sqrt(d)
    out = np.empty((T, v.shape[1]))
    for qs in range(0, T, block_size):
        qb = q[qs:qs + block_size]
        nq = len(qb)
        m = np.full(nq, -np.inf); l = np.zeros(nq); acc = np.zeros((nq, v.shape[1]))
        for ks in range(0, T, block_size):
            if causal and ks >= qs + nq:
                break
            s = qb @ k[ks:ks + block_size].T * scale
            if causal:
                s = np.where(np.arange(ks, ks + s.shape[1])[None] > np.arange(qs, qs + nq)[:, None], -np.inf, s)
            mn = np.maximum(m, s.max(1)); a = np.exp(m - mn); p = np.exp(s - mn[:, None])
            l = l * a + p.sum(1); acc = acc * a[:, None] + p @ v[ks:ks + block_size]; m = mn
        out[qs:qs + nq] = acc / l[:, None]
    return out


def flash_attention(q, k, v, block_size=64, causal=False):
    T = q.shape[0]
    if T >= 1024:
        return _tiled(q, k, v, block_size, causal)
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.triu(np.ones((T, T), bool), 1), -np.inf, s)
    s = s - s.max(1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(1, keepdims=True)) @ v
