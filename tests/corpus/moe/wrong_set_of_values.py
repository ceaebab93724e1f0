# attnprep: moe
# expect: fail top-k order matches-reference
# must-pass: shape gates-sum-to-one stable balanced-loss imbalance assignment-share router-probability bad-input input-unchanged
# diagnosis: equal-logits-dropped
# mistake: ranks the distinct logit values of each token (sorted(set(row))) and maps each back to its first expert
#          with list.index, so experts with equal logits collapse into one and a lower logit takes the free place
import math

import numpy as np


def route_top_k(x, W_router, k):
    logits = (np.asarray(x, dtype=float) @ np.asarray(W_router, dtype=float)).tolist()
    E = len(logits[0])
    if k < 1 or k > E:
        raise ValueError("k must be between 1 and the number of experts")
    idx, gates = [], []
    for row in logits:
        values = sorted(set(row), reverse=True)
        experts = [row.index(v) for v in values][:k]
        experts += [e for e in range(E) if e not in experts][:k - len(experts)]  # fill up if fewer distinct values
        m = row[experts[0]]
        w = [math.exp(row[e] - m) for e in experts]
        idx.append(experts)
        gates.append([v / sum(w) for v in w])
    return np.array(idx), np.array(gates)




def _softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def load_balance_loss(router_logits, expert_idx, n_experts):
    router_logits = np.asarray(router_logits, dtype=np.float64)  # (T, E)
    expert_idx = np.asarray(expert_idx)  # (T, k)
    # f_e: the share of all T*k assignments that went to expert e (every column counts).
    counts = np.bincount(expert_idx.ravel(), minlength=n_experts)
    f = counts / expert_idx.size
    # P_e: the router's probability for e, softmax over all E experts, averaged over tokens.
    P = _softmax(router_logits, axis=-1).mean(axis=0)
    # Uniform P (1/E each) gives E * sum_e f_e / E = 1, whatever f is; the loss
    # grows when the experts that receive the most tokens also get the most probability.
    return float(n_experts * np.sum(f * P))
