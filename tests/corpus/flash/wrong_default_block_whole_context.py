# attnprep: flash
# expect: fail memory
# must-pass: matches-reference causal block-size-independent ragged-blocks stable
# mistake: a default block_size of 1,024 "for speed" where the signature asks for 64: any call that leaves it out and has T <= 1,024 works on one tile the size of the whole T x T score matrix
import numpy as np


def flash_attention(q, k, v, block_size=1024, causal=False):
    T, d = q.shape
    out = np.zeros((T, v.shape[1]))
    for start in range(0, T, block_size):
        stop = min(start + block_size, T)
        q_tile = q[start:stop] / np.sqrt(d)
        running_max = np.full(stop - start, -np.inf)
        running_sum = np.zeros(stop - start)
        acc = np.zeros((stop - start, v.shape[1]))
        rows = np.arange(start, stop)[:, None]
        for k_start in range(0, stop if causal else T, block_size):
            k_stop = min(k_start + block_size, T)
            s = q_tile @ k[k_start:k_stop].T
            if causal:
                s = np.where(np.arange(k_start, k_stop)[None, :] > rows, -np.inf, s)
            new_max = np.maximum(running_max, s.max(axis=1))
            keep = np.exp(running_max - new_max)
            p = np.exp(s - new_max[:, None])
            running_sum = running_sum * keep + p.sum(axis=1)
            acc = acc * keep[:, None] + p @ v[k_start:k_stop]
            running_max = new_max
        out[start:stop] = acc / running_sum[:, None]
    return out
