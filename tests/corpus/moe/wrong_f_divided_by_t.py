# attnprep: moe
# expect: fail balanced-loss assignment-share
# diagnosis: f-divided-by-tokens
# mistake: divides the assignment counts by T (tokens) instead of T*k (assignments), so f sums to k
# must-pass: stable router-probability
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    g = np.exp(top - top[:, :1])
    return idx, g / g.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    T = router_logits.shape[0]
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / T
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    P = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).mean(axis=0)
    return float(n_experts * np.sum(f * P))
