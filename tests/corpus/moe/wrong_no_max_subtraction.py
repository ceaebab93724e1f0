# attnprep: moe
# expect: fail stable
# mistake: exponentiates the raw logits: exp overflows to inf once a logit passes about 709
# diagnosis: no-max-subtraction loss-no-max-subtraction
# not-diagnosis: gates-shift-by-min
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if k < 1 or k > E:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    e = np.exp(np.take_along_axis(logits, idx, axis=1))
    return idx, e / e.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    p = np.exp(router_logits) / np.exp(router_logits).sum(axis=-1, keepdims=True)
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * p.mean(axis=0)))
