# attnprep: moe
# expect: fail bad-input shape
# diagnosis: k-equals-e-rejected
# mistake: validates with k >= E instead of k > E, so routing every token to all E experts raises
# must-pass: stable distinct gates-sum-to-one input-unchanged order top-k
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if k >= E or k < 1:
        raise ValueError(f"k must be smaller than E={E}")
    idx = np.argsort(-logits, axis=1)[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    g = np.exp(top - top[:, :1])
    return idx, g / g.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    P = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).mean(axis=0)
    return float(n_experts * np.sum(f * P))
