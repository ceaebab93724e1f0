# attnprep: kvcache
# expect: fail bad-input
# must-pass: per-token seed-table matches-reference linear batch gqa-ratio bits integer max-tokens
# diagnosis: validates-product
# mistake: validates the sizes through their product (one test instead of four), so two negative sizes multiply to
#          a positive one and pass as a valid cache
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if n_layers * n_kv_heads * head_dim * bits <= 0:
        raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")
    if n_tokens * batch_size < 0:
        raise ValueError("n_tokens and batch_size must not be negative")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
