# attnprep: moe
# expect: pass
# style: np.argpartition for the top k, then a sort of just those k; logsumexp softmaxes; np.add.at counts
import numpy as np


def route_top_k(x, W_router, k):
    logits = np.asarray(x) @ np.asarray(W_router)
    T, E = logits.shape
    if k > E or k < 1:
        raise ValueError(f"k={k} must be in 1..{E}")
    part = np.argpartition(-logits, k - 1, axis=1)[:, :k]          # the top k, unordered
    part_logits = np.take_along_axis(logits, part, axis=1)
    order = np.argsort(-part_logits, axis=1)                        # sort only those k
    idx = np.take_along_axis(part, order, axis=1)
    top = np.take_along_axis(part_logits, order, axis=1)
    lse = top[:, :1] + np.log(np.exp(top - top[:, :1]).sum(axis=1, keepdims=True))
    return idx, np.exp(top - lse)


def load_balance_loss(router_logits, expert_idx, n_experts):
    m = router_logits.max(axis=1, keepdims=True)
    logp = router_logits - m - np.log(np.exp(router_logits - m).sum(axis=1, keepdims=True))
    P = np.exp(logp).mean(axis=0)
    counts = np.zeros(n_experts)
    np.add.at(counts, np.asarray(expert_idx).reshape(-1), 1.0)
    f = counts / counts.sum()
    return n_experts * float(f @ P)
