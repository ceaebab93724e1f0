# attnprep: moe
# expect: pass
# style: router logits by math.fsum (exactly rounded, unlike BLAS), heapq for the top k, gates by math.exp and
#        math.fsum per token; float64 throughout
import heapq
import math

import numpy as np


def route_top_k(x, W_router, k):
    x = np.asarray(x, dtype=np.float64)
    W = np.asarray(W_router, dtype=np.float64)
    T, E = x.shape[0], W.shape[1]
    if not 1 <= k <= E:
        raise ValueError(f"k = {k} is not in 1..{E}")
    idx = np.zeros((T, k), dtype=np.int64)
    gates = np.zeros((T, k))
    for t in range(T):
        logits = [math.fsum(x[t] * W[:, e]) for e in range(E)]
        best = heapq.nlargest(k, range(E), key=lambda e: (logits[e], -e))
        exps = [math.exp(logits[e] - logits[best[0]]) for e in best]
        total = math.fsum(exps)
        for j, e in enumerate(best):
            idx[t, j] = e
            gates[t, j] = exps[j] / total
    return idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = np.asarray(router_logits, dtype=np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    f = np.bincount(np.asarray(expert_idx).ravel(), minlength=n_experts) / np.asarray(expert_idx).size
    return float(n_experts * np.sum(f * p.mean(axis=0)))
