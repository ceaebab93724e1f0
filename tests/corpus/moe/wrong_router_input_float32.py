# attnprep: moe
# expect: fail matches-reference
# must-pass: shape top-k order gates-sum-to-one distinct stable balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# mistake: runs the router matmul on float32 hidden states (as mixed-precision MoE code does to save memory) and
#          computes everything after it in float64: gates of logits in the hundreds are off by about 1e-5
# diagnosis: router-input-float32
import numpy as np


def route_top_k(x, W_router, k):
    logits = x.astype(np.float32) @ W_router  # float32 @ float64 gives float64, but x was rounded
    n_experts = logits.shape[1]
    if not 1 <= k <= n_experts:
        raise ValueError(f"k must be in [1, {n_experts}]")
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top[:, :1])
    return idx, e / e.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    f = np.bincount(np.ravel(expert_idx), minlength=n_experts) / np.size(expert_idx)
    return float(n_experts * np.dot(f, p.mean(axis=0)))
