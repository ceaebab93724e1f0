# attnprep: kvcache
# expect: fail max-tokens
# must-pass: integer
# mistake: max_cached_tokens rounds the token count up (ceil) instead of down
# diagnosis: max-tokens-rounds-up


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    total_bits = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits
    return -(-total_bits // 8)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    return -(-8 * budget_bytes // bits_per_token)
