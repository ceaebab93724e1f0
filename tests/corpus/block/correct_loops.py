# attnprep: block
# expect: pass
# style: explicit loops over batch, heads and query positions; attends only to keys 0..t (no mask array)
import math

import numpy as np


def rms_norm(v, w):
    return v / math.sqrt(float(np.dot(v, v)) / len(v) + 1e-6) * w


def transformer_block(x, params, n_heads):
    B, T, d = x.shape
    hd = d // n_heads
    out = np.zeros((B, T, d))
    for b in range(B):
        xn = np.array([rms_norm(x[b, t], params["attn_norm"]) for t in range(T)])
        q, k, v = xn @ params["W_q"], xn @ params["W_k"], xn @ params["W_v"]
        merged = np.zeros((T, d))
        for head in range(n_heads):
            cols = slice(head * hd, (head + 1) * hd)
            for t in range(T):
                scores = [float(np.dot(q[t, cols], k[j, cols])) / math.sqrt(hd) for j in range(t + 1)]
                m = max(scores)
                ws = [math.exp(s - m) for s in scores]
                total = sum(ws)
                merged[t, cols] = sum((ws[j] / total) * v[j, cols] for j in range(t + 1))
        h = x[b] + merged @ params["W_o"]
        for t in range(T):
            hn = rms_norm(h[t], params["ffn_norm"])
            g = hn @ params["W_gate"]
            act = np.array([a / (1.0 + math.exp(-a)) if a > -700 else 0.0 for a in g])
            out[b, t] = h[t] + (act * (hn @ params["W_up"])) @ params["W_down"]
    return out
