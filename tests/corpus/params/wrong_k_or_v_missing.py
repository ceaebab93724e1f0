# attnprep: params
# expect: fail seed-config gqa matches-reference
# mistake: counts one d_model x n_kv_heads*head_dim matrix for "the KV projection" instead of two (W_k and W_v)
# diagnosis: k-or-v-missing
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    q = o = d_model * n_heads * head_dim
    kv = d_model * n_kv_heads * head_dim
    layer = q + kv + o + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
