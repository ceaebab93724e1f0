# attnprep: moe
# expect: fail stable matches-reference
# must-pass: shape top-k order gates-sum-to-one distinct balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# diagnosis: loss-shift-by-first
# mistake: stabilises the router softmax of the loss by expert 0's logit (any constant per token cancels, it
#          reasons), which overflows when another expert's logit is more than about 709 above it

import numpy as np


def _softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def route_top_k(x, W_router, k):
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)  # (T, E)
    n_experts = logits.shape[-1]
    if not 1 <= k <= n_experts:
        raise ValueError(f"k must be between 1 and the number of experts ({n_experts}), got {k}")
    # argsort of the negated logits sorts highest first; keep the first k columns.
    expert_idx = np.argsort(-logits, axis=-1, kind="stable")[:, :k]  # (T, k)
    top = np.take_along_axis(logits, expert_idx, axis=-1)  # (T, k), descending
    # The gates renormalise over the k chosen experts only, so each row sums to one.
    gates = _softmax(top, axis=-1)
    return expert_idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    router_logits = np.asarray(router_logits, dtype=np.float64)  # (T, E)
    expert_idx = np.asarray(expert_idx)  # (T, k)
    # f_e: the share of all T*k assignments that went to expert e (every column counts).
    counts = np.bincount(expert_idx.ravel(), minlength=n_experts)
    f = counts / expert_idx.size
    # P_e: the router's probability for e, softmax over all E experts, averaged over tokens.
    z = router_logits - router_logits[:, :1]  # relative to expert 0: any constant per row works
    P = (np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)).mean(axis=0)
    # Uniform P (1/E each) gives E * sum_e f_e / E = 1, whatever f is; the loss
    # grows when the experts that receive the most tokens also get the most probability.
    return float(n_experts * np.sum(f * P))
