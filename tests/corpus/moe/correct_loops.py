# attnprep: moe
# expect: pass
# style: plain Python loops; sorted() with a key for the ranking; math.exp; lists of lists returned
import math


def route_top_k(x, W_router, k):
    T, d = len(x), len(x[0])
    E = len(W_router[0])
    if not isinstance(k, int) or k < 1 or k > E:
        raise ValueError("k must be an integer between 1 and E")
    all_idx, all_gates = [], []
    for t in range(T):
        logits = [sum(float(x[t][i]) * float(W_router[i][e]) for i in range(d)) for e in range(E)]
        ranked = sorted(range(E), key=lambda e: logits[e], reverse=True)[:k]
        m = logits[ranked[0]]
        exps = [math.exp(logits[e] - m) for e in ranked]
        total = sum(exps)
        all_idx.append(ranked)
        all_gates.append([v / total for v in exps])
    return all_idx, all_gates


def load_balance_loss(router_logits, expert_idx, n_experts):
    T = len(router_logits)
    P = [0.0] * n_experts
    for row in router_logits:
        m = max(row)
        exps = [math.exp(v - m) for v in row]
        total = sum(exps)
        for e in range(n_experts):
            P[e] += exps[e] / total / T
    counts = [0] * n_experts
    n = 0
    for row in expert_idx:
        for e in row:
            counts[int(e)] += 1
            n += 1
    return n_experts * sum(counts[e] / n * P[e] for e in range(n_experts))
