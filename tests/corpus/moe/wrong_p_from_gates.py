# attnprep: moe
# expect: fail router-probability
# diagnosis: p-from-gates
# mistake: takes P_e from the top-k gates (zero for unchosen experts) instead of the softmax over all E experts
# must-pass: stable assignment-share
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
    T, k = expert_idx.shape
    top = np.take_along_axis(router_logits, expert_idx, axis=1)
    g = np.exp(top - top.max(axis=1, keepdims=True))
    g /= g.sum(axis=1, keepdims=True)
    P = np.zeros(n_experts)
    np.add.at(P, expert_idx.ravel(), g.ravel())
    P /= T
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * P))
