# attnprep: kvcache
# expect: fail bits
# must-pass: batch integer max-tokens
# mistake: rounds every number up to whole bytes (3 bits stored as 1 byte) instead of the total
# diagnosis: rounds-each-number
import math


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    bytes_per_number = math.ceil(bits / 8)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bytes_per_number


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    return budget_bytes // kv_cache_bytes(n_layers, n_kv_heads, head_dim, 1, bits)
