# attnprep: kvcache
# expect: fail bits
# must-pass: batch integer
# mistake: converts bits to whole bytes per number first with bits // 8, so 4-bit and 3-bit caches come out as 0 bytes
# diagnosis: bits-floor-bytes
def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0:
        raise ValueError("sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    bytes_per_number = bits // 8
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bytes_per_number


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
