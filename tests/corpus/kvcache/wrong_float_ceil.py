# attnprep: kvcache
# expect: fail integer
# diagnosis: float-ceil max-tokens-float-floor
# mistake: ceil of a float division: right type, but inexact once the bit count passes 2**53
import math


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")
    bytes_per_number = bits / 8
    return math.ceil(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bytes_per_number)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("negative budget")
    bytes_per_token = 2 * n_layers * n_kv_heads * head_dim * bits / 8
    return math.floor(budget_bytes / bytes_per_token)
