# attnprep: params
# expect: pass
# style: attention and MLP counted per layer in helper functions, validation via all(); weights_gib converts bits to
#        bytes first (bits / 8) and divides by 1024 three times
def _attention(d_model, n_heads, n_kv_heads, head_dim):
    q = d_model * n_heads * head_dim
    k = v = d_model * n_kv_heads * head_dim
    o = n_heads * head_dim * d_model
    return q + k + v + o


def _mlp(d_model, d_ff):
    return 2 * d_model * d_ff + d_ff * d_model


def count_params(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    if not all(x > 0 for x in (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff)):
        raise ValueError("sizes must be positive")
    if n_heads % n_kv_heads:
        raise ValueError("n_kv_heads must divide n_heads")
    layer = _attention(d_model, n_heads, n_kv_heads, head_dim) + _mlp(d_model, d_ff) + 2 * d_model
    total = vocab_size * d_model + n_layers * layer + d_model
    if tied_embeddings is False:
        total += d_model * vocab_size
    return total


def weights_gib(n_params, bits):
    bytes_per_param = bits / 8
    return n_params * bytes_per_param / 1024 / 1024 / 1024
