# attnprep: moe
# expect: fail distinct top-k
# mistake: takes the argmax k times without removing the expert already chosen
# diagnosis: top-expert-repeated
# must-pass: stable
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    T, E = logits.shape
    if k < 1 or k > E:
        raise ValueError("bad k")
    idx = np.zeros((T, k), dtype=int)
    for j in range(k):
        idx[:, j] = np.argmax(logits, axis=1)
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top.max(axis=1, keepdims=True))
    return idx, e / e.sum(axis=1, keepdims=True)

def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    P = p.mean(axis=0)
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * P))
