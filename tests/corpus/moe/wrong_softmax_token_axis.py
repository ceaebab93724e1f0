# attnprep: moe
# expect: fail balanced-loss imbalance router-probability
# mistake: takes the router softmax over the tokens (axis 0) instead of over the experts
# diagnosis: softmax-wrong-axis
# must-pass: stable assignment-share
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if k < 1 or k > E:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top[:, :1])
    return idx, e / e.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=0, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=0, keepdims=True)
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * p.mean(axis=0)))
