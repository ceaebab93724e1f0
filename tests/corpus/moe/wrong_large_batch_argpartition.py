# attnprep: moe
# expect: fail matches-reference
# must-pass: shape top-k gates-sum-to-one distinct stable balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# diagnosis: top-k-unsorted
# mistake: a fast path for large batches (more than 4,096 tokens) takes np.argpartition's top k without sorting
#          them, so long batches list their experts in no particular order

import numpy as np


def _softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def route_top_k(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    T, E = logits.shape
    if not 1 <= k <= E:
        raise ValueError(f"k must be in 1..{E}, got {k}")
    if T > 4096:  # O(E) per token instead of O(E log E)
        idx = np.argpartition(logits, E - k, axis=1)[:, E - k:]
    else:
        idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    return idx, _softmax(np.take_along_axis(logits, idx, axis=1), axis=-1)


def load_balance_loss(router_logits, expert_idx, n_experts):
    router_logits = np.asarray(router_logits, dtype=np.float64)  # (T, E)
    expert_idx = np.asarray(expert_idx)  # (T, k)
    # f_e: the share of all T*k assignments that went to expert e (every column counts).
    counts = np.bincount(expert_idx.ravel(), minlength=n_experts)
    f = counts / expert_idx.size
    # P_e: the router's probability for e, softmax over all E experts, averaged over tokens.
    P = _softmax(router_logits, axis=-1).mean(axis=0)
    # Uniform P (1/E each) gives E * sum_e f_e / E = 1, whatever f is; the loss
    # grows when the experts that receive the most tokens also get the most probability.
    return float(n_experts * np.sum(f * P))
