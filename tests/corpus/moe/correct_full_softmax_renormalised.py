# attnprep: moe
# expect: pass
# style: gates = full softmax probabilities of the chosen experts, renormalised; np.unique counts; np.float64 result
import numpy as np


def _softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def route_top_k(x, W_router, k):
    logits = np.matmul(x, W_router)
    if k < 1 or k > logits.shape[1]:
        raise ValueError(f"k={k} out of range")
    probs = _softmax(logits)
    idx = np.argsort(probs, axis=1)[:, ::-1][:, :k]     # descending probability = descending logit
    chosen = np.take_along_axis(probs, idx, axis=1)
    return idx, chosen / chosen.sum(axis=1, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    experts, counts = np.unique(np.asarray(expert_idx), return_counts=True)
    f = np.zeros(n_experts)
    f[experts] = counts / np.asarray(expert_idx).size
    P = _softmax(np.asarray(router_logits, dtype=float)).mean(axis=0)
    return np.float64(n_experts) * np.sum(f * P)
