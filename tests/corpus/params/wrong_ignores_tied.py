# attnprep: params
# expect: fail tied
# mistake: always counts a separate unembedding, even when the embeddings are tied
# diagnosis: ignores-tied
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    q = d_model * n_heads * head_dim
    kv = 2 * d_model * n_kv_heads * head_dim
    o = n_heads * head_dim * d_model
    layer = q + kv + o + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + 2 * vocab_size * d_model + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
