# attnprep: moe
# expect: fail imbalance
# mistake: f_e from np.histogram(expert_idx, bins=n_experts), whose bins span min..max of the indices actually used; when expert 0 or expert E-1 gets no assignment (router favouring two experts) the counts land in the wrong bins
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if k > E or k < 1:
        raise ValueError("need 1 <= k <= E")
    order = np.argsort(logits, axis=1, kind="stable")[:, ::-1]
    expert_idx = order[:, :k]
    top = np.take_along_axis(logits, expert_idx, axis=1)
    w = np.exp(top - top.max(axis=1, keepdims=True))
    gates = w / w.sum(axis=1, keepdims=True)
    return expert_idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    m = router_logits.max(axis=1, keepdims=True)
    p = np.exp(router_logits - m)
    p = p / p.sum(axis=1, keepdims=True)
    P = p.mean(axis=0)
    counts, _ = np.histogram(expert_idx, bins=n_experts)
    f = counts / expert_idx.size
    return float(n_experts * np.sum(f * P))
