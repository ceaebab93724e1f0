# attnprep: params
# expect: pass
# style: one factored formula (d_model times everything per layer), keyword-only tied flag, **kwargs accepted,
#        weights_gib as n_params * bits / 2**33
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, *, tied_embeddings=False,
                 **unused):
    if min(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff) <= 0:
        raise ValueError("all sizes must be positive")
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be divisible by n_kv_heads")
    # per layer: q and o are n_heads * head_dim wide, k and v n_kv_heads * head_dim, 3 FFN matrices, 2 norms
    per_layer = d_model * (2 * (n_heads + n_kv_heads) * head_dim + 3 * d_ff + 2)
    embeddings = (1 if tied_embeddings else 2) * vocab_size * d_model
    return n_layers * per_layer + embeddings + d_model


def weights_gib(n_params, bits):
    return n_params * bits / 2**33  # / 8 bits per byte / 2**30 bytes per GiB
