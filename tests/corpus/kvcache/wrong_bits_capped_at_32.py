# attnprep: kvcache
# expect: fail bits
# must-pass: per-token seed-table matches-reference linear batch gqa-ratio integer bad-input max-tokens
# diagnosis: rejects-wide-bits
# mistake: treats bits as a GPU dtype width and refuses anything past 32 (fp32), though any positive width is
#          allowed: a float64 cache (bits=64) raises ValueError
CACHE_WIDTHS = range(1, 33)  # int1 ... fp32


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if bits not in CACHE_WIDTHS:
        raise ValueError(f"unsupported cache width: {bits} bits")
    if min(n_layers, n_kv_heads, head_dim) <= 0:
        raise ValueError("n_layers, n_kv_heads and head_dim must be positive")
    if min(n_tokens, batch_size) < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    numbers = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size
    return -(-numbers * bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes must be >= 0")
    per_token_bits = 2 * n_layers * n_kv_heads * head_dim * bits
    return budget_bytes * 8 // per_token_bits
