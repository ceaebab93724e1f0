# attnprep: moe
# expect: fail top-k
# mistake: stores the chosen experts as uint8 "since there are never more than 256 experts": with 300 experts, expert 290 comes back as 34
import numpy as np


def route_top_k(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    E = logits.shape[1]
    if not 1 <= k <= E:
        raise ValueError("k must be in 1..E")
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k].astype(np.uint8)
    top = np.take_along_axis(logits, idx.astype(np.int64), axis=1)
    e = np.exp(top - top.max(axis=1, keepdims=True))
    return idx, e / e.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = np.asarray(router_logits, dtype=np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    idx = np.asarray(expert_idx).astype(np.int64)
    f = np.bincount(idx.ravel(), minlength=n_experts) / idx.size
    return float(n_experts * np.sum(f * p.mean(axis=0)))
