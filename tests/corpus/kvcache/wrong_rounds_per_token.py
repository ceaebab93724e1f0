# attnprep: kvcache
# expect: fail bits
# must-pass: integer
# mistake: rounds each token's bytes up to a whole byte, then multiplies by the token count (rounds many times, not once)
# diagnosis: rounds-each-token
def _bytes_per_token(n_layers, n_kv_heads, head_dim, bits):
    return -(-2 * n_layers * n_kv_heads * head_dim * bits // 8)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    return _bytes_per_token(n_layers, n_kv_heads, head_dim, bits) * n_tokens * batch_size


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
