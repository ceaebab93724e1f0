# attnprep: params
# expect: fail gqa matches-reference
# mistake: sizes W_q and W_o as d_model x d_model (true only when d_model == n_heads * head_dim), K and V correctly
# diagnosis: q-o-square
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    q = o = d_model * d_model
    k = v = d_model * n_kv_heads * head_dim
    layer = q + k + v + o + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
