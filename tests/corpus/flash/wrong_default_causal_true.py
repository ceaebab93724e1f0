# attnprep: flash
# expect: fail matches-reference
# must-pass: shape block-size-independent ragged-blocks causal scale constant-values stable input-unchanged memory
# diagnosis: flash-default-causal
# mistake: the signature defaults causal to True (it was written for a decoder), so a call that leaves causal out
#          masks the future; every call that passes causal explicitly is right

import numpy as np


def flash_attention(q, k, v, block_size=64, causal=True):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T, d = q.shape
    out = np.empty((T, v.shape[1]))
    scale = 1.0 / np.sqrt(d)
    for qs in range(0, T, block_size):          # range() runs into the last, partial block too
        qe = min(qs + block_size, T)
        qb = q[qs:qe] * scale                   # (bq, d): a new array, the caller's q is untouched
        m = np.full(qe - qs, -np.inf)           # running max of each row's scores
        l = np.zeros(qe - qs)                   # running sum of exp(score - m)
        acc = np.zeros((qe - qs, v.shape[1]))   # running sum of exp(score - m) * v
        # Causal: keys after this block's last query are masked for every row, so stop there.
        k_stop = qe if causal else T
        for ks in range(0, k_stop, block_size):
            ke = min(ks + block_size, k_stop)
            s = qb @ k[ks:ke].T                 # (bq, bk): the only scores that ever exist at once
            if causal and ke - 1 > qs:          # the block reaches past some query: mask with GLOBAL indices
                future = np.arange(ks, ke)[None, :] > np.arange(qs, qe)[:, None]
                s = np.where(future, -np.inf, s)
            # Every row sees key 0 in the first block, so m_new is finite from then on.
            m_new = np.maximum(m, s.max(axis=1))
            # The old sums were taken relative to m; bring them to m_new.
            # exp(-inf - finite) = 0 on the first block, when there is nothing to rescale.
            alpha = np.exp(m - m_new)
            p = np.exp(s - m_new[:, None])      # masked entries give exactly 0
            l = alpha * l + p.sum(axis=1)
            acc = alpha[:, None] * acc + p @ v[ks:ke]
            m = m_new
        out[qs:qe] = acc / l[:, None]           # normalise once, at the end
    return out
