# attnprep: moe
# expect: fail gates-sum-to-one
# mistake: gates each chosen expert with a sigmoid of its logit instead of a softmax over the k chosen logits
# must-pass: stable
# diagnosis: gates-sigmoid
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    top = np.take_along_axis(logits, idx, axis=1)
    return idx, 1.0 / (1.0 + np.exp(-top))


def load_balance_loss(router_logits, expert_idx, n_experts):
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    P = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).mean(axis=0)
    return float(n_experts * np.sum(f * P))
