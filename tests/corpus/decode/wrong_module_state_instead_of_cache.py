# attnprep: decode
# expect: fail matches-full
# must-pass: cache-shape first-step input-unchanged
# mistake: keeps the last K and V it returned in a module-level dict and uses them instead of the cache it is given whenever the shapes match: two sequences decoded in turns read each other's history
import numpy as np

_state = {"K": None, "V": None}


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    # keep our own copy of the cache; trust it when its length matches
    B, D = x_t.shape
    dh = D // n_heads
    q = (x_t @ W_q).reshape(B, n_heads, 1, dh)
    k = (x_t @ W_k).reshape(B, n_heads, 1, dh)
    v = (x_t @ W_v).reshape(B, n_heads, 1, dh)
    if cache is None:
        K, V = k, v
    else:
        Ks, Vs = _state["K"], _state["V"]
        if Ks is not None and Ks.shape == cache[0].shape:
            base_K, base_V = Ks, Vs
        else:
            base_K, base_V = cache
        K = np.concatenate([base_K, k], axis=2)
        V = np.concatenate([base_V, v], axis=2)
    _state["K"], _state["V"] = K, V
    s = q @ K.transpose(0, 1, 3, 2) / np.sqrt(dh)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    w /= w.sum(-1, keepdims=True)
    return (w @ V).reshape(B, D) @ W_o, (K.copy(), V.copy())
