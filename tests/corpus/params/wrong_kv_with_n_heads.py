# attnprep: params
# expect: fail seed-config gqa matches-reference
# mistake: sizes K and V with n_heads, as in plain multi-head attention, ignoring n_kv_heads
# diagnosis: kv-sized-by-n-heads
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    attn = 4 * d_model * n_heads * head_dim
    layer = attn + 3 * d_model * d_ff + 2 * d_model
    embeddings = vocab_size * d_model * (1 if tied_embeddings else 2)
    return n_layers * layer + embeddings + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
