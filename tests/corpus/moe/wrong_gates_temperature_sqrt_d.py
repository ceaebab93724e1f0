# attnprep: moe
# expect: fail matches-reference
# must-pass: shape top-k order gates-sum-to-one distinct stable balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# diagnosis: router-scaled-by-sqrt-d
# mistake: carries the attention habit over and divides the router logits by sqrt(d) before the gate softmax
import numpy as np


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def route_top_k(x, W_router, k):
    logits = x @ W_router / np.sqrt(x.shape[1])
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    return idx, _softmax(np.take_along_axis(logits, idx, axis=1))


def load_balance_loss(router_logits, expert_idx, n_experts):
    counts = np.bincount(np.ravel(expert_idx), minlength=n_experts)
    P = _softmax(router_logits).mean(axis=0)
    return float(n_experts * np.sum(counts / np.size(expert_idx) * P))
