# attnprep: moe
# expect: pass
# style: descending order from a reversed ascending argsort, one softmax helper (np.exp of the shifted logits) for gates and P_e, f_e from np.eye(E)[idx] one-hots, lists out, np.dot for the final sum
import numpy as np


def softmax(z, axis):
    z = z - z.max(axis=axis, keepdims=True)
    return np.exp(z) / np.exp(z).sum(axis=axis, keepdims=True)


def route_top_k(x, W_router, k):
    logits = np.dot(x, W_router)
    E = logits.shape[1]
    if not 0 < k <= E:
        raise ValueError(f"k={k} outside 1..{E}")
    idx = np.argsort(logits, axis=1)[:, ::-1][:, :k]
    gates = softmax(np.take_along_axis(logits, idx, axis=1), axis=1)
    return idx.tolist(), gates.tolist()


def load_balance_loss(router_logits, expert_idx, n_experts):
    one_hot = np.eye(n_experts)[np.asarray(expert_idx)]      # (T, k, E)
    f = one_hot.sum(axis=(0, 1)) / one_hot[..., 0].size
    P = softmax(np.asarray(router_logits), axis=-1).mean(axis=0)
    return n_experts * np.dot(f, P).item()
