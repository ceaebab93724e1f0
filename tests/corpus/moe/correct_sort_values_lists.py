# attnprep: moe
# expect: pass
# style: np.sort for the top values and argsort(kind="stable") on -logits for indices, results as Python lists, loss via bincount of float indices cast back
import numpy as np


def route_top_k(x, W_router, k):
    logits = np.dot(x, W_router)
    E = logits.shape[-1]
    if not 0 < k <= E:
        raise ValueError("k out of range")
    idx = np.argsort(-logits, axis=-1, kind="stable")[..., :k]
    top = -np.sort(-logits, axis=-1)[..., :k]            # the same values, highest first
    g = np.exp(top - top[..., :1])
    g = g / g.sum(axis=-1, keepdims=True)
    return idx.tolist(), g.tolist()


def load_balance_loss(router_logits, expert_idx, n_experts):
    flat = np.asarray(expert_idx, dtype=float).ravel().astype(np.int64)
    f = np.bincount(flat, minlength=n_experts).astype(float)
    f /= flat.size
    logits = np.array(router_logits, dtype=float)
    logits -= logits.max(axis=-1, keepdims=True)         # our own copy
    p = np.exp(logits)
    P = (p / p.sum(axis=-1, keepdims=True)).mean(axis=0)
    return n_experts * float(np.inner(f, P))
