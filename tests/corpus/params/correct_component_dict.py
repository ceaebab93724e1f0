# attnprep: params
# expect: pass
# style: a dict of named component counts, summed; validation with a comprehension
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = dict(vocab_size=vocab_size, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                 n_kv_heads=n_kv_heads, head_dim=head_dim, d_ff=d_ff)
    bad = [k for k, v in sizes.items() if v <= 0]
    if bad:
        raise ValueError(f"not positive: {bad}")
    if n_heads % n_kv_heads:
        raise ValueError("n_kv_heads must divide n_heads")
    parts = {
        "embedding": vocab_size * d_model,
        "q": n_layers * d_model * n_heads * head_dim,
        "k": n_layers * d_model * n_kv_heads * head_dim,
        "v": n_layers * d_model * n_kv_heads * head_dim,
        "o": n_layers * n_heads * head_dim * d_model,
        "gate": n_layers * d_model * d_ff,
        "up": n_layers * d_model * d_ff,
        "down": n_layers * d_ff * d_model,
        "norms": n_layers * 2 * d_model + d_model,
        "unembedding": 0 if tied_embeddings else d_model * vocab_size,
    }
    return sum(parts.values())


def weights_gib(n_params, bits):
    n_bytes = n_params * bits / 8
    return n_bytes / 1024 ** 3
