# attnprep: params
# expect: fail bad-input
# mistake: checks n_heads % n_kv_heads before the sizes are known to be positive: n_kv_heads=0 raises
#          ZeroDivisionError, not ValueError
# diagnosis: modulo-before-positive
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if min(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff) <= 0:
        raise ValueError("sizes must be positive")
    layer = 2 * d_model * n_heads * head_dim + 2 * d_model * n_kv_heads * head_dim + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 8 / 2**30
