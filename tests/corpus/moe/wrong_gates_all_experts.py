# attnprep: moe
# expect: fail gates-sum-to-one
# mistake: takes the gates from the softmax over all E experts instead of renormalising over the k chosen
# diagnosis: gates-over-all-experts
# must-pass: stable
import numpy as np


def route_top_k(x, W_router, k):
    logits = x @ W_router
    E = logits.shape[1]
    if k < 1 or k > E:
        raise ValueError("bad k")
    z = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    idx = np.argsort(-logits, axis=1)[:, :k]
    return idx, np.take_along_axis(probs, idx, axis=1)

def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    P = p.mean(axis=0)
    f = np.bincount(expert_idx.ravel(), minlength=n_experts) / expert_idx.size
    return float(n_experts * np.sum(f * P))
