# attnprep: kvcache
# expect: fail max-tokens
# must-pass: integer
# mistake: bisects for a cache strictly below the budget (< instead of <=), losing exact fits
# diagnosis: max-tokens-strict


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    lo, hi = 0, 8 * budget_bytes + 1
    while lo < hi:  # bisect for the largest count that stays under the budget
        mid = (lo + hi + 1) // 2
        if kv_cache_bytes(n_layers, n_kv_heads, head_dim, mid, bits) < budget_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo
