# attnprep: moe
# expect: fail balanced-loss router-probability
# mistake: averages the raw router logits for P_e instead of the softmax probabilities
# diagnosis: p-from-raw-logits
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
    P = router_logits.mean(axis=0)
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * P))
