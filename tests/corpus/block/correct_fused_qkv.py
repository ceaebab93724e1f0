# attnprep: block
# expect: pass
# style: one fused QKV matmul (np.concatenate of the weights), np.finfo.min mask, np.tensordot, clipped sigmoid
import numpy as np


def transformer_block(x, params, n_heads):
    B, T, D = np.shape(x)
    H, dh = n_heads, D // n_heads

    def norm(z, w):
        return z / np.sqrt(np.einsum("...i,...i->...", z, z)[..., None] / D + 1e-6) * w

    xn = norm(x, params["attn_norm"])
    W_qkv = np.concatenate([params["W_q"], params["W_k"], params["W_v"]], axis=1)   # (D, 3D)
    qkv = np.tensordot(xn, W_qkv, axes=([2], [0])).reshape(B, T, 3, H, dh)
    q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
    s = q @ k.transpose(0, 1, 3, 2) * (1 / np.sqrt(dh))
    s = np.where(np.tril(np.ones((T, T))) == 1, s, np.finfo(np.float64).min)
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    h = x + np.tensordot((w @ v).transpose(0, 2, 1, 3).reshape(B, T, -1), params["W_o"], axes=1)
    hn = norm(h, params["ffn_norm"])
    gate = np.tensordot(hn, params["W_gate"], axes=1)
    up = np.tensordot(hn, params["W_up"], axes=1)
    silu = gate / (1 + np.exp(-np.clip(gate, -500, 500)))
    return h + np.tensordot(silu * up, params["W_down"], axes=1)
