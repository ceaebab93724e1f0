# attnprep: moe
# expect: fail assignment-share
# mistake: counts only the first choice of every token for f_e, ignoring the other k-1 columns
# diagnosis: f-counts-top-1-only
# must-pass: stable router-probability
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
    z = router_logits - router_logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    T = router_logits.shape[0]
    f = np.bincount(expert_idx[:, 0], minlength=n_experts) / T
    return float(n_experts * np.sum(f * p.mean(axis=0)))
