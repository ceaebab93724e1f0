"""Hidden checks for the `params` exercise: count_params and weights_gib."""

import numpy as np

from attnprep.grading import CandidateError, Fail, expect_raises, fmt, invariant, isclose, mistake
from attnprep.ladders import WRAP_LIMITS, at_rung, wrapped

FUNCTIONS = ("count_params", "weights_gib")

NAMES = ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim", "d_ff")
# Llama 3 8B, the published configuration: the configuration every learner can check by hand.
SEED = dict(zip(NAMES, (128_256, 4_096, 32, 32, 8, 128, 14_336), strict=True))
SEED_TOTAL = 8_030_261_248
SEED_ROWS = {"token embedding": 525_336_576, "attention Q": 536_870_912, "attention K and V": 268_435_456,
             "attention output": 536_870_912, "feed-forward (3 matrices)": 5_637_144_576,
             "RMSNorm scales": 266_240, "unembedding": 525_336_576}
GIB = 2**30
# Past 2**53 a float cannot hold every integer: a total computed in floats comes out wrong here.
GIANT = dict(zip(NAMES, (1_000_003, 100_003, 1_000, 64, 8, 129, 40_000_003), strict=True))


# -- helpers ----------------------------------------------------------------------

def _call_text(cfg, tied=None):
    args = ", ".join(f"{n}={cfg[n]}" for n in NAMES)
    return f"count_params({args}{'' if tied is None else f', tied_embeddings={tied}'})"


