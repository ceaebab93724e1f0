# attnprep: params
# expect: fail weights-gib
# mistake: weights_gib hard-codes 2 bytes per parameter (bf16) and ignores the bits argument
# diagnosis: gib-ignores-bits
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for v in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if v <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    layer = 2 * d_model * n_heads * head_dim + 2 * d_model * n_kv_heads * head_dim + 3 * d_model * d_ff + 2 * d_model
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


def weights_gib(n_params, bits):
    return n_params * 2 / 2**30
