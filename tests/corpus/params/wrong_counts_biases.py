# attnprep: params
# expect: fail seed-config matches-reference
# must-pass: gqa
# mistake: adds a bias to every projection, as in GPT-2; Llama-style models have none
# diagnosis: counts-biases
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    q = d_model * n_heads * head_dim + n_heads * head_dim
    kv = 2 * (d_model * n_kv_heads * head_dim + n_kv_heads * head_dim)
    o = n_heads * head_dim * d_model + d_model
    ffn = 2 * (d_model * d_ff + d_ff) + d_ff * d_model + d_model
    layer = q + kv + o + ffn + 2 * d_model
    embeddings = vocab_size * d_model * (1 if tied_embeddings else 2)
    return n_layers * layer + embeddings + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
