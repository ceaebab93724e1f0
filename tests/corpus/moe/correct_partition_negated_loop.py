# attnprep: moe
# expect: pass
# style: per-token loop with np.argpartition on the negated logits then a sort of the chosen, gates computed in place on a private copy, f_e via collections.Counter, the loss as a Python sum over experts
from collections import Counter

import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    T, E = logits.shape
    if k > E or k < 1:
        raise ValueError("k out of range")
    idx = np.empty((T, k), dtype=np.intp)
    gates = np.empty((T, k))
    for t in range(T):
        row = logits[t]
        cand = np.argpartition(-row, k - 1)[:k]
        cand = cand[np.argsort(-row[cand], kind="stable")]
        idx[t] = cand
        g = row[cand].copy()
        g -= g[0]
        np.exp(g, out=g)
        g /= g.sum()
        gates[t] = g
    return idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = np.array(router_logits, dtype=float)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    P = p.mean(axis=0)
    counts = Counter(int(e) for e in np.ravel(expert_idx))
    total = np.size(expert_idx)
    return n_experts * sum(counts[e] / total * P[e] for e in range(n_experts))
