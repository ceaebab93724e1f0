# attnprep: params
# expect: fail weights-gib
# must-pass: seed-config tied gqa integer bad-input matches-reference
# mistake: converts to bytes with // 8, as if the weights always filled whole bytes: 3 parameters of 4 bits come out
#          as 1 byte, not 1.5
def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    for size in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff):
        if size <= 0:
            raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    attn = d_model * n_heads * head_dim * 2 + d_model * n_kv_heads * head_dim * 2
    ffn = 3 * d_model * d_ff
    total = n_layers * (attn + ffn + 2 * d_model) + d_model + vocab_size * d_model
    if not tied_embeddings:
        total += vocab_size * d_model
    return total


def weights_gib(n_params, bits):
    n_bytes = n_params * bits // 8  # integer bytes, so the count stays exact
    return n_bytes / 2**30
