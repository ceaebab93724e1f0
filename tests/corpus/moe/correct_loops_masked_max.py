# attnprep: moe
# expect: pass
# style: plain Python loops per token: selection by repeated max over a -inf-masked copy, log-sum-exp by hand, counts in a list
import math
import numpy as np


def route_top_k(x, W_router, k):
    E = W_router.shape[1]
    if k < 1 or k > E:
        raise ValueError("k must be between 1 and the number of experts")
    logits = np.asarray(x, dtype=np.float64) @ np.asarray(W_router, dtype=np.float64)
    T = logits.shape[0]
    expert_idx = np.zeros((T, k), dtype=np.int64)
    gates = np.zeros((T, k), dtype=np.float64)
    for t in range(T):
        row = [float(v) for v in logits[t]]
        chosen = []
        for _ in range(k):
            best, best_v = -1, -math.inf
            for e in range(E):
                if e in chosen:
                    continue
                if best == -1 or row[e] > best_v:
                    best, best_v = e, row[e]
            chosen.append(best)
        vals = [row[e] for e in chosen]
        m = vals[0]
        ex = [math.exp(v - m) for v in vals]
        s = sum(ex)
        expert_idx[t] = chosen
        gates[t] = [v / s for v in ex]
    return expert_idx, gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    L = np.asarray(router_logits, dtype=np.float64)
    T = L.shape[0]
    P = [0.0] * n_experts
    for t in range(T):
        m = float(np.max(L[t]))
        ex = [math.exp(float(v) - m) for v in L[t]]
        s = sum(ex)
        for e in range(n_experts):
            P[e] += ex[e] / s / T
    counts = [0] * n_experts
    total = 0
    for e in np.asarray(expert_idx).ravel():
        counts[int(e)] += 1
        total += 1
    return float(n_experts * sum(counts[e] / total * P[e] for e in range(n_experts)))
