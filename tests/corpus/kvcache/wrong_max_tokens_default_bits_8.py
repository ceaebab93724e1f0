# attnprep: kvcache
# expect: fail matches-reference max-tokens
# must-pass: per-token seed-table linear batch gqa-ratio bits integer bad-input
# diagnosis: max-tokens-default-bits
# mistake: max_cached_tokens defaults to bits=8 (an int8 cache), while kv_cache_bytes defaults to 16; every call
#          that passes bits is right


def _require_positive(**values):
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _require_positive(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    if n_tokens < 0:
        raise ValueError(f"n_tokens must be >= 0, got {n_tokens}")
    if batch_size < 0:
        raise ValueError(f"batch_size must be >= 0, got {batch_size}")
    # The factor 2: every layer caches a key AND a value vector per KV head and token.
    n_numbers = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size
    total_bits = n_numbers * bits
    # Python ints never overflow, and -(-x // 8) is ceil(x / 8) without a float:
    # float64 holds integers exactly only up to 2**53, a few petabytes.
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=8):
    if budget_bytes < 0:
        raise ValueError(f"budget_bytes must be >= 0, got {budget_bytes}")
    _require_positive(n_layers=n_layers, n_kv_heads=n_kv_heads, head_dim=head_dim, bits=bits)
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    # The budget is a whole number of bytes, so ceil(n * bits_per_token / 8) <= budget
    # exactly when n * bits_per_token <= 8 * budget: round the token count DOWN.
    return (8 * budget_bytes) // bits_per_token
