# attnprep: decode
# expect: pass
# style: plain Python loops over batch, heads and positions; math.exp; lists appended then stacked
import math

import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.asarray(x_t, dtype=float)
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q_all, k_all, v_all = x_t @ W_q, x_t @ W_k, x_t @ W_v
    t = 0 if cache is None else cache[0].shape[2]
    K_new = np.zeros((B, n_heads, t + 1, d_head))
    V_new = np.zeros((B, n_heads, t + 1, d_head))
    merged = np.zeros((B, d_model))
    for b in range(B):
        for h in range(n_heads):
            lo, hi = h * d_head, (h + 1) * d_head
            keys = [] if cache is None else [cache[0][b, h, p].copy() for p in range(t)]
            vals = [] if cache is None else [cache[1][b, h, p].copy() for p in range(t)]
            keys.append(k_all[b, lo:hi])
            vals.append(v_all[b, lo:hi])
            q = q_all[b, lo:hi]
            scores = [float(np.dot(q, key)) / math.sqrt(d_head) for key in keys]
            m = max(scores)
            exps = [math.exp(s - m) for s in scores]
            total = sum(exps)
            out = np.zeros(d_head)
            for e, val in zip(exps, vals):
                out += (e / total) * val
            merged[b, lo:hi] = out
            K_new[b, h] = np.stack(keys)
            V_new[b, h] = np.stack(vals)
    return merged @ W_o, (K_new, V_new)