def _number(value, what):
    """A returned count or size as a Python number; Fail if it is not one."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        value = value.reshape(()).item()
    if value is None:
        raise Fail(f"{what} returned None; did you forget a return statement?")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise Fail(f"{what} returned {type(value).__name__} {value!r}, expected a number")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if not np.isfinite(value):
        raise Fail(f"{what} returned {value}")
    return float(value)


def _count(cand, cfg, tied=None):
    kwargs = {} if tied is None else {"tied_embeddings": tied}
    what = _call_text(cfg, tied)
    return _number(cand.count_params(*(cfg[n] for n in NAMES), **kwargs), what)


def _show(v):
    return fmt(int(v)) if isinstance(v, float) and v.is_integer() else fmt(v)


def _expected_parts(cfg, tied):
    V, d, L, H, KV, hd, ff = (cfg[n] for n in NAMES)
    return {"emb": V * d * (1 if tied else 2), "qo": L * 2 * d * H * hd, "kv": L * 2 * d * KV * hd,
            "ffn": L * 3 * d * ff, "norms": L * 2 * d, "final": d}


def _probe_parts(cand, cfg, tied):
    """The candidate's count split into parts, from differences of its own answers.

    Each probe keeps every size positive and n_heads a multiple of n_kv_heads, so a correct function answers
    all of them. Per-layer parts come from n_layers=2 minus n_layers=1; within a layer, the slope in n_heads
    gives Q + output, in n_kv_heads K + V, in d_ff the feed-forward, and what is left is the norms.
    """
    V, d, L, H, KV, hd, ff = (cfg[n] for n in NAMES)

    def f(**change):
        return _count(cand, {**cfg, **change}, tied)

    def layer(**change):
        return f(n_layers=2, **change) - f(n_layers=1, **change)

    try:
        per_layer = layer()
        outside = f(n_layers=1) - per_layer
        emb = (f(n_layers=1, vocab_size=V + 1) - layer(vocab_size=V + 1) - outside) * V
        qo = (layer(n_heads=H + KV) - per_layer) / KV * H
        other_kv = 1 if KV > 1 else (H if H > 1 else None)
        kv = None if other_kv is None else (per_layer - layer(n_kv_heads=other_kv)) / (KV - other_kv) * KV
        ffn = (layer(d_ff=ff + 1) - per_layer) * ff
        hd_slope = layer(head_dim=hd + 1) - per_layer
    except (CandidateError, Fail):
        return None
    norms = per_layer - qo - (kv or 0) - ffn
    parts = {"emb": emb, "qo": L * qo, "kv": None if kv is None else L * kv, "ffn": L * ffn, "norms": L * norms,
             "final": outside - emb}
    return {k: (round(v) if v is not None and abs(v - round(v)) < 1e-6 else v) for k, v in parts.items()}, hd_slope


def _diagnosis(cand, cfg, tied):
    """Which parts of the count are off, in words, or '' if the probes cannot tell."""
    probed = _probe_parts(cand, cfg, tied)
    if probed is None:
        return ""
    got, hd_slope = probed
    tied = bool(tied)  # None: the default, untied
    want = _expected_parts(cfg, tied)
    V, d, L, H, KV, hd, ff = (cfg[n] for n in NAMES)
    why = {
        "emb": ("token embedding and unembedding", "one vocab_size x d_model matrix, shared" if tied else
                f"vocab_size x d_model each, {fmt(V * d)} + {fmt(V * d)}"),
        "qo": ("attention Q and output projections",
               f"d_model x n_heads*head_dim each per layer, {fmt(want['qo'] // 2)} + {fmt(want['qo'] // 2)}"),
        "kv": ("attention K and V", "d_model x n_kv_heads*head_dim each per layer"),
        "ffn": ("feed-forward", "three matrices of d_model x d_ff per layer: gate, up and down"),
        "norms": ("RMSNorm scales inside the layers", f"two of d_model per layer, {fmt(2 * d)} per layer"),
        "final": ("final RMSNorm scale", "one vector of d_model after the last layer"),
    }
    notes = []
    if hd_slope == 0:
        notes.append("your count does not change with head_dim: the attention matrices are n_heads*head_dim "
                     "(Q, output) and n_kv_heads*head_dim (K, V) wide, with head_dim as given, not d_model // n_heads")
    skip = {"qo", "kv", "norms"} if hd_slope == 0 else set()
    if not skip and got["kv"] == 0 and got["qo"] == want["qo"] + L * 2 * d * H * hd and KV != H:
        notes.append(f"K and V do not change with n_kv_heads and look sized by n_heads: {fmt(L * 2 * d * H * hd)} "
                     f"(2 x d_model x n_heads*head_dim per layer), expected {fmt(want['kv'])} "
                     "(2 x d_model x n_kv_heads*head_dim per layer)")
        skip = {"kv", "qo"}
    if not skip and got["qo"] == 0 and want["qo"]:
        # Q and output that ignore n_heads are d_model x d_model: the probe books them with the norms.
        notes.append("attention Q and output projections do not change with n_heads: W_q is d_model x "
                     "n_heads*head_dim and W_o n_heads*head_dim x d_model, not d_model x d_model")
        skip = {"qo", "norms"}
    for key, (name, explain) in why.items():
        g, w = got[key], want[key]
        if key in skip or g is None or abs(g - w) < 0.5:
            continue
        extra = "; counting biases? this model has none" if 0 < g - w <= 0.01 * w and key != "final" else ""
        notes.append(f"{name}: {_show(g)}, expected {fmt(w)} ({explain}{extra})")
    return "; ".join(notes)


def _wrap_note(got, want):
    """Why a total past 2**63 came out as `got`, when it is `want` wrapped by a fixed-width integer; or ''."""
    if want < WRAP_LIMITS[0][0] or got not in wrapped(want):
        return ""
    return (f": that is the exact count wrapped modulo 2**64. A NumPy integer holds at most 2**63 - 1 = "
            f"{fmt(2**63 - 1)} (np.int64; 2**64 - 1 for np.uint64) and wraps silently past it; the count must be "
            "exact at any size, so count in Python ints (int(...) of each size first), which never overflow")


def _check_total(cand, ref, cfg, tied=None, note=""):
    got = _count(cand, cfg, tied)
    want = ref.count_params(**cfg, **({} if tied is None else {"tied_embeddings": tied}))
    if got != want and _wrap_note(got, want):
        raise Fail(f"{_call_text(cfg, tied)} = {_show(got)}, expected {fmt(want)}{_wrap_note(got, want)}")
    if got != want:
        diag = _diagnosis(cand, cfg, tied)
        raise Fail(f"{_call_text(cfg, tied)} = {_show(got)}, expected {fmt(want)}{note}"
                   + (f". Probing your function with other sizes to isolate each part: {diag}" if diag else ""))


def _random_cfg(rng):
    n_kv = int(rng.choice([1, 2, 4, 8]))
    return {"vocab_size": int(rng.integers(100, 200_000)), "d_model": int(rng.integers(32, 3_000)),
            "n_layers": int(rng.integers(1, 49)), "n_heads": n_kv * int(rng.integers(1, 5)), "n_kv_heads": n_kv,
            "head_dim": int(rng.choice([16, 40, 64, 80, 96, 128])), "d_ff": int(rng.integers(64, 12_000))}


def _valid(cand, cfg, tied=None):
    """_count, but a ValueError on this valid configuration is a failure with an explanation."""
    try:
        return _count(cand, cfg, tied)
    except CandidateError as err:
        if err.is_a("ValueError") and not err.not_implemented:
            d, H, hd = cfg["d_model"], cfg["n_heads"], cfg["head_dim"]
            extra = (f"; head_dim is given, so d_model ({d}) need not equal n_heads * head_dim ({H * hd}) nor be a "
                     "multiple of n_heads" if d != H * hd else "")
            raise Fail(f"{_call_text(cfg, tied)} raised ValueError ({err.text}) for a valid configuration{extra}"
                       ) from None
        raise


# -- the invariants ------------------------------------------------------------------

@invariant("seed-config", "Llama 3 8B (vocab 128,256, d_model 4,096, 32 layers, 32/8 heads of 128, d_ff 14,336) "
                          "has 8,030,261,248 parameters")
def seed_config(cand, ref, rng):
    got = _count(cand, SEED)
    if got != SEED_TOTAL:
        diag = _diagnosis(cand, SEED, None)
        rows = ", ".join(f"{k} {fmt(v)}" for k, v in SEED_ROWS.items())
        raise Fail(f"{_call_text(SEED)} = {_show(got)}, expected {fmt(SEED_TOTAL)}"
                   + (f". Probing your function with other sizes to isolate each part: {diag}" if diag else
                      f" ({rows})"))


@invariant("tied", "tied_embeddings=True removes exactly the unembedding, vocab_size x d_model")
def tied(cand, ref, rng):
    for cfg in (SEED, _random_cfg(rng), _random_cfg(rng)):
        untied_count = _count(cand, cfg, False)
        tied_count = _count(cand, cfg, True)
        shared = cfg["vocab_size"] * cfg["d_model"]
        if untied_count - tied_count == shared:
            continue
        head = (f"{_call_text(cfg, True)} = {_show(tied_count)} and with tied_embeddings=False "
                f"{_show(untied_count)}: the difference should be the unembedding, vocab_size x d_model = "
                f"{fmt(shared)}")
        if tied_count == untied_count:
            raise Fail(f"{head}, but tied_embeddings=True changed nothing. Tied embeddings share one matrix, "
                       "counted once")
        if untied_count - tied_count == 2 * shared:
            raise Fail(f"{head}, but both the embedding and the unembedding were removed. Tied embeddings still "
                       "count the shared matrix once")
        raise Fail(f"{head}, got {_show(untied_count - tied_count)}")
    default = _count(cand, SEED)
    explicit = _count(cand, SEED, False)
    if default != explicit:
        raise Fail(f"{_call_text(SEED)} = {_show(default)} but with tied_embeddings=False {_show(explicit)}: the "
                   "default is untied")


@invariant("gqa", "Q and output are sized by n_heads*head_dim, K and V by n_kv_heads*head_dim; head_dim need not "
                  "be d_model // n_heads")
def gqa(cand, ref, rng):
    configs = [
        dict(vocab_size=1000, d_model=96, n_layers=3, n_heads=8, n_kv_heads=2, head_dim=16, d_ff=256),
        dict(vocab_size=5003, d_model=1000, n_layers=2, n_heads=12, n_kv_heads=4, head_dim=64, d_ff=2730),
        dict(vocab_size=512, d_model=256, n_layers=4, n_heads=8, n_kv_heads=1, head_dim=48, d_ff=700),
        dict(vocab_size=300, d_model=120, n_layers=2, n_heads=6, n_kv_heads=6, head_dim=20, d_ff=333),
        {**_random_cfg(rng), "n_heads": 16, "n_kv_heads": 4},
    ]
    for cfg in configs:
        d, L, H, KV, hd = (cfg[n] for n in ("d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim"))
        # Mixed differences in the size and d_model cancel everything but the attention weight matrices: the
        # embeddings and norms do not depend on the head sizes, and a bias (a mistake `seed-config` reports) does
        # not depend on d_model.
        def mixed(change, cfg=cfg, d=d):
            wider = {**cfg, "d_model": d + 1}
            return ((_valid(cand, {**wider, **change}) - _valid(cand, wider))
                    - (_valid(cand, {**cfg, **change}) - _valid(cand, cfg)))

        def growth(change, old, cfg=cfg, d=d):
            (key, new), = change.items()
            return (f"the growth of count_params from {key}={old} to {key}={new} (the rest as in {_call_text(cfg)}) "
                    f"is larger at d_model={d + 1} than at d_model={d} by")

        other_kv = 1 if KV > 1 else H
        diffs = {
            "head_dim": (mixed({"head_dim": hd + 1}), L * 2 * (H + KV), growth({"head_dim": hd + 1}, hd),
                         "n_layers x 2 x (n_heads + n_kv_heads), each extra head_dim adding a column to Q, K, V "
                         "and a row to the output per head, each d_model long"),
            "n_kv_heads": (mixed({"n_kv_heads": other_kv}), L * 2 * hd * (other_kv - KV),
                           growth({"n_kv_heads": other_kv}, KV),
                           f"n_layers x 2 (K and V) x head_dim x ({other_kv} - {KV})"),
            "n_heads": (mixed({"n_heads": H + KV}), L * 2 * hd * KV, growth({"n_heads": H + KV}, H),
                        f"n_layers x 2 (Q and output) x head_dim x {KV} more heads"),
        }
        if other_kv == KV:  # n_heads = n_kv_heads = 1: no other valid n_kv_heads
            del diffs["n_kv_heads"]
        advice = {
            "head_dim": ("your count does not change with head_dim; use head_dim as given, not d_model // n_heads",
                         lambda got, want: got == 0),
            "n_kv_heads": ("your count does not change with n_kv_heads. K and V are n_kv_heads*head_dim wide, not "
                           "n_heads*head_dim", lambda got, want: got == 0),
            "n_heads": ("K and V seem to grow with n_heads too; they are n_kv_heads*head_dim wide",
                        lambda got, want: got == 2 * want),
        }
        order = [k for k in ("head_dim", "n_kv_heads", "n_heads") if k in diffs]
        # A named mistake first, then the first difference that is off.
        for key in sorted(order, key=lambda k: not advice[k][1](*diffs[k][:2])):
            got, want, what, formula = diffs[key]
            if got == want:
                continue
            text, matches = advice[key]
            extra = f": {text}" if matches(got, want) else ""
            raise Fail(f"{what} {_show(got)}, where {fmt(want)} = {formula} is expected{extra}")


@invariant("integer", "count_params returns an exact int (Python or NumPy), even past 2**53")
def integer(cand, ref, rng):
    def call(cfg, tie):
        kwargs = {} if tie is None else {"tied_embeddings": tie}
        value = cand.count_params(*(cfg[n] for n in NAMES), **kwargs)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise Fail(f"{_call_text(cfg, tie)} returned {type(value).__name__} {value!r}, expected an int (a Python "
                       "or NumPy integer). A count of parameters is a whole number: multiply integers, and use // if "
                       "you must divide")
        return int(value)

    small = _random_cfg(rng)
    for cfg, tie in ((SEED, None), (SEED, True), (small, None)):
        call(cfg, tie)
    # Same sizes as GIANT but tiny: if the formula is right there, a wrong GIANT total is a precision problem.
    scaled = {**GIANT, "vocab_size": 1_003, "d_model": 103, "n_layers": 3, "d_ff": 4_003}
    if call(scaled, None) != ref.count_params(**scaled):
        return  # the formula itself is off: seed-config and matches-reference say where
    got, want = call(GIANT, None), ref.count_params(**GIANT)
    if got != want:
        raise Fail(f"{_call_text(GIANT)} = {fmt(got)}, expected exactly {fmt(want)} (off by {fmt(got - want)}): the "
                   f"total is past 2**53 = {fmt(2**53)}, where a float cannot hold every integer. Was some of it "
                   "computed in floating point (/, float(), np.float64)?")


@invariant("weights-gib", "weights_gib gives 14.96 / 7.48 / 3.74 GiB (2**30 bytes) for the 8B model at 16 / 8 / 4 "
                         "bits, and the exact quotient when the bits are not a whole number of bytes")
def weights_gib(cand, ref, rng):
    cases = [(SEED_TOTAL, 16), (SEED_TOTAL, 8), (SEED_TOTAL, 4),
             (int(rng.integers(10**6, 10**11)), int(rng.choice([2, 3, 5, 6, 32]))),
             # Counts whose bits are not a whole number of bytes (1.5, 1.875 and 0.375 bytes): at model sizes a
             # fraction of a byte is far below any tolerance, here it is the whole answer.
             (3, 4), (5, 3), (1, 3), (int(rng.integers(1, 50)) * 2 + 1, int(rng.choice([1, 3, 5, 7])))]
    for n, bits in cases:
        what = f"weights_gib({n}, {bits})"
        got = _number(cand.weights_gib(n, bits), what)
        want = n * bits / 8 / GIB
        # rtol 1e-9: any order of the float64 divisions is within a few 1e-16; float32 (6e-8) or a fudge is not.
        if isclose(got, want, rtol=1e-9, atol=0.0):
            continue
        alternatives = {
            "GB (10**9 bytes) instead of GiB (2**30 bytes)": n * bits / 8 / 1e9,
            "bits taken as bytes: divide bits by 8 to get bytes": n * bits / GIB,
            "bits taken as bytes and GB instead of GiB": n * bits / 1e9,
            "MiB (2**20 bytes) instead of GiB": n * bits / 8 / 2**20,
            "bytes, not GiB": n * bits / 8,
            "bytes divided by 8 twice": n * bits / 64 / GIB,
            "`bits` ignored: 2 bytes a parameter whatever the width": n * 2 / GIB,
            f"whole bytes: n_params * bits // 8 = {n * bits // 8} drops the {n * bits % 8} bits left over; "
            "divide with / (the quotient need not be whole)": n * bits // 8 / GIB,
            f"whole bytes rounded up: {-(-n * bits // 8)} bytes; return the exact quotient, n_params * bits / 8 "
            "bytes": -(-n * bits // 8) / GIB,
        }
        # atol=0: the small counts are a billionth of a GiB, far below the default atol
        hint = next((f"; that is {k}" for k, v in alternatives.items()
                     if v != want and isclose(got, v, rtol=1e-6, atol=0.0)), "")
        if not hint and any(isclose(got, round(want, k), rtol=1e-9, atol=0.0) for k in (1, 2)):
            hint = "; return the exact quotient, not a rounded one"
        raise Fail(f"{what} = {fmt(got)}, expected {fmt(want)} = {n} x {bits} / 8 bytes / 2**30{hint}")


@invariant("bad-input", "ValueError for a size that is not positive, or n_heads not a multiple of n_kv_heads")
def bad_input(cand, ref, rng):
    base = dict(vocab_size=100, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, head_dim=8, d_ff=64)
    bad = [{name: value} for name in NAMES for value in (0, -int(rng.integers(1, 9)))]
    bad += [{"n_heads": 12, "n_kv_heads": 5}, {"n_heads": 8, "n_kv_heads": 32}, {"n_heads": 6, "n_kv_heads": 4}]
    # Two bad sizes at once, whose product is positive (and -8 % -4 == 0): a check of the product lets them through.
    bad += [{"vocab_size": -100, "d_model": -32}, {"n_heads": -4, "n_kv_heads": -2}, {"n_layers": -2, "d_ff": -64},
            {"head_dim": -8, "n_layers": -1}, {"n_kv_heads": -2, "n_heads": 4}]
    for change in bad:
        cfg = {**base, **change}
        label = "count_params with " + ", ".join(f"{k}={v}" for k, v in change.items())
        expect_raises(cand, "ValueError", "count_params", *(cfg[n] for n in NAMES), what=label)
    # The tied path validates too.
    for change in ({"d_model": -32}, {"n_heads": 6, "n_kv_heads": 4}):
        cfg = {**base, **change}
        label = "count_params with " + ", ".join(f"{k}={v}" for k, v in change.items()) + ", tied_embeddings=True"
        expect_raises(cand, "ValueError", "count_params", *(cfg[n] for n in NAMES), tied_embeddings=True, what=label)


# Configurations whose totals lie past 2**53 (float64 stops holding every integer), near 2**60, and past 2**63 and
# 2**64, where np.int64 and np.uint64 wrap. The count is exact at any size, so only Python ints (or NumPy arrays of
# them, dtype=object) hold the last two; a NumPy integer result is fine while it fits. Each size there still fits
# in an int64 and has the shape of a model configuration: a million layers of width a million, 8,192 query heads
# of 128 in groups of 8, d_ff four times d_model.
# At most 2,003 layers: a solution that walks the model layer by layer (a correct, common style) stays well inside
# the time limit; the totals grow past each limit through the widths instead.
HUGE = (("a total past 2**53", dict(zip(NAMES, (1_000_003, 100_003, 1_001, 64, 8, 129, 40_000_003), strict=True))),
        ("a total near 2**60", dict(zip(NAMES, (2_000_003, 1_200_007, 1_001, 96, 12, 257, 300_000_007), strict=True))),
        (f"a total past {WRAP_LIMITS[0][1]}",
         dict(zip(NAMES, (1_000_003, 10_000_019, 1_201, 8_192, 1_024, 128, 400_000_009), strict=True))),
        (f"a total past {WRAP_LIMITS[1][1]}",
         dict(zip(NAMES, (2_000_003, 10_000_019, 2_003, 8_192, 1_024, 128, 400_000_009), strict=True))))


@invariant("matches-reference", "matches a reference count exactly on random configurations, tied_embeddings left "
                                "out or given, and on totals past 2**53, near 2**60 and past 2**63 and 2**64")
def matches_reference(cand, ref, rng):
    for i in range(10):
        cfg = _random_cfg(rng)
        # every third call leaves tied_embeddings out, so the default (False) is judged
        _check_total(cand, ref, cfg, None if i % 3 == 0 else bool(rng.integers(0, 2)))
    for name, cfg in HUGE:
        for tie in (None, True):
            with at_rung(name):
                _check_total(cand, ref, cfg, tie)


# -- known mistakes, recognised by behaviour on these probes --------------------
# Small configurations, so that even the norms are a visible share of the total.

def probes(rng):
    small = [dict(vocab_size=10, d_model=8, n_layers=2, n_heads=4, n_kv_heads=2, head_dim=4, d_ff=12),
             dict(vocab_size=50, d_model=12, n_layers=3, n_heads=6, n_kv_heads=3, head_dim=5, d_ff=20),
             dict(vocab_size=int(rng.integers(20, 60)), d_model=16, n_layers=1, n_heads=8, n_kv_heads=1,
                  head_dim=3, d_ff=int(rng.integers(10, 40)))]
    for cfg in small:
        yield "count_params", tuple(cfg[n] for n in NAMES), {}
        yield "count_params", tuple(cfg[n] for n in NAMES), {"tied_embeddings": True}
    yield "count_params", (10, 0, 2, 4, 2, 4, 12), {}
    yield "count_params", (10, 8, 2, 6, 4, 4, 12), {}
    # n_kv_heads = 0: the modulo check must not come first; then two negative sizes, whose product is positive, and one
    yield "count_params", (10, 8, 2, 4, 0, 4, 12), {}
    yield "count_params", (10, 8, -2, 4, 2, -4, 12), {}
    yield "count_params", (10, 8, 2, 4, 2, -4, 12), {}
    for n, bits in ((SEED_TOTAL, 16), (SEED_TOTAL, 4), (int(rng.integers(10**6, 10**9)), 3)):
        yield "weights_gib", (n, bits), {}


def _variant(per_layer, outside=None):
    """count_params with the reference's checks and the given per-layer and outside-the-layers counts."""
    def count(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
        sizes = (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff)
        if min(sizes) <= 0 or n_heads % n_kv_heads:
            raise ValueError("bad configuration")
        V, d, L, H, KV, hd, ff = sizes
        rest = (outside(V, d, tied_embeddings) if outside else V * d * (1 if tied_embeddings else 2) + d)
        return L * per_layer(d, H, KV, hd, ff) + rest
    return count


def _layer(d, H, KV, hd, ff):
    return 2 * d * H * hd + 2 * d * KV * hd + 3 * d * ff + 2 * d


_no_final_norm = mistake("no-final-norm", "count the final RMSNorm after the last layer: d_model more parameters")(
    _variant(_layer, lambda V, d, tied: V * d * (1 if tied else 2)))
_one_norm = mistake("one-norm-per-layer", "count two RMSNorm scales per layer, before attention and before the "
                                          "feed-forward")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - d))
