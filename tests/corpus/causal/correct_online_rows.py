# attnprep: causal
# expect: pass
# style: an online softmax over the keys of each row (running max and sum, rescaled), weights rebuilt from the final max; triu_indices for the mask
import numpy as np


def causal_mask(T):
    m = np.zeros((T, T), dtype=bool)
    m[np.triu_indices(T, 1)] = True
    return m


def causal_attention(q, k, v):
    T, d = len(q), len(q[0])
    out = np.zeros((T, np.shape(v)[1]))
    weights = np.zeros((T, T))
    for i in range(T):
        m, l = -np.inf, 0.0
        acc = np.zeros(np.shape(v)[1])
        scores = [float(np.dot(q[i], k[j])) / d ** 0.5 for j in range(i + 1)]
        for j, s in enumerate(scores):
            m_new = max(m, s)
            l = l * np.exp(m - m_new) + np.exp(s - m_new)
            acc = acc * np.exp(m - m_new) + np.exp(s - m_new) * v[j]
            m = m_new
        out[i] = acc / l
        weights[i, : i + 1] = np.exp(np.array(scores) - m) / l
    return out, weights
