# attnprep: moe
# expect: fail shape
# mistake: fills a np.zeros((T, k)) array with the chosen experts, so the indices come back as float64, which cannot index the experts
import numpy as np


def route_top_k(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    T, E = logits.shape
    if not 1 <= k <= E:
        raise ValueError("k must be in 1..E")
    idx = np.zeros((T, k))
    gates = np.zeros((T, k))
    for t in range(T):
        order = np.argsort(-logits[t], kind="stable")[:k]
        idx[t] = order
        e = np.exp(logits[t, order] - logits[t, order].max())
        gates[t] = e / e.sum()
    return idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = np.asarray(router_logits, dtype=np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    idx = np.asarray(expert_idx).astype(np.int64)
    f = np.bincount(idx.ravel(), minlength=n_experts) / idx.size
    return float(n_experts * np.sum(f * p.mean(axis=0)))
