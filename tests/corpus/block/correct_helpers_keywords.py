# attnprep: block
# expect: pass
# style: fills in the stub's helpers and calls them with keyword arguments; RMS via np.linalg.norm; silu via tanh
import numpy as np

EPS = 1e-6


def rms_norm(x, weight, eps=EPS):
    d = x.shape[-1]
    rms = np.sqrt(np.linalg.norm(x, axis=-1, keepdims=True) ** 2 / d + eps)
    return weight * (x / rms)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    d_head = d_model // n_heads
    split = lambda a: a.reshape(B, T, n_heads, d_head).swapaxes(1, 2)  # noqa: E731
    q, k, v = split(np.matmul(x, W_q)), split(np.matmul(x, W_k)), split(np.matmul(x, W_v))
    scores = np.matmul(q, k.swapaxes(-1, -2)) / np.sqrt(d_head)
    scores[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return np.matmul(np.matmul(w, v).swapaxes(1, 2).reshape(B, T, d_model), W_o)


def swiglu(x, W_gate, W_up, W_down):
    a = x @ W_gate
    silu = a * 0.5 * (1.0 + np.tanh(0.5 * a))      # sigmoid(a) = (1 + tanh(a / 2)) / 2
    return (silu * (x @ W_up)) @ W_down


def transformer_block(x, params, n_heads):
    h = x + causal_mha(rms_norm(x, weight=params["attn_norm"], eps=1e-6), W_q=params["W_q"], W_k=params["W_k"],
                       W_v=params["W_v"], W_o=params["W_o"], n_heads=n_heads)
    return h + swiglu(rms_norm(h, weight=params["ffn_norm"]), W_gate=params["W_gate"], W_up=params["W_up"],
                      W_down=params["W_down"])