_no_norms = mistake("no-norms", "count the RMSNorm scales: two of d_model per layer and a final one")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - 2 * d, lambda V, d, tied: V * d * (1 if tied else 2)))
_kv_with_n_heads = mistake("kv-sized-by-n-heads", "size W_k and W_v with n_kv_heads * head_dim: grouped-query "
                                                  "attention has fewer K/V heads than query heads")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, H, hd, ff)))
_one_of_kv = mistake("k-or-v-missing", "count both W_k and W_v, d_model x n_kv_heads*head_dim each")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - d * KV * hd))
_no_output = mistake("output-projection-missing", "count the attention output projection W_o, "
                                                  "n_heads*head_dim x d_model")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - d * H * hd))
_two_ffn = mistake("two-ffn-matrices", "SwiGLU has three feed-forward matrices (gate, up and down), not two")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - d * ff))
_biases = mistake("counts-biases", "Llama-style models have no biases: count only the weight matrices and the norm "
                                   "scales")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) + H * hd + 2 * KV * hd + d + 2 * ff + d))
_q_o_square = mistake("q-o-square", "size W_q as d_model x n_heads*head_dim and W_o as n_heads*head_dim x "
                                    "d_model: d_model x d_model holds only when d_model == n_heads * head_dim")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, hd, ff) - 2 * d * H * hd + 2 * d * d))
