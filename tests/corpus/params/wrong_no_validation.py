# attnprep: params
# expect: fail bad-input
# mistake: never validates its arguments, so zero or negative sizes give a count
# diagnosis: no-validation
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    layer = 2 * d_model * head_dim * (n_heads + n_kv_heads) + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
