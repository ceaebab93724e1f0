# attnprep: block
# expect: pass
# style: copies x and params first, then in-place arithmetic on the copies; np.where mask; logsumexp softmax
import numpy as np


def transformer_block(x, params, n_heads):
    p = {name: np.array(value, dtype=float) for name, value in params.items()}
    stream = np.array(x, dtype=float)
    B, T, d = stream.shape
    hd = d // n_heads

    def rmsnorm(z, w):
        z = z.copy()
        z /= np.sqrt((z ** 2).mean(-1, keepdims=True) + 1e-6)
        z *= w
        return z

    def heads(z):
        return np.swapaxes(z.reshape(B, T, n_heads, hd), 1, 2)

    xn = rmsnorm(stream, p["attn_norm"])
    p["W_q"] /= np.sqrt(hd)  # fold the scale into a private copy of W_q
    q, k, v = heads(xn @ p["W_q"]), heads(xn @ p["W_k"]), heads(xn @ p["W_v"])
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    lse = m + np.log(np.exp(s - m).sum(-1, keepdims=True))
    o = np.exp(s - lse) @ v
    stream += np.swapaxes(o, 1, 2).reshape(B, T, d) @ p["W_o"]

    hn = rmsnorm(stream, p["ffn_norm"])
    g = hn @ p["W_gate"]
    sig = np.exp(-np.logaddexp(0.0, -g))
    stream += (g * sig * (hn @ p["W_up"])) @ p["W_down"]
    return stream
