"""Hidden checks for the `kvcache` exercise."""

import math
from fractions import Fraction

import numpy as np

from attnprep.grading import Broke, CandidateError, Fail, attempt, expect_raises, invariant, mistake
from attnprep.ladders import EXACT_LIMITS, WRAP_LIMITS, at_rung, huge_counts, wrapped
from attnprep.wire import Unsupported

FUNCTIONS = ("kv_cache_bytes", "max_cached_tokens")

# The 8B model of the instructions: 32 layers, 8 KV heads, head_dim 128.
LLAMA = (32, 8, 128)
PER_TOKEN = 131_072  # 2 (K and V) x 32 x 8 x 128 x 2 bytes = 128 KiB
GIB = 2**30
# tokens -> KV cache in GiB, rounded to 2 decimals (the table of the instructions)
SEED_TABLE = ((1_000, 0.12), (2_000, 0.24), (8_000, 0.98), (32_000, 3.91), (128_000, 15.62), (1_000_000, 122.07))
INT32_MAX = 2**31 - 1
INT64_WRAP = ("a fixed-width integer wrapped: the bit count {bits:,} is past 2**63, where np.int64 wraps silently "
              "(np.uint64 at 2**64), although the {what} fits in an int64; count in Python ints, or divide by 8 "
              "before the count passes 2**63")
FLOAT_EXACT = 2**53  # float64 holds every integer only up to here


# -- reading and showing what the candidate returned ---------------------------

def _number(value, what):
    """The returned count as an exact int (or a Fraction for a float); Fail if it is not a real number."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biuf":
        value = value[()]
    if value is None:
        raise Fail(f"{what} returned None; did you forget a return statement?")
    if isinstance(value, (bool, np.bool_)):
        raise Fail(f"{what} returned the bool {bool(value)}, expected an integer")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            raise Fail(f"{what} returned {v}, expected a finite integer (overflow somewhere?)")
        return Fraction(v)
    if isinstance(value, np.ndarray):
        raise Fail(f"{what} returned a NumPy array of shape {tuple(value.shape)}, expected a single integer "
                   f"(int(...) or .item() turns a one-element array into one)")
    if isinstance(value, Unsupported):
        raise Fail(f"{what} returned {value}, expected an integer")
    raise Fail(f"{what} returned a {type(value).__name__}, expected an integer")


def _is_integer_type(value):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _show(x):
    """An exact count with thousands separators; a float is marked as one."""
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return f"{int(x):,}.0 (a float)"
        return f"{float(x)!r} (a float)"
    return f"{x:,}"


def _own(x):
    """A number the grader worked out (not one the candidate returned): never marked as a float."""
    if isinstance(x, Fraction):
        return f"{int(x):,}" if x.denominator == 1 else f"{float(x):,}"
    return f"{x:,}"


def _label(fn, *args, **kwargs):
    parts = [str(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()]
    return f"{fn}({', '.join(parts)})"


def _ceil8(total_bits):
    return -(-total_bits // 8)


def _wrap32(x):
    return (x + 2**31) % 2**32 - 2**31


# -- what a wrong answer most likely means --------------------------------------

def _kv_explain(got, want, n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    """One sentence naming the mistake that produces `got`, or ''."""
    numbers = 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size
    total = numbers * bits
    known = [
        (_ceil8(total // 2), "exactly half, as if only the keys (or only the values) were cached; "
                             "every layer keeps both, so count a factor 2"),
        (total, "8 times too much, as if `bits` were a number of bytes; divide the bits by 8"),
        (total // 8, "rounded down: a partly filled byte still takes a whole byte, so round the total UP"),
        (_ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * bits),
         f"the size of ONE sequence; each of the batch_size={batch_size} sequences keeps its own keys and values"),
        (_ceil8(2 * n_layers * n_kv_heads * head_dim * (n_tokens + 1) * batch_size * bits),
         "the size of n_tokens + 1 tokens; the cache holds exactly n_tokens"),
        (numbers * -(-bits // 8), "every number rounded up to a whole byte on its own; the contract rounds "
                                  "the total number of bits up once"),
        (_ceil8(2 * n_layers * n_kv_heads * head_dim * bits) * n_tokens * batch_size,
         "every token rounded up to whole bytes on its own; the contract rounds the total number of bits up "
         "once, so tokens of odd bit widths share bytes"),
        (numbers * (bits // 8), "bits // 8 truncates each number to whole bytes (0 bytes at 4 bits); multiply "
                                "by bits and divide the total by 8 once, rounding up"),
    ]
    if total > INT32_MAX and (total < WRAP_LIMITS[0][0] or _ceil8(_wrap32(total)) not in
                              [_ceil8(w) for w in wrapped(total)]):  # else the 64-bit wrap explains it
        known.append((_ceil8(_wrap32(total)), "a 32-bit integer overflowed (np.int32 wraps past 2,147,483,647); "
                                              "use Python ints"))
    if total > FLOAT_EXACT:
        known.append((math.ceil(total / 8), "went through a float: float64 holds integers exactly only up to "
                                            "2**53; stay with integers (// rounds exactly)"))
    if total >= WRAP_LIMITS[0][0]:
        # -(-bits // 8) and (bits + 7) // 8 computed in 64 bits, signed or not
        text = INT64_WRAP.format(bits=total, what="byte count")
        known += [(_ceil8(w), text) for w in wrapped(total)] + [(w // 8, text) for w in wrapped(total + 7)]
    matches = list(dict.fromkeys(text for value, text in known if value != want and got == value))
    if matches:
        return ": " + "; or ".join(matches)
    if isinstance(got, Fraction) and got.denominator != 1:
        return ": not a whole number of bytes; round the total UP to whole bytes"
    if isinstance(got, Fraction) and total > FLOAT_EXACT:
        return ": a float64 cannot hold every integer past 2**53; stay with integer arithmetic"
    if total > INT32_MAX and isinstance(got, int) and abs(got) <= 2**31:
        return ": the exact bit count needs more than 31 bits; did a fixed-width integer (np.int32) overflow?"
    return ""


def _check_kv(cand, ref, n_layers, n_kv_heads, head_dim, n_tokens, *, want=None, note="", **kwargs):
    """Call kv_cache_bytes and Fail unless it returns exactly `want` (the reference's answer by default)."""
    label = _label("kv_cache_bytes", n_layers, n_kv_heads, head_dim, n_tokens, **kwargs)
    got = _number(cand.kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, **kwargs), label)
    if want is None:
        want = ref.kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, **kwargs)
    if got != want:
        why = _kv_explain(got, want, n_layers, n_kv_heads, head_dim, n_tokens, **kwargs)
        raise Fail(f"{label} returned {_show(got)} bytes, expected {want:,}{why}{note}")
    return got


