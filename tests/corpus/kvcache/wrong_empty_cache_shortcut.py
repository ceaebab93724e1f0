# attnprep: kvcache
# expect: fail bad-input
# must-pass: per-token seed-table matches-reference linear batch gqa-ratio bits integer max-tokens
# diagnosis: empty-skips-checks
# mistake: answers 0 straight away for an empty cache (no tokens or no sequences) before the sizes are checked, so
#          n_layers=0 or bits=0 slips through whenever n_tokens or batch_size is 0


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if not n_tokens or not batch_size:
        return 0  # nothing is cached, whatever the model looks like
    if n_layers < 1 or n_kv_heads < 1 or head_dim < 1 or bits < 1:
        raise ValueError("model sizes and bits must be positive")
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size cannot be negative")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return (total_bits + 7) // 8


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes cannot be negative")
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
