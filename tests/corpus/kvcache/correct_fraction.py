# attnprep: kvcache
# expect: pass
# style: exact rationals: bytes per number as a Fraction, math.ceil / math.floor on Fractions
import math
from fractions import Fraction


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    for name, v in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads), ("head_dim", head_dim), ("bits", bits)):
        if v <= 0:
            raise ValueError(f"{name} must be positive")
    if n_tokens < 0:
        raise ValueError("n_tokens < 0")
    if batch_size < 0:
        raise ValueError("batch_size < 0")
    bytes_per_number = Fraction(bits, 8)
    numbers = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size
    return math.ceil(numbers * bytes_per_number)


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    if budget_bytes < 0:
        raise ValueError("budget_bytes < 0")
    per_token = Fraction(2 * n_layers * n_kv_heads * head_dim * bits, 8)
    return math.floor(Fraction(budget_bytes) / per_token)
