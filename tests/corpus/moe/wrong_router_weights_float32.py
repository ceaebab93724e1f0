# attnprep: moe
# expect: fail matches-reference
# must-pass: shape top-k order gates-sum-to-one distinct stable balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# mistake: keeps the router's weight matrix in float32, as a checkpoint stores it, while x and the gates are float64:
#          every weight was rounded to float32 first, which moves logits in the hundreds by about 1e-5
# diagnosis: router-weights-float32
import numpy as np

ROUTER_DTYPE = np.float32


def route_top_k(x, W_router, k):
    W = np.asarray(W_router, dtype=ROUTER_DTYPE)
    logits = np.asarray(x, dtype=np.float64) @ W
    if k < 1 or k > W.shape[1]:
        raise ValueError("k out of range")
    order = np.argsort(-logits, axis=-1, kind="stable")[:, :k]
    chosen = np.take_along_axis(logits, order, axis=-1)
    w = np.exp(chosen - chosen.max(axis=-1, keepdims=True))
    return order, w / w.sum(axis=-1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    logits = np.asarray(router_logits, dtype=np.float64)
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    P = (z / z.sum(axis=-1, keepdims=True)).mean(axis=0)
    f = np.bincount(np.asarray(expert_idx).ravel(), minlength=n_experts) / np.asarray(expert_idx).size
    return float(n_experts * (f * P).sum())
