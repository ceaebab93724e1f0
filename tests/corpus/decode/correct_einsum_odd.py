# attnprep: decode
# expect: pass
# style: einsum with unusual subscripts on W.reshape(d_model, H, d_head) blocks; scale folded into q
import numpy as np


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, D = x_t.shape
    dh = D // n_heads
    Wq = W_q.reshape(D, n_heads, dh)
    Wk = W_k.reshape(D, n_heads, dh)
    Wv = W_v.reshape(D, n_heads, dh)
    q = np.einsum("zi,iyw->zyw", x_t, Wq) * dh ** -0.5        # a new array: W_q itself is untouched
    k = np.einsum("zi,iyw->zyw", x_t, Wk)[:, :, None]
    v = np.einsum("zi,iyw->zyw", x_t, Wv)[:, :, None]
    if cache is not None:
        k = np.concatenate((cache[0], k), 2)
        v = np.concatenate((cache[1], v), 2)
    s = np.einsum("zyw,zypw->zyp", q, k)
    s -= s.max(-1)[..., None]
    p = np.exp(s)
    p /= p.sum(-1)[..., None]
    o = np.einsum("zyp,zypw->zyw", p, v)
    return np.einsum("zyw,ywo->zo", o, W_o.reshape(n_heads, dh, D)), (k, v)
