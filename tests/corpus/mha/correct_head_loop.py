# attnprep: mha
# expect: pass
# style: a loop over heads with column slices, -1e9 additive mask, concatenate to merge
import numpy as np


def split_heads(x, n_heads):
    d_head = x.shape[-1] // n_heads
    if d_head * n_heads != x.shape[-1]:
        raise ValueError("d_model must be a multiple of n_heads")
    return np.stack([x[:, :, h * d_head:(h + 1) * d_head] for h in range(n_heads)], axis=1)


def merge_heads(x):
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads):
    B, T, d_model = x.shape
    if n_heads <= 0 or d_model % n_heads != 0:
        raise ValueError(f"cannot split d_model={d_model} into {n_heads} heads")
    d_head = d_model // n_heads
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    mask = np.tril(np.ones((T, T)))
    outs, all_weights = [], []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        qh, kh, vh = q[:, :, cols], k[:, :, cols], v[:, :, cols]
        s = qh @ kh.transpose(0, 2, 1) / np.sqrt(d_head)
        s = s + (1.0 - mask) * -1e9
        s -= s.max(axis=-1, keepdims=True)
        w = np.exp(s)
        w /= w.sum(axis=-1, keepdims=True)
        outs.append(w @ vh)
        all_weights.append(w)
    y = np.concatenate(outs, axis=-1) @ W_o
    return y, np.stack(all_weights, axis=1)
