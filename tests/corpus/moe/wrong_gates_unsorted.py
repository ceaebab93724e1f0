# attnprep: moe
# expect: fail order
# mistake: sorts the expert indices but takes the gates from the unsorted argpartition columns, so gate j is not expert j's
# must-pass: stable
# diagnosis: gates-not-sorted-with-experts
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if not 1 <= k <= E:
        raise ValueError("bad k")
    part = np.argpartition(logits, E - k, axis=1)[:, E - k:]
    top = np.take_along_axis(logits, part, axis=1)
    g = np.exp(top - top.max(axis=1, keepdims=True))
    g = g / g.sum(axis=1, keepdims=True)
    idx = np.take_along_axis(part, np.argsort(-top, axis=1), axis=1)
    return idx, g


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    P = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).mean(axis=0)
    return float(n_experts * np.sum(f * P))
