# attnprep: block
# expect: pass
# style: position by position with a growing key/value list (decode style); rms_norm via np.apply_along_axis
import numpy as np


def _rms_row(row, w):
    return row / np.sqrt(np.dot(row, row) / row.size + 1e-6) * w


def _sigmoid(a):
    return np.exp(-np.logaddexp(0.0, -a))


def transformer_block(x, params, n_heads):
    P = params
    B, T, D = x.shape
    dh = D // n_heads
    out = np.empty((B, T, D))
    for b in range(B):
        keys, values = [], []
        for t in range(T):
            xn = _rms_row(x[b, t], P["attn_norm"])
            q = (xn @ P["W_q"]).reshape(n_heads, dh)
            keys.append((xn @ P["W_k"]).reshape(n_heads, dh))
            values.append((xn @ P["W_v"]).reshape(n_heads, dh))
            K, V = np.stack(keys, axis=1), np.stack(values, axis=1)       # (H, t+1, dh)
            s = np.einsum("hd,htd->ht", q, K) / np.sqrt(dh)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            h = x[b, t] + np.einsum("ht,htd->hd", w, V).reshape(D) @ P["W_o"]
            hn = np.apply_along_axis(_rms_row, -1, h, P["ffn_norm"])
            g = hn @ P["W_gate"]
            out[b, t] = h + (g * _sigmoid(g) * (hn @ P["W_up"])) @ P["W_down"]
    return out
