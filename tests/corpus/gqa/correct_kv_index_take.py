# attnprep: gqa
# expect: pass
# style: np.take with an index array of KV heads per query head, the scale folded into a private copy of k, -1e9 fill with np.putmask, keyword call friendly
import numpy as np


def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_heads % n_kv_heads != 0:
        raise ValueError(f"{n_heads} query heads cannot be grouped over {n_kv_heads} KV heads")
    x = np.asarray(x, dtype=np.float64)
    B, T, _ = x.shape
    hd = W_q.shape[1] // n_heads

    def heads(a, n):
        return np.moveaxis(a.reshape(B, T, n, hd), 2, 1)

    kv_of = np.arange(n_heads) // (n_heads // n_kv_heads)
    q = heads(x @ W_q, n_heads)
    k = np.take(heads(x @ W_k, n_kv_heads), kv_of, axis=1)  # a copy
    v = np.take(heads(x @ W_v, n_kv_heads), kv_of, axis=1)
    k /= np.sqrt(hd)
    s = q @ np.swapaxes(k, 2, 3)
    np.putmask(s, np.broadcast_to(np.triu(np.ones((T, T), bool), 1), s.shape), -1e9)
    s -= np.amax(s, axis=3, keepdims=True)
    np.exp(s, out=s)
    s /= np.sum(s, axis=3, keepdims=True)
    return np.moveaxis(s @ v, 1, 2).reshape(B, T, -1) @ W_o