_hd_from_d = mistake("head-dim-from-d-model", "use head_dim as given; it need not be d_model // n_heads")(
    _variant(lambda d, H, KV, hd, ff: _layer(d, H, KV, d // H, ff)))
_ignores_tied = mistake("ignores-tied", "with tied_embeddings=True the unembedding is the embedding matrix: count "
                                        "vocab_size x d_model once")(
    _variant(_layer, lambda V, d, tied: 2 * V * d + d))
_tied_drops_both = mistake("tied-drops-both", "tied embeddings still count the shared vocab_size x d_model matrix "
                                              "once")(
    _variant(_layer, lambda V, d, tied: (0 if tied else 2 * V * d) + d))


@mistake("no-validation", "raise ValueError for a size that is not positive, and when n_heads is not a multiple of "
                          "n_kv_heads")
def _no_validation(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    layer = _layer(d_model, n_heads, n_kv_heads, head_dim, d_ff)
    return n_layers * layer + vocab_size * d_model * (1 if tied_embeddings else 2) + d_model


@mistake("gb-not-gib", "a GiB is 2**30 bytes, not 10**9 (that is a GB)", fn="weights_gib")
def _gb(n_params, bits):
    return n_params * bits / 8 / 1e9


@mistake("bits-as-bytes", "bits / 8 is bytes per parameter: divide by 8", fn="weights_gib")
def _bits_as_bytes(n_params, bits):
    return n_params * bits / GIB


@mistake("gib-ignores-bits", "use the bits argument: n_params * bits / 8 bytes, not 2 bytes a parameter whatever "
                             "the width", fn="weights_gib")
def _ignores_bits(n_params, bits):
    return n_params * 2 / GIB


@mistake("rounded-gib", "return the exact quotient; rounding is for display", fn="weights_gib")
def _rounded(n_params, bits):
    return round(n_params * bits / 8 / GIB, 2)


def _layers_count(V, d, L, H, KV, hd, ff, tied):
    return L * _layer(d, H, KV, hd, ff) + V * d * (1 if tied else 2) + d


@mistake("modulo-before-positive", "check that every size is positive before n_heads % n_kv_heads: with n_kv_heads = "
                                   "0 the modulo raises ZeroDivisionError, not ValueError")
def _modulo_first(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff)
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if min(sizes) <= 0:
        raise ValueError("sizes must be positive")
    return _layers_count(*sizes, tied_embeddings)


# Behaviour cannot tell this from no validation at all on the two negative sizes (both count them), so the message
# holds for either.
@mistake("product-validation", "check each size on its own (value <= 0 raises ValueError): two negative sizes must "
                               "be rejected too, although their product is positive")
def _product_validation(vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, tied_embeddings=False):
    sizes = (vocab_size, d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff)
    product = 1
    for value in sizes:
        product *= value
    if product <= 0 or n_heads % n_kv_heads:
        raise ValueError("bad configuration")
    return _layers_count(*sizes, tied_embeddings)
