# attnprep: causal
# expect: pass
# style: explicit Python loops over queries and keys, math.exp, only the allowed keys summed; lists returned
import math


def causal_mask(T):
    return [[j > i for j in range(T)] for i in range(T)]


def causal_attention(q, k, v):
    T, d_k, d_v = len(q), len(q[0]), len(v[0])
    scale = 1.0 / math.sqrt(d_k)
    weights = [[0.0] * T for _ in range(T)]
    out = [[0.0] * d_v for _ in range(T)]
    for i in range(T):
        scores = [sum(q[i][c] * k[j][c] for c in range(d_k)) * scale for j in range(i + 1)]
        m = max(scores)
        exps = [math.exp(s - m) for s in scores]
        total = sum(exps)
        for j in range(i + 1):
            weights[i][j] = exps[j] / total
            for c in range(d_v):
                out[i][c] += weights[i][j] * v[j][c]
    return out, weights