def _fits_own(cand, got, budget, dims, bits):
    """True when `got` tokens is the largest count whose cache, as the candidate's own kv_cache_bytes sizes it,
    fits the budget: max_cached_tokens is then right about its own sizes, whatever they get wrong."""
    if not isinstance(got, int) or got < 0:
        return False
    sizes = [attempt(cand.kv_cache_bytes, *dims, n, bits=bits, batch_size=1) for n in (got, got + 1)]
    if any(isinstance(v, Broke) or not _is_integer_type(v) for v in sizes):
        return False
    return int(sizes[0]) <= budget < int(sizes[1])


def _check_max(cand, ref, budget, n_layers, n_kv_heads, head_dim, bits=16, own=False):
    """Call max_cached_tokens and Fail unless it returns the largest token count that fits.

    own: also accept the largest count that fits by the candidate's own kv_cache_bytes (a mistake in sizing
    the cache is not a mistake in finding the largest fitting count).
    """
    label = _label("max_cached_tokens", budget, n_layers, n_kv_heads, head_dim, bits=bits)
    got = _number(cand.max_cached_tokens(budget, n_layers, n_kv_heads, head_dim, bits=bits), label)
    want = ref.max_cached_tokens(budget, n_layers, n_kv_heads, head_dim, bits=bits)
    if got == want or (own and _fits_own(cand, got, budget, (n_layers, n_kv_heads, head_dim), bits)):
        return got
    dims = (n_layers, n_kv_heads, head_dim)
    size = ref.kv_cache_bytes(*dims, want, bits=bits)
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    if isinstance(got, int) and got > want:
        evidence = (f"{got:,} tokens take {ref.kv_cache_bytes(*dims, got, bits=bits):,} bytes, "
                    f"more than the budget of {budget:,}")
    else:
        evidence = f"{want:,} tokens take {size:,} bytes, which fits in the budget of {budget:,}"
    known = [
        (-(-8 * budget // bits_per_token), "rounded the token count up; round it DOWN, a partial token does not fit"),
        (budget // -(-bits_per_token // 8), "each token's bytes were rounded up before dividing; the cache is "
                                             "rounded up once as a whole, so tokens of odd bit widths pack tighter"),
        (8 * budget // (bits_per_token // 2), "twice the expected, as if only the keys (or only the values) "
                                              "were cached"),
        (budget // bits_per_token, "8 times too few, as if `bits` were a number of bytes"),
        (want - 1, "one token short: a cache of exactly budget_bytes still fits (<=, not <)"),
    ]
    if 8 * budget > FLOAT_EXACT:
        known.append((math.floor(budget / (bits_per_token / 8)),
                      "went through a float: float64 holds integers exactly only up to 2**53"))
    if 8 * budget >= WRAP_LIMITS[0][0]:
        known += [(w // bits_per_token, INT64_WRAP.format(bits=8 * budget, what="budget (and the token count)"))
                  for w in wrapped(8 * budget)]
    why = next((f"; {text}" for value, text in known if value != want and got == value), "")
    raise Fail(f"{label} returned {_show(got)}, expected {want:,}: {evidence}{why}")


def _dims(rng, max_layers=80, max_heads=64, max_dim=256):
    return (int(rng.integers(1, max_layers + 1)), int(rng.integers(1, max_heads + 1)),
            int(rng.integers(1, max_dim + 1)))


def _choice(rng, options):
    return int(options[int(rng.integers(len(options)))])


# -- the checks ----------------------------------------------------------------

@invariant("per-token", "one token of the 8B model (32 layers, 8 KV heads, head_dim 128, 16-bit) takes 131,072 bytes")
def per_token(cand, ref, rng):
    note = " (2 for K and V x 32 layers x 8 KV heads x 128 x 2 bytes = 128 KiB)"
    _check_kv(cand, ref, *LLAMA, 1, want=PER_TOKEN, note=note)
    _check_kv(cand, ref, *LLAMA, 1, bits=16, batch_size=1, want=PER_TOKEN, note=note)
    _check_kv(cand, ref, 32, 32, 128, 1, want=4 * PER_TOKEN, note=" (512 KiB per token with 32 KV heads)")
    n = int(rng.integers(2, 500))
    _check_kv(cand, ref, *LLAMA, n, want=n * PER_TOKEN, note=f" ({n} x 131,072)")


@invariant("seed-table", "the 8B model's cache at 1K to 1M tokens: 0.12, 0.24, 0.98, 3.91, 15.62, 122.07 GiB")
def seed_table(cand, ref, rng):
    for tokens, gib in SEED_TABLE:
        label = _label("kv_cache_bytes", *LLAMA, tokens)
        got = _number(cand.kv_cache_bytes(*LLAMA, tokens), label)
        want = tokens * PER_TOKEN
        if got != want:
            why = _kv_explain(got, want, *LLAMA, tokens)
            raise Fail(f"{label} returned {_show(got)} bytes ({float(got) / GIB:.2f} GiB), expected {want:,} "
                       f"bytes ({gib:.2f} GiB){why}")


@invariant("matches-reference", "both functions agree exactly with a reference on random configurations, "
                                "defaults left out, totals past 2**31, 2**53, 2**60, 2**63 and 2**64 bits")
def matches_reference(cand, ref, rng):
    # Fixed odd cases first: 2,520 bits = 315 bytes exactly, which any rounding per sequence, layer, head or
    # token would overshoot; random draws alone may miss a partial byte that only shows with batch_size > 1.
    _check_kv(cand, ref, 3, 1, 5, 7, bits=3, batch_size=4)
    _check_kv(cand, ref, 4, 3, 1, 1, bits=3, batch_size=1)
    for i in range(30):
        small = i % 3 == 0  # small odd sizes exercise the rounding
        dims = _dims(rng, 9, 9, 9) if small else _dims(rng)
        tokens = int(rng.integers(1, 20 if small else 300_000))
        bits = _choice(rng, (1, 2, 3, 4, 5, 6, 8, 12, 16, 32))
        batch = int(rng.integers(1, 9))
        _check_kv(cand, ref, *dims, tokens, bits=bits, batch_size=batch)
    for i in range(15):
        dims = _dims(rng, 9, 9, 9) if i % 3 == 0 else _dims(rng)
        bits = _choice(rng, (1, 3, 4, 5, 8, 16, 32))
        per_token = ref.kv_cache_bytes(*dims, 1, bits=bits)
        budget = int(rng.integers(0, 100)) if i % 3 == 0 else (
            int(rng.integers(0, 10**6)) * per_token + int(rng.integers(0, per_token + 1)))
        _check_max(cand, ref, budget, *dims, bits=bits)
    # The documented defaults, left out: bits=16 and batch_size=1 (one at a time, then both), for both functions.
    dims, tokens = _dims(rng), int(rng.integers(1, 100_000))
    _check_kv(cand, ref, *dims, tokens, note=" (bits and batch_size left out: the defaults are 16 and 1)")
    _check_kv(cand, ref, *dims, tokens, batch_size=3, note=" (bits left out: the default is 16)")
    _check_kv(cand, ref, *dims, tokens, bits=4, note=" (batch_size left out: the default is 1)")
    budget = int(rng.integers(1, 10**9))
    _check_max_default(cand, ref, budget, *dims)
    # Exact at any size: totals just past 2**31 bits (int32), 2**53 (float64) and 2**60, odd so a float rounds; and
    # bit counts past 2**63 and 2**64 (n_tokens near 2**43 and 2**44 for the 8B model), where np.int64 and np.uint64
    # wrap, while the bytes and the token counts still fit in an int64: a NumPy integer result stays fine.
    for dims, bits_, batch_ in ((LLAMA, 16, 1), ((61, 7, 129), 3, 5), ((1, 1, 1), 5, 1)):
        per_unit = 2 * math.prod(dims) * bits_ * batch_
        for rung in huge_counts(rng, per_unit=per_unit, limits=(*EXACT_LIMITS, *WRAP_LIMITS)):
            with at_rung(rung.label):
                _check_kv(cand, ref, *dims, rung.value, bits=bits_, batch_size=batch_)
    # The same limits passed by several medium arguments, none of them as large as 2**20 (or 2**16): a large bit
    # count needs no single large argument, so a shortcut into fixed-width integers for "small" sizes wraps too.
    for cap, (limit, name) in ((2**20, WRAP_LIMITS[0]), (2**20, WRAP_LIMITS[1]), (2**16, WRAP_LIMITS[0])):
        dims, tokens, bits_, batch_ = _medium_sizes(rng, cap, limit)
        with at_rung(f"a total past {name}, every argument below {cap:,}"):
            _check_kv(cand, ref, *dims, tokens, bits=bits_, batch_size=batch_)
    for dims, bits_ in ((LLAMA, 16), ((1, 1, 3), 3)):
        per_token = ref.kv_cache_bytes(*dims, 1, bits=bits_)
        # budgets whose bits (8 * budget) lie past 2**31, 2**53 and 2**58, and past 2**63 and 2**64, where
        # 8 * budget_bytes wraps in np.int64 and np.uint64 while the budget itself fits in an int64
        limits = (*EXACT_LIMITS[:2], (2**58, "2**58"), *WRAP_LIMITS)
        for rung in huge_counts(rng, per_unit=8 * per_token, limits=limits):
            budget = rung.value * per_token + int(rng.integers(0, per_token))
            with at_rung(f"a budget of {budget:,} bytes"):
                _check_max(cand, ref, budget, *dims, bits=bits_)


def _medium_sizes(rng, cap, limit):
    """Sizes, tokens, bits and batch, each below `cap`, whose bit count lies just past `limit` (by a few per cent,
    so the bytes and even the count of numbers still fit in an int64); odd tokens and odd widths leave a partial
    byte."""
    while True:
        dims = (int(rng.integers(16, 1025)), int(rng.integers(8, 257)), int(rng.integers(64, 1025)))
        bits_ = _choice(rng, (3, 5, 16, 32))
        tokens = int(rng.integers(cap // 2, cap)) | 1
        per_batch = 2 * math.prod(dims) * bits_ * tokens
        batch_ = -(-limit // per_batch) + int(rng.integers(0, 2))
        if 64 <= batch_ < cap:
            return dims, tokens, bits_, batch_


def _check_max_default(cand, ref, budget, n_layers, n_kv_heads, head_dim, *, own=False):
    """max_cached_tokens with bits left out: the same as with bits=16 (its own answer), and with own=False also
    the reference's."""
    dims = (n_layers, n_kv_heads, head_dim)
    label = _label("max_cached_tokens", budget, *dims)
    got = _number(cand.max_cached_tokens(budget, *dims), label)
    explicit = _number(cand.max_cached_tokens(budget, *dims, bits=16),
                       _label("max_cached_tokens", budget, *dims, bits=16))
    if got != explicit:
        raise Fail(f"{label} (bits left out) returned {_show(got)}, but {_show(explicit)} with bits=16: the "
                   f"documented default is bits=16")
    want = ref.max_cached_tokens(budget, *dims)
    if not own and got != want:
        raise Fail(f"{label} (bits left out) returned {_show(got)}, expected {want:,}")


@invariant("linear", "the cache grows by the same number of bytes with every token")
def linear(cand, ref, rng):
    for _ in range(6):
        dims = _dims(rng)
        bits = _choice(rng, (8, 16, 32))
        a, b = (int(t) for t in rng.integers(1, 50_000, size=2))
        kw = {"bits": bits, "batch_size": 1}
        sizes = {}
        for n in (a, b, a + b, 3 * a):
            label = _label("kv_cache_bytes", *dims, n, **kw)
            sizes[n] = (_number(cand.kv_cache_bytes(*dims, n, **kw), label), label)
        (fa, _), (fb, _), (fab, lab) = sizes[a], sizes[b], sizes[a + b]
        if fab != fa + fb:
            raise Fail(f"{lab} returned {_show(fab)} bytes, but {a} tokens take {_show(fa)} and {b} tokens "
                       f"{_show(fb)}, which add up to {_own(fa + fb)}: every token should add the same bytes")
        f3a, lab3 = sizes[3 * a]
        if f3a != 3 * fa:
            raise Fail(f"{lab3} returned {_show(f3a)} bytes, expected 3 x {_show(fa)} = {_own(3 * fa)} "
                       f"(three times the tokens of the {a}-token cache)")


@invariant("batch", "batch_size sequences take batch_size times the bytes of one")
def batch(cand, ref, rng):
    # Judged against the candidate's own batch_size=1 answer, at widths of whole bytes (no rounding to blame).
    cases = [(LLAMA, 1_000, 16, 4)]
    for _ in range(6):
        cases.append((_dims(rng), int(rng.integers(1, 20_000)), _choice(rng, (8, 16, 32)),
                      int(rng.integers(2, 65))))
    for dims, tokens, bits, size in cases:
        one = _number(cand.kv_cache_bytes(*dims, tokens, bits=bits, batch_size=1),
                      _label("kv_cache_bytes", *dims, tokens, bits=bits, batch_size=1))
        label = _label("kv_cache_bytes", *dims, tokens, bits=bits, batch_size=size)
        got = _number(cand.kv_cache_bytes(*dims, tokens, bits=bits, batch_size=size), label)
        if got != size * one:
            if got == one and size > 1:
                why = (f"the same as batch_size=1: each of the {size} sequences keeps its own keys and values")
            else:
                why = f"{size} sequences of {_show(one)} bytes each (what batch_size=1 returns)"
            raise Fail(f"{label} returned {_show(got)} bytes, expected {_own(size * one)}: {why}")


@invariant("gqa-ratio", "the cache is proportional to the number of KV heads (MHA 32 = 4 x GQA 8 = 32 x MQA 1)")
def gqa_ratio(cand, ref, rng):
    # The candidate against itself, at widths of whole bytes: only the KV-head count changes between calls.
    n = int(rng.integers(1, 1000))
    for heads, group, what in ((8, 4, "32 KV heads, one per query head: 4 times the 8-head cache"),
                               (1, 8, "8 KV heads (grouped-query): 8 times the multi-query cache of one")):
        few = _number(cand.kv_cache_bytes(32, heads, 128, n), _label("kv_cache_bytes", 32, heads, 128, n))
        label = _label("kv_cache_bytes", 32, heads * group, 128, n)
        many = _number(cand.kv_cache_bytes(32, heads * group, 128, n), label)
        if many != group * few:
            raise Fail(f"{label} returned {_show(many)} bytes, expected {group} x {_show(few)} = "
                       f"{_own(group * few)} ({what}; {_show(few)} is what n_kv_heads={heads} returns)")
    for _ in range(5):
        n_layers, _, head_dim = _dims(rng)
        heads, group = int(rng.integers(1, 17)), int(rng.integers(2, 9))
        tokens, bits = int(rng.integers(1, 10_000)), _choice(rng, (8, 16))
        few = _number(cand.kv_cache_bytes(n_layers, heads, head_dim, tokens, bits=bits, batch_size=1),
                      _label("kv_cache_bytes", n_layers, heads, head_dim, tokens, bits=bits, batch_size=1))
        label = _label("kv_cache_bytes", n_layers, heads * group, head_dim, tokens, bits=bits, batch_size=1)
        many = _number(cand.kv_cache_bytes(n_layers, heads * group, head_dim, tokens, bits=bits, batch_size=1),
                       label)
        if many != group * few:
            raise Fail(f"{label} returned {_show(many)} bytes, but {group} times as many KV heads should take "
                       f"{group} x {_show(few)} = {_own(group * few)} (the bytes with n_kv_heads={heads})")


def _check_width(cand, dims, tokens, width, size=1, note=""):
    """kv_cache_bytes at `width` bits against the candidate's own answer at 16 bits, where every number takes two
    whole bytes: the same count of numbers at `width` bits, rounded up once to whole bytes. A mistake in counting
    the numbers (layers, heads, tokens, batch, K and V) is the same at both widths and cancels out."""
    base_label = _label("kv_cache_bytes", *dims, tokens, bits=16, batch_size=size)
    base = _number(cand.kv_cache_bytes(*dims, tokens, bits=16, batch_size=size), base_label)
    numbers = Fraction(base) / 2
    want = math.ceil(numbers * width / 8)
    label = _label("kv_cache_bytes", *dims, tokens, bits=width, batch_size=size)
    try:
        value = cand.call("kv_cache_bytes", *dims, tokens, bits=width, batch_size=size)
    except CandidateError as err:
        if err.not_implemented or not err.is_a("ValueError"):
            raise
        raise Fail(f"{label} raised ValueError, but bits={width} is valid: bits may be any positive int (64 for "
                   f"a float64 cache, say); raise only when bits is not positive") from None
    got = _number(value, label)
    if got != want:
        why = _kv_explain(got, want, *dims, tokens, bits=width, batch_size=size) if numbers == 2 * math.prod(
            dims) * tokens * size else ""
        exact = "" if want == numbers * width / 8 else f" = {float(numbers * width / 8):g} bytes, rounded up"
        raise Fail(f"{label} returned {_show(got)} bytes, expected {want:,}: at bits=16 the same call returns "
                   f"{_show(base)} bytes, {_own(numbers)} numbers of 2 bytes, so at {width} bits they take "
                   f"{_own(numbers * width)} bits{exact}{why}{note}")
    return got


@invariant("bits", "bits per number: 16, 8, 4, 3 and other widths; the total rounded UP to whole bytes")
def bits(cand, ref, rng):
    # Every width is judged against the candidate's own 16-bit answer, so only the handling of bits can fail here.
    label = _label("kv_cache_bytes", *LLAMA, 1, bits=16, batch_size=1)
    got = _number(cand.kv_cache_bytes(*LLAMA, 1, bits=16, batch_size=1), label)
    if got == 8 * PER_TOKEN:
        raise Fail(f"{label} returned {_show(got)} bytes, expected {PER_TOKEN:,}: 2 x 32 x 8 x 128 = 65,536 numbers "
                   f"of 16 bits (2 bytes) each; {_show(got)} is 16 bytes a number, as if `bits` were a number of "
                   f"bytes; divide the bits by 8")
    for width in (8, 32, 4, 3, 2, 1, 64):
        _check_width(cand, LLAMA, 1, width, note=f" (one token at {width} bits per number)")
    # One number per K and V: 2 x bits, rounded up to whole bytes. Any positive width is allowed, past 32 too.
    for width in (1, 3, 4, 5, 12, 64, 128, int(rng.integers(33, 1000))):
        _check_width(cand, (1, 1, 1), 1, width, note=" (one key and one value of one number each)")
    # 7 tokens of 6 bits: 42 bits = 5.25 bytes, 6 whole bytes; a byte per token would make 7.
    _check_width(cand, (1, 1, 1), 7, 3, note=" (rounded up once for the whole cache, not per token)")
    _check_width(cand, (1, 1, 1), 5, 3)
    _check_width(cand, (3, 1, 5), 7, 3)
    # 24 bits = 3 bytes, rounded once: a byte per sequence, per layer or per KV head would make 4.
    _check_width(cand, (1, 1, 1), 1, 3, size=4, note=" (rounded up once for the whole batch, not per sequence)")
    _check_width(cand, (4, 1, 1), 1, 3, note=" (rounded up once for the whole cache, not per layer)")
    _check_width(cand, (1, 4, 1), 1, 3, note=" (rounded up once for the whole cache, not per KV head)")
    for _ in range(10):
        dims = _dims(rng, 15, 15, 15)
        tokens = int(rng.integers(1, 200)) | 1  # odd, so odd widths leave a partial byte
        _check_width(cand, dims, tokens, _choice(rng, (1, 3, 5, 6, 7, 9, 12)), int(rng.integers(1, 4)))


def _check_type(value, label, unit):
    if _is_integer_type(value):
        return
    if isinstance(value, (float, np.floating)):
        raise Fail(f"{label} returned {float(value)!r} (a {type(value).__name__}), expected an integer number of "
                   f"{unit}: true division `/` gives a float; `//` keeps integers exact")
    _number(value, label)  # fails with a description of what came back
    raise Fail(f"{label} returned a {type(value).__name__}, expected an integer number of {unit}")


def _typed(cand, fn, args, kwargs, unit):
    label = _label(fn, *args, **kwargs)
    value = cand.call(fn, *args, **kwargs)
    _check_type(value, label, unit)
    return int(value), label


@invariant("integer", "both functions return an integer (Python or NumPy), exact far past 2**53 bytes")
def integer(cand, ref, rng):
    # Exactness judged by the candidate against itself: with token counts (and budgets) that are whole multiples
    # of a step, every way of sizing the cache is affine in the count, so the answer at a count far past 2**53
    # bits must follow exactly from the answers at one and two steps.
    cases = [(LLAMA, 16, 62_500_001, 1), (LLAMA, 16, 2**37 + 1, 1), ((61, 7, 129), 16, 2**33 + 3, 3),
             ((1, 1, 1), 3, 10**16 + 1, 1), ((45, 3, 111), 5, 2**40 + 5, 1)]  # all below 2**62 bits
    while len(cases) < 8:  # random odd sizes with 2**60 to 2**62 bits
        dims = tuple(int(d) | 1 for d in _dims(rng))
        width = _choice(rng, (3, 5, 16))
        lo, hi = 2**60 // (32 * math.prod(dims) * width), 2**62 // (32 * math.prod(dims) * width)
        if hi > lo + 2:
            cases.append((dims, width, int(rng.integers(lo, hi)) | 1, 1))
    for dims, width, m, size in cases:
        kw = {"bits": width, "batch_size": size}
        one, _ = _typed(cand, "kv_cache_bytes", (*dims, 16), kw, "bytes")
        two, _ = _typed(cand, "kv_cache_bytes", (*dims, 32), kw, "bytes")
        tokens = 16 + 16 * m
        got, label = _typed(cand, "kv_cache_bytes", (*dims, tokens), kw, "bytes")
        want = one + m * (two - one)
        if got != want:
            raise Fail(f"{label} returned {got:,} bytes, but 16 tokens take {one:,} and 32 tokens {two:,}, so "
                       f"{tokens:,} tokens take {one:,} + {m:,} x {two - one:,} = {want:,} exactly{_EXACT_HINT}")
    # budgets below 2**59 bytes, so that 8 * budget_bytes still fits an int64
    budgets = [(LLAMA, 16, 2**13 + 1), ((1, 1, 1), 4, 2**54 + 1), ((1, 1, 3), 4, 2**53 + 1),
               ((1, 1, 3), 8, 2**52 + 3), ((1, 1, 1), 4, int(rng.integers(2**51, 2**55)) | 1)]
    for dims, width, m in budgets:
        # Its own bytes for 16 tokens, whole bytes however it counts, so every budget below is a whole number of
        # its steps; if that step is not the true one and the budgets fail on it, the true step decides (a wrong
        # kv_cache_bytes is for the other checks to report, not max_cached_tokens's exactness).
        true_step = ref.kv_cache_bytes(*dims, 16, bits=width)
        step = attempt(cand.kv_cache_bytes, *dims, 16, bits=width, batch_size=1)
        steps = [int(step)] if not isinstance(step, Broke) and _is_integer_type(step) and int(step) > 0 else []
        steps += [true_step] if true_step not in steps else []
        for i, step in enumerate(steps):
            failure = _max_exact(cand, dims, width, m, step)
            if failure is None:
                break
            if i == len(steps) - 1:
                raise Fail(failure)


def _max_exact(cand, dims, width, m, step):
    """Why max_cached_tokens at m budget steps does not follow from 1 and 2 steps, or None when it does."""
    one, _ = _typed(cand, "max_cached_tokens", (step, *dims), {"bits": width}, "tokens")
    two, _ = _typed(cand, "max_cached_tokens", (2 * step, *dims), {"bits": width}, "tokens")
    got, label = _typed(cand, "max_cached_tokens", (m * step, *dims), {"bits": width}, "tokens")
    want = one + (m - 1) * (two - one)
    if got == want:
        return None
    return (f"{label} returned {got:,}, but budgets of {step:,} and {2 * step:,} bytes give {one:,} and {two:,} "
            f"tokens, so {m:,} times the first budget gives {one:,} + {m - 1:,} x {two - one:,} = {want:,} exactly"
            f"{_EXACT_HINT}")


_EXACT_HINT = ("; integer results that stop adding up at large counts usually mean an intermediate lost exactness: "
               "a float64 holds integers exactly only up to 2**53 and np.int32 wraps past 2**31; count in Python ints "
               "(or np.int64) and round with //")


def _valid_edge(cand, fn, args, kwargs, what):
    """A call the contract allows: Fail (not error) if it raises or returns no number, or not an integer."""
    label = _label(fn, *args, **kwargs)
    try:
        value = cand.call(fn, *args, **kwargs)
    except CandidateError as err:
        if err.not_implemented:
            raise
        raise Fail(f"{label} raised {err.type_name}, but this input is valid ({what}); expected 0") from None
    _number(value, label)  # the size itself is what the other invariants judge
    _check_type(value, label, "bytes" if fn == "kv_cache_bytes" else "tokens")  # 0.0 is a float: the edge too


@invariant("bad-input", "ValueError for non-positive sizes or bits, negative tokens, batch or budget; 0 is allowed")
def bad_input(cand, ref, rng):
    n_layers, n_kv_heads, head_dim = _dims(rng)
    tokens = int(rng.integers(1, 5_000))
    good = {"n_layers": n_layers, "n_kv_heads": n_kv_heads, "head_dim": head_dim, "n_tokens": tokens,
            "bits": 16, "batch_size": 1}
    bad = [("n_layers", 0), ("n_layers", -int(rng.integers(1, 33))), ("n_kv_heads", 0), ("n_kv_heads", -8),
           ("head_dim", 0), ("head_dim", -128), ("bits", 0), ("bits", -16),
           ("n_tokens", -1), ("n_tokens", -int(rng.integers(2, 10**6))), ("batch_size", -1)]
    # Two bad values at once, whose product is positive: a check of the product of the sizes lets them through.
    bad += [(("n_layers", "n_kv_heads"), (-2, -8)), (("head_dim", "bits"), (-64, -4)),
            (("n_tokens", "batch_size"), (-5, -2)), (("n_kv_heads", "n_tokens"), (-1, -7)),
            (("bits", "batch_size"), (-16, -1)), ("batch_size", -int(rng.integers(2, 1000)))]
    # A bad size is bad even for an empty cache: zero tokens or a zero batch is no reason to skip the checks.
    bad += [(("n_layers", "n_tokens"), (0, 0)), (("head_dim", "n_tokens"), (-128, 0)), (("bits", "n_tokens"), (0, 0)),
            (("n_kv_heads", "batch_size"), (0, 0)), (("bits", "batch_size"), (-8, 0)),
            (("n_layers", "batch_size"), (-int(rng.integers(1, 33)), 0)), (("n_tokens", "batch_size"), (0, -1)),
            (("n_tokens", "batch_size"), (-1, 0)), (("n_layers", "n_tokens", "batch_size"), (0, 0, 0))]
    order = ("n_layers", "n_kv_heads", "head_dim", "n_tokens")
    for name, value in bad:
        names, values = (name, value) if isinstance(name, tuple) else ((name,), (value,))
        call = {**good, **dict(zip(names, values, strict=True))}
        bad_text = " and ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))
        args = [call[k] for k in order]
        kwargs = {"bits": call["bits"], "batch_size": call["batch_size"]}
        expect_raises(cand, "ValueError", "kv_cache_bytes", *args, **kwargs,
                      what=f"{_label('kv_cache_bytes', *args, **kwargs)} ({bad_text})")
    # The defaults left out: a negative count is still bad input.
    for args in ((n_layers, n_kv_heads, head_dim, -3), (0, n_kv_heads, head_dim, tokens), (-4, -2, head_dim, tokens),
                 (0, 8, 128, 0)):
        expect_raises(cand, "ValueError", "kv_cache_bytes", *args,
                      what=f"{_label('kv_cache_bytes', *args)} (bits and batch_size left out)")
    expect_raises(cand, "ValueError", "max_cached_tokens", -1, n_layers, n_kv_heads, head_dim,
                  what=f"{_label('max_cached_tokens', -1, n_layers, n_kv_heads, head_dim)} (a negative budget, bits "
                       "left out)")
    budget = -int(rng.integers(1, 10**9))
    expect_raises(cand, "ValueError", "max_cached_tokens", budget, n_layers, n_kv_heads, head_dim, bits=16,
                  what=f"{_label('max_cached_tokens', budget, n_layers, n_kv_heads, head_dim, bits=16)} "
                       f"(a negative budget)")
    # Not judged: max_cached_tokens on bad sizes. Its docstring asks for ValueError on a negative budget only, and
    # solutions written from it leave the sizes to kv_cache_bytes's rule.
    dims = (n_layers, n_kv_heads, head_dim)
    _valid_edge(cand, "kv_cache_bytes", (*dims, 0), {"bits": 16, "batch_size": 1},
                "zero tokens make an empty cache")
    _valid_edge(cand, "kv_cache_bytes", (*dims, tokens), {"bits": 16, "batch_size": 0},
                "a batch of zero sequences caches nothing")
    _valid_edge(cand, "max_cached_tokens", (0, *dims), {"bits": 16}, "a budget of zero bytes holds zero tokens")


@invariant("max-tokens", "max_cached_tokens is the largest n_tokens that fits: exact budgets, one byte either side")
def max_tokens(cand, ref, rng):
    k = int(rng.integers(2, 10**6))
    for width, per_token in ((16, PER_TOKEN), (4, PER_TOKEN // 4)):
        for budget in (k * per_token, k * per_token - 1, k * per_token + 1, per_token, per_token - 1, 0):
            _check_max(cand, ref, budget, *LLAMA, bits=width, own=True)
    _check_max_default(cand, ref, 16 * GIB, *LLAMA, own=True)  # bits left out: the default, 16
    _check_max(cand, ref, 16 * GIB, *LLAMA, own=True)  # 131,072 tokens
    _check_max(cand, ref, 80 * GIB, *LLAMA, own=True)  # 655,360 tokens
    # Odd widths: 6 bits a token at 3 bits, 30 at 5 bits; bytes are rounded up once for the whole cache.
    for budget in (3, 1, 2, 4, 7, 12, 13, int(rng.integers(14, 10**6))):
        _check_max(cand, ref, budget, 1, 1, 1, bits=3, own=True)
    for budget in (15, 14, 16, 4, 3, int(rng.integers(17, 10**6))):
        _check_max(cand, ref, budget, 1, 3, 1, bits=5, own=True)
    for budget in (10, 9, 3, 2):  # 4 bits and an odd head_dim: 3 bytes a token
        _check_max(cand, ref, budget, 1, 1, 3, bits=4, own=True)
    for _ in range(10):
        dims = _dims(rng, 15, 15, 15)
        width = _choice(rng, (1, 3, 4, 5, 7, 16))
        per = ref.kv_cache_bytes(*dims, 1, bits=width)
        budget = int(rng.integers(0, 1000)) * per + int(rng.integers(-1, 2))
        _check_max(cand, ref, max(budget, 0), *dims, bits=width, own=True)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    k = int(rng.integers(2, 10**5))
    for args, kwargs in (
        ((*LLAMA, 1_000), {}),
        ((*LLAMA, 1_000), {"bits": 16, "batch_size": 4}),
        ((3, 1, 5, 7), {"bits": 3, "batch_size": 1}),  # 630 bits: 79 bytes
        ((1, 1, 1, 1), {"bits": 4, "batch_size": 1}),  # 8 bits: 1 byte
        ((*LLAMA, 10**9), {}),  # past 2**31 bits
        ((*LLAMA, 0), {}),
        ((0, 8, 128, 10), {}),
        ((*LLAMA, -1), {}),
        ((1, 1, 1, 3), {"bits": 3}),  # 18 bits: 3 bytes, 2 to the nearest byte
        ((1, 1, 1, 1), {"bits": 1}),  # 2 bits: 1 byte, 0 to the nearest byte
        ((1, 1, 1, 2), {"bits": 5, "batch_size": 3}),  # 60 bits: 8 bytes; 9 rounded per sequence, 12 per token
        ((*LLAMA, 100), {"batch_size": 0}),  # an empty batch: 0 bytes
        ((*LLAMA, 10), {"bits": 0}),
        ((*LLAMA, 10), {"bits": -8}),
        ((-32, -8, 128, 10), {}),  # two negative sizes: their product is positive
        # past 2**53 bits: a float ceil gives 3 * 2**56 (one byte short), then 3 * 2**56 + 64 (16 too many)
        ((1, 1, 1, 2**58 + 1), {"bits": 3}),
        ((1, 1, 1, 2**58 + 64), {"bits": 3}),
        ((*LLAMA, 2**43 + 1), {}),  # 2**63 + 2**20 bits, 2**60 + 2**17 bytes: np.int64 wraps on the bits only
        ((0, 8, 128, 0), {}),  # a bad size with an empty cache: still ValueError
        ((*LLAMA, 10), {"bits": -4, "batch_size": 0}),
        ((*LLAMA, 10), {"bits": 64}),  # a valid width past 32
    ):
        yield "kv_cache_bytes", args, kwargs
    for args, kwargs in (
        ((k * PER_TOKEN, *LLAMA), {}),
        ((k * PER_TOKEN - 1, *LLAMA), {}),
        ((3, 1, 1, 1), {"bits": 3}),  # 4 tokens of 6 bits fill 3 bytes
        ((-5, *LLAMA), {}),
        ((100, 1, 1, 1), {"bits": 4}),  # 100 tokens of 8 bits
        ((2**60 - 1, *LLAMA), {}),  # 2**43 - 1 tokens; as a float the budget is 2**60, 2**43 tokens
        ((2**62 + 1, 1, 1, 1), {"bits": 3}),  # a float quotient is 342 tokens short
        ((2**60 + 2**20 + 5, *LLAMA), {}),  # 8 * budget past 2**63: np.int64 wraps, the budget and tokens fit
    ):
        yield "max_cached_tokens", args, kwargs


def _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size):
    if min(n_layers, n_kv_heads, head_dim, bits) <= 0 or n_tokens < 0 or batch_size < 0:
        raise ValueError("bad size")


@mistake("kv-factor-missing", "count both the keys and the values: every layer caches 2 vectors per KV head and "
                              "token, so the count needs a factor 2")
def _no_factor_2(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("bits-as-bytes", "`bits` is a number of bits: divide the total number of bits by 8 to get bytes")
def _bits_as_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits


@mistake("ignores-batch", "multiply by batch_size: every sequence of the batch keeps its own keys and values")
def _ignores_batch(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * bits)


@mistake("rounds-down", "round the byte count UP (-(-bits // 8)): a partly filled byte still has to be stored")
def _rounds_down(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits // 8


@mistake("rounds-each-number", "round the total number of bits up to bytes once, not every number on its own "
                               "(4-bit numbers pack two to a byte)")
def _rounds_each_number(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * -(-bits // 8)


@mistake("rounds-each-token", "round the total number of bits up to bytes once, not every token's bytes on its "
                              "own: at odd widths several tokens share a byte")
def _rounds_each_token(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * bits) * n_tokens * batch_size


@mistake("bits-floor-bytes", "multiply by bits and divide the total by 8 at the end: bits // 8 first makes a 4-bit "
                             "number 0 bytes")
def _bits_floor_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * (bits // 8)


@mistake("float-bytes", "return whole bytes as an integer: true division `/` gives a float and skips the "
                        "rounding up")
def _float_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits / 8


@mistake("int32-overflow", "count in Python ints (or np.int64): np.int32 wraps around past 2,147,483,647 bits, "
                           "a 2,000-token cache of an 8B model")
def _int32(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    total = np.int32(2)
    for size in (n_layers, n_kv_heads, head_dim, n_tokens, batch_size, bits):
        total = total * np.int32(size)
    return int(-(-total // np.int32(8)))


@mistake("int64-overflow", "count in Python ints: np.int64 wraps silently once the bit count passes 2**63 (n_tokens "
                            "near 2**43 for an 8B model), although the byte count still fits in an int64")
def _int64(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    total = np.int64(2)
    with np.errstate(over="ignore"):
        for size in (n_layers, n_kv_heads, head_dim, n_tokens, batch_size, bits):
            total = total * np.int64(size)
        return int((total + np.int64(7)) // np.int64(8))


@mistake("counts-next-token", "size the cache for exactly n_tokens tokens, not n_tokens + 1")
def _next_token(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * (n_tokens + 1) * batch_size * bits)


@mistake("no-validation", "raise ValueError for non-positive n_layers, n_kv_heads, head_dim or bits and for a "
                          "negative n_tokens or batch_size")
def _no_validation(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("rejects-zero", "zero tokens (or a zero batch) is a valid, empty cache of 0 bytes: reject only "
                         "negative counts")
def _rejects_zero(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if min(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size) <= 0:
        raise ValueError("all sizes must be positive")
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("empty-skips-checks", "validate the sizes first: zero tokens or a zero batch gives 0 bytes only when "
                               "every size is valid; n_layers=0 or bits=0 is still a ValueError")
def _empty_skips_checks(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if n_tokens == 0 or batch_size == 0:
        return 0
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("rejects-wide-bits", "bits may be any positive int: a 64-bit (float64) cache is valid, so raise "
                              "ValueError only when bits is not positive")
def _rejects_wide_bits(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    if bits > 32:
        raise ValueError("bits must be at most 32")
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


def _budget_ok(budget_bytes):
    if budget_bytes < 0:
        raise ValueError("negative budget")


@mistake("max-tokens-rounds-up", "round the token count DOWN ((8 * budget_bytes) // bits_per_token): a partial "
                                 "token does not fit", fn="max_cached_tokens")
def _max_ceil(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    return -(-8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits))


@mistake("max-tokens-strict", "a cache of exactly budget_bytes still fits: compare with <=, not <",
         fn="max_cached_tokens")
def _max_strict(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    bits_per_token = 2 * n_layers * n_kv_heads * head_dim * bits
    n = 8 * budget_bytes // bits_per_token
    while n > 0 and _ceil8(n * bits_per_token) >= budget_bytes:
        n -= 1
    return n


@mistake("max-tokens-per-token-bytes", "divide 8 * budget_bytes by the bits per token; a per-token size rounded up "
                                       "to whole bytes wastes the spare bits of odd widths", fn="max_cached_tokens")
def _max_per_token_bytes(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    return budget_bytes // _ceil8(2 * n_layers * n_kv_heads * head_dim * bits)


@mistake("bits-unchecked", "validate bits too: bits <= 0 must raise ValueError, not give a cache of 0 or fewer "
                           "bytes")
def _bits_unchecked(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, 1, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("validates-product", "check each size on its own: a product of sizes is positive when two of them are "
                              "negative")
def _validates_product(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    if n_layers * n_kv_heads * head_dim * bits <= 0 or n_tokens * batch_size < 0:
        raise ValueError("bad size")
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("rejects-empty-batch", "a batch of zero sequences is valid and caches 0 bytes: reject only a negative "
                                "batch_size")
def _rejects_empty_batch(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("rounds-nearest", "round the byte count UP, -(-total_bits // 8): (total_bits + 4) // 8 rounds to the "
                           "nearest byte and drops up to 3 bits")
def _rounds_nearest(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return (2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * bits + 4) // 8


@mistake("rounds-each-layer", "round the total number of bits up to bytes once, not each layer's bytes on its own")
def _rounds_each_layer(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return n_layers * _ceil8(2 * n_kv_heads * head_dim * n_tokens * batch_size * bits)


@mistake("rounds-each-sequence", "round the total number of bits up to bytes once, not each sequence's bytes before "
                                 "multiplying by batch_size")
def _rounds_each_sequence(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return _ceil8(2 * n_layers * n_kv_heads * head_dim * n_tokens * bits) * batch_size


@mistake("float-ceil", "stay in integers, -(-total_bits // 8): math.ceil of a float division is off by whole bytes "
                       "once the bit count passes 2**53")
def _float_ceil(n_layers, n_kv_heads, head_dim, n_tokens, bits=16, batch_size=1):
    _validate(n_layers, n_kv_heads, head_dim, n_tokens, bits, batch_size)
    return math.ceil(2 * n_layers * n_kv_heads * head_dim * n_tokens * batch_size * (bits / 8))


@mistake("max-tokens-int64-overflow", "turn the budget into bits in Python ints: 8 * budget_bytes wraps in np.int64 "
                                      "past 2**63 (a budget of 2**60 bytes), although the budget and the token "
                                      "count fit in an int64", fn="max_cached_tokens")
def _max_int64(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    with np.errstate(over="ignore"):
        return int(np.int64(budget_bytes) * np.int64(8) // np.int64(2 * n_layers * n_kv_heads * head_dim * bits))


@mistake("max-tokens-float-floor", "stay in integers, (8 * budget_bytes) // bits_per_token: a float quotient is "
                                   "wrong once the budget passes 2**53", fn="max_cached_tokens")
def _max_float_floor(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    return math.floor(budget_bytes / (2 * n_layers * n_kv_heads * head_dim * bits / 8))


@mistake("max-tokens-ignores-bits", "use the bits argument: bits_per_token = 2 * n_layers * n_kv_heads * head_dim "
                                    "* bits, not a fixed 2 bytes per number", fn="max_cached_tokens")
def _max_ignores_bits(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    return budget_bytes // (2 * n_layers * n_kv_heads * head_dim * 2)


@mistake("max-tokens-kv-factor-missing", "divide by the bits of the keys AND the values: bits_per_token = 2 * "
                                         "n_layers * n_kv_heads * head_dim * bits", fn="max_cached_tokens")
def _max_no_factor_2(budget_bytes, n_layers, n_kv_heads, head_dim, bits=16):
    _budget_ok(budget_bytes)
    return 8 * budget_bytes // (n_layers * n_kv_heads * head_dim * bits)


@mistake("max-tokens-default-bits", "default bits to 16 in max_cached_tokens, as in kv_cache_bytes: a call that "
                                    "leaves bits out means a 16-bit cache", fn="max_cached_tokens")
def _max_default_bits(budget_bytes, n_layers, n_kv_heads, head_dim, bits=8):
    _budget_ok(budget_bytes)
    return 8 * budget_bytes // (2 * n_layers * n_kv_heads * head_dim * bits)
