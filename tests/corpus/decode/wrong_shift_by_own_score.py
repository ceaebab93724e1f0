# attnprep: decode
# expect: fail stable matches-reference
# must-pass: cache-shape first-step cache-content matches-full batch-independent input-unchanged
# mistake: stabilises the softmax by the new token's own score (the diagonal, thought to be the largest in causal
#          attention) instead of each row's maximum; exact whenever no cached key scores 709 above the new token
# diagnosis: shift-by-own-score

import numpy as np


def _to_heads(a, n_heads):
    """(B, d_model) -> (B, n_heads, 1, d_head); head h holds features h*d_head:(h+1)*d_head."""
    B, d_model = a.shape
    return a.reshape(B, n_heads, 1, d_model // n_heads)


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    x_t = np.asarray(x_t, dtype=np.float64)
    B, d_model = x_t.shape
    d_head = d_model // n_heads

    # Only the new token is projected: the keys and values of earlier tokens
    # are already in the cache and never change.
    q = _to_heads(x_t @ W_q, n_heads)  # (B, H, 1, d_head)
    k = _to_heads(x_t @ W_k, n_heads)
    v = _to_heads(x_t @ W_v, n_heads)

    if cache is None:
        K, V = k, v
    else:
        # Append along the position axis (axis 2). np.concatenate builds new
        # arrays, so the caller's cache is left as it was.
        K = np.concatenate([cache[0], k], axis=2)  # (B, H, t+1, d_head)
        V = np.concatenate([cache[1], v], axis=2)

    # One query row against every cached key. The new token is the last
    # position, so all of them are in its past: no mask is needed.
    scores = q @ K.swapaxes(-1, -2) / np.sqrt(d_head)  # (B, H, 1, t+1)
    scores = scores - scores[..., -1:]  # the new token's score q . k_t
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)

    # (B, H, 1, d_head) -> (B, H*d_head): with a single position the
    # transpose of the usual merge is a no-op, so a reshape is enough.
    out = (weights @ V).reshape(B, d_model)
    return out @ W_o, (K, V)
