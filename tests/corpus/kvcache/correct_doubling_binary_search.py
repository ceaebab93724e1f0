# attnprep: kvcache
# expect: pass
# style: max_cached_tokens by exponential + binary search over kv_cache_bytes itself (exact Python ints), so the boundary is right by construction
class _Config:
    def __init__(self, n_layers, n_kv_heads, head_dim, bits):
        self.n_layers, self.n_kv_heads, self.head_dim, self.bits = (
            int(n_layers), int(n_kv_heads), int(head_dim), int(bits))
        if min(self.n_layers, self.n_kv_heads, self.head_dim, self.bits) < 1:
            raise ValueError("n_layers, n_kv_heads, head_dim and bits must be positive")

    def bits_per_token(self):
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * self.bits

    def bytes_for(self, n_tokens, batch_size=1):
        bits = self.bits_per_token() * n_tokens * batch_size
        q, r = divmod(bits, 8)
        return q + (r > 0)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    cfg = _Config(n_layers, n_kv_heads, head_dim, bits)
    n_tokens, batch_size = int(n_tokens), int(batch_size)
    if n_tokens < 0 or batch_size < 0:
        raise ValueError("n_tokens and batch_size must be >= 0")
    return int(cfg.bytes_for(n_tokens, batch_size))


def max_cached_tokens(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    cfg = _Config(n_layers, n_kv_heads, head_dim, bits)
    budget = int(budget_bytes)
    if budget < 0:
        raise ValueError("budget_bytes must be >= 0")
    if cfg.bytes_for(1) > budget:
        return 0
    lo, hi = 1, 2           # invariant: bytes_for(lo) <= budget
    while cfg.bytes_for(hi) <= budget:
        lo, hi = hi, hi * 2
    while hi - lo > 1:      # bytes_for(hi) > budget
        mid = (lo + hi) // 2
        if cfg.bytes_for(mid) <= budget:
            lo = mid
        else:
            hi = mid
    return lo
