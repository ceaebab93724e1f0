# attnprep: params
# expect: fail bad-input
# must-pass: seed-config tied gqa integer weights-gib matches-reference
# mistake: validates the sizes through their product, so two negative sizes multiply to a positive one and pass
# diagnosis: product-validation

GIB = 2**30  # bytes in one GiB; a GB (10**9) is about 7% smaller


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff,
                 tied_embeddings=False):
    sizes = {"vocab_size": vocab_size, "d_model": d_model, "n_layers": n_layers, "n_heads": n_heads,
             "n_kv_heads": n_kv_heads, "head_dim": head_dim, "d_ff": d_ff}
    product = 1
    for value in sizes.values():
        product *= value
    if product <= 0:  # one test for all seven sizes
        raise ValueError(f"every size must be positive, got {sizes}")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads ({n_heads}) must be a multiple of n_kv_heads ({n_kv_heads})")

    q = d_model * n_heads * head_dim          # W_q
    kv = 2 * d_model * n_kv_heads * head_dim  # W_k and W_v: grouped-query attention shrinks only these
    o = n_heads * head_dim * d_model          # W_o
    ffn = 3 * d_model * d_ff                  # W_gate, W_up, W_down
    norms = 2 * d_model                       # RMSNorm before attention and before the feed-forward
    per_layer = q + kv + o + ffn + norms

    embedding = vocab_size * d_model
    unembedding = 0 if tied_embeddings else vocab_size * d_model
    final_norm = d_model
    # Python ints never overflow and integer products are exact.
    return int(n_layers * per_layer + embedding + unembedding + final_norm)


def weights_gib(n_params, bits):
    return n_params * bits / 8 / GIB
