# attnprep: decode
# expect: fail input-unchanged
# mistake: PyTorch, one preallocated K/V buffer for the module, filled with copy_ and returned as narrow() views, so a later call for another sequence or beam rewrites the cache the caller holds
import torch

_buf = {}


def decode_step(x_t, cache, W_q, W_k, W_v, W_o, n_heads):
    B, d_model = x_t.shape
    d_head = d_model // n_heads
    q, k, v = ((x_t @ W).view(B, n_heads, 1, d_head) for W in (W_q, W_k, W_v))
    t = 0 if cache is None else cache[0].shape[2]
    key = (B, n_heads, d_head)
    if key not in _buf or _buf[key][0].shape[2] < t + 1:
        _buf[key] = (torch.empty(B, n_heads, max(64, 2 * (t + 1)), d_head, dtype=x_t.dtype),
                     torch.empty(B, n_heads, max(64, 2 * (t + 1)), d_head, dtype=x_t.dtype))
    K_buf, V_buf = _buf[key]
    if cache is not None:
        K_buf[:, :, :t].copy_(cache[0])
        V_buf[:, :, :t].copy_(cache[1])
    K_buf[:, :, t:t + 1].copy_(k)
    V_buf[:, :, t:t + 1].copy_(v)
    K, V = K_buf.narrow(2, 0, t + 1), V_buf.narrow(2, 0, t + 1)
    w = torch.softmax(q @ K.transpose(-1, -2) / d_head ** 0.5, dim=-1)
    return (w @ V).transpose(1, 2).reshape(B, d_model) @ W_o, (K, V)
