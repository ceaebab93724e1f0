# attnprep: params
# expect: fail seed-config matches-reference
# mistake: counts only the matrices and forgets every RMSNorm scale (two per layer and the final one)
# diagnosis: no-norms
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    layer = 2 * d_model * n_heads * head_dim + 2 * d_model * n_kv_heads * head_dim + 3 * d_model * d_ff
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2)


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
