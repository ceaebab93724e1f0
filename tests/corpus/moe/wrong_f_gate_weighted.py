# attnprep: moe
# expect: fail assignment-share
# must-pass: shape top-k order gates-sum-to-one distinct stable balanced-loss bad-input router-probability input-unchanged
# diagnosis: f-gate-weighted
# mistake: weights each assignment by its gate when computing f_e (a soft share), instead of counting every one of the T*k assignments equally
import numpy as np


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def route_top_k(x, W_router, k):
    logits = x @ W_router
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("bad k")
    idx = np.argsort(-logits, axis=1)[:, :k]
    return idx, _softmax(np.take_along_axis(logits, idx, axis=1))


def load_balance_loss(router_logits, expert_idx, n_experts):
    T = router_logits.shape[0]
    gates = _softmax(np.take_along_axis(router_logits, expert_idx, axis=1))
    f = np.zeros(n_experts)
    np.add.at(f, expert_idx.ravel(), gates.ravel())
    f /= T
    P = _softmax(router_logits).mean(axis=0)
    return float(n_experts * np.sum(f * P))
