# attnprep: params
# expect: fail weights-gib
# mistake: weights_gib computes in float32 (np.float32 of the count), 7 significant digits for an exact quotient
# must-pass: seed-config tied gqa integer bad-input
import numpy as np


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff)
    if any(int(s) < 1 for s in sizes):
        raise ValueError("every size must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    V, D, L, H, K, hd, F = (int(s) for s in sizes)
    layer = D * H * hd * 2 + 2 * D * K * hd + 3 * D * F + 2 * D
    return V * D * (1 if tied_embeddings else 2) + L * layer + D


def weights_gib(n_params, bits):
    return float(np.float32(n_params) * np.float32(bits) / np.float32(8 * 2**30))
