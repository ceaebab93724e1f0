# attnprep: moe
# expect: pass
# style: heapq.nlargest per token, gates with math.exp, f_e from a one-hot tensor np.eye(E)[idx] and einsum
import heapq
import math

import numpy as np


def route_top_k(x, W_router, k):
    logits = np.einsum("td,de->te", x, W_router)
    T, E = logits.shape
    if not (1 <= k <= E):
        raise ValueError("need 1 <= k <= E")
    idx, gates = [], []
    for row in logits:
        best = heapq.nlargest(k, range(E), key=lambda e: row[e])
        top = [row[e] for e in best]
        ex = [math.exp(v - top[0]) for v in top]
        s = sum(ex)
        idx.append(best)
        gates.append([v / s for v in ex])
    return np.array(idx, dtype=np.int64), np.array(gates)


def load_balance_loss(router_logits, expert_idx, n_experts):
    z = router_logits - router_logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)                    # p is a new array
    one_hot = np.eye(n_experts)[np.asarray(expert_idx)]  # (T, k, E)
    f = np.einsum("tke->e", one_hot) / one_hot.shape[0] / one_hot.shape[1]
    P = p.mean(axis=0)
    return float(n_experts * np.dot(f, P))
