# attnprep: moe
# expect: fail stable
# must-pass: shape top-k order gates-sum-to-one distinct router-probability bad-input matches-reference input-unchanged
# mistake: centres each token's k chosen logits on their mean before exp ("softmax is shift-invariant"); the largest
#          is then half the spread above zero (for k = 2), so chosen logits some 1,420 apart overflow to inf / inf
import numpy as np


def route_top_k(x, W_router, k):
    scores = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    n_experts = scores.shape[1]
    if not 1 <= k <= n_experts:
        raise ValueError(f"k must be between 1 and {n_experts}, got {k}")
    expert_idx = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    chosen = np.take_along_axis(scores, expert_idx, axis=1)
    centred = chosen - chosen.mean(axis=1, keepdims=True)
    weights = np.exp(centred)
    gates = weights / weights.sum(axis=1, keepdims=True)
    return expert_idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(axis=1, keepdims=True)
    mean_prob = probs.mean(axis=0)
    share = np.bincount(np.ravel(expert_idx), minlength=n_experts) / np.size(expert_idx)
    return float(n_experts * share @ mean_prob)
