# attnprep: gqa
# expect: fail stable
# must-pass: shape equals-mha mqa group-mapping scale bad-input input-unchanged
# mistake: the future is masked by adding -1e4 to its scores (an old Hugging Face habit), not -inf: scores more than 1e4 above the visible ones still win
import numpy as np

def gqa_attention(x, W_q, W_k, W_v, W_o, n_heads, n_kv_heads):
    if n_kv_heads <= 0 or n_heads % n_kv_heads: raise ValueError("bad heads")
    B, T, D = x.shape
    hd = W_q.shape[1] // n_heads; g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = np.repeat((x @ W_k).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, 1)
    v = np.repeat((x @ W_v).reshape(B, T, n_kv_heads, hd).transpose(0, 2, 1, 3), g, 1)
    s = q @ k.swapaxes(-1, -2) / np.sqrt(hd) + np.triu(np.full((T, T), -1e4), 1)
    s = s - s.max(-1, keepdims=True); e = np.exp(s)
    return ((e / e.sum(-1, keepdims=True)) @ v).transpose(0, 2, 1, 3).reshape(B, T, -1) @ W_o
