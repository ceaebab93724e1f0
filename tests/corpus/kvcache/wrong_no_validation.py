# attnprep: kvcache
# expect: fail bad-input
# mistake: no validation: zero or negative sizes give 0 or negative byte counts
# diagnosis: no-validation


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
