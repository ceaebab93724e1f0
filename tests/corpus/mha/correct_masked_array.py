# attnprep: mha
# expect: pass
# style: numpy.ma for the causal softmax on 4-D scores; the scale folded into a scaled copy of W_q
import numpy as np


def split_heads(x, n_heads):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    return x.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3).copy()


def merge_heads(x):
    return np.concatenate(list(np.moveaxis(x, 1, 0)), axis=-1)


def causal_mha(x, W_q, W_k, W_v, W_o, n_heads, **unused):
    B, T, D = x.shape
    if D % n_heads:
        raise ValueError("n_heads must divide d_model")
    dh = D // n_heads
    q = split_heads(x @ (W_q / np.sqrt(dh)), n_heads)  # a new array: the caller's W_q is untouched
    k = split_heads(x @ W_k, n_heads)
    v = split_heads(x @ W_v, n_heads)
    future = np.broadcast_to(np.triu(np.ones((T, T), dtype=bool), 1), (B, n_heads, T, T))
    scores = np.ma.masked_array(q @ k.transpose(0, 1, 3, 2), mask=future)
    e = np.ma.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = (e / e.sum(axis=-1, keepdims=True)).filled(0.0)
    return merge_heads(weights @ v) @ W_o, weights
