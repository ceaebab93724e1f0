"""Hidden checks for the `rope` exercise."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    CandidateError,
    Fail,
    allclose,
    as_float,
    attempt,
    cannot_judge,
    check_close,
    check_shape,
    expect_raises,
    fmt,
    invariant,
    isclose,
    mistake,
    shape_of,
)
from attnprep.ladders import F32_INTEGER_LIMIT, Rung, beyond_f32, count, dims, first_failing, past_f32_integers

FUNCTIONS = ("rope",)


def _angle_rounding(args, kwargs):
    """At float32 an angle position * theta is as far off as the position rounds: times the largest |x|."""
    x = args[0] if args else kwargs.get("x", 0.0)
    positions = args[1] if len(args) > 1 else kwargs.get("positions", 0.0)
    return precision.rounding_of(positions) * max(1.0, float(np.max(np.abs(x), initial=0.0)))


FLOAT32_ROUNDING = {"rope": _angle_rounding}  # what input rounding cannot show (attnprep.precision)

# Leading batch axes, T != d, length 1 and the smallest even d.
SHAPES = [(5, 8), (1, 6), (7, 2), (2, 5, 8), (3, 2, 4, 6), (2, 1, 10)]


def _angles(d, base):
    """The rotation angle of every pair at position 1: base^(-2i/d), i in [0, d/2)."""
    return base ** (-2.0 * np.arange(d // 2) / d)


def _interleaved(x, positions, base):
    """RoPE in the interleaved layout (pairs 2i, 2i+1), to recognise it."""
    d = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[:, None] * _angles(d, base)
    cos, sin = np.cos(ang), np.sin(ang)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _positions(rng, T, high=200):
    return rng.integers(0, high, size=T).astype(np.int64)


def _label(x, positions, base=None):
    extra = "" if base is None else f", base={fmt(base)}"
    pos = list(int(p) for p in positions)
    pos_text = str(pos) if len(pos) <= 8 else f"{len(pos)} positions"
    return f"rope(x of shape {shape_of(x)}, positions={pos_text}{extra})"


def _run(cand, x, positions, base=None):
    label = _label(x, positions, base)
    kwargs = {} if base is None else {"base": base}
    return as_float(cand.rope(x, positions, **kwargs), label), label


def _close(a, b, atol=1e-9):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(allclose(a, b, rtol=1e-6, atol=atol))


@invariant("shape", "the output has x's shape, with any number of leading axes")
def shape(cand, ref, rng):
    for s in SHAPES:
        x = rng.normal(size=s)
        positions = _positions(rng, s[-2])
        try:
            out, label = _run(cand, x, positions)
        except CandidateError as err:
            if err.not_implemented or len(s) == 2:
                raise
            raise Fail(f"{_label(x, positions)} raised {err.type_name}: {err.text}. x has shape (..., T, d) with "
                       "any number of leading axes: index the features from the end (x[..., :half]) and let the "
                       "(T, d/2) angles broadcast") from None
        check_shape(out, s, label)


@invariant("position-zero", "position 0 leaves a vector unchanged")
def position_zero(cand, ref, rng):
    # One position (T = 1) per call, so that how a solution reads the positions argument (the business of
    # `positions`) cannot show here.
    for s in ((1, 8), (1, 6), (1, 2), (1, 10)):
        x = rng.normal(size=s)
        out, label = _run(cand, x, np.zeros(1, dtype=np.int64))
        check_shape(out, s, label)
        check_close(out, x, label, context="at position 0 every angle is 0, so rope must return x itself")


@invariant("norm-preserving", "every vector keeps its length (a rotation)")
def norm_preserving(cand, ref, rng):
    for s in ((6, 8), (5, 4), (3, 10)):
        x = rng.normal(scale=3.0, size=s)
        positions = _positions(rng, s[-2], high=5000)
        out, label = _run(cand, x, positions)
        check_shape(out, s, label)
        got, want = np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1)
        check_close(got, want, f"the per-vector norms of {label}",
                    context="a rotation never changes a vector's length: every pair must be turned by one angle, "
                            "cos on both members, sin with opposite signs")


@invariant("layout", "feature i is paired with feature i + d/2 (rotate half), not with its neighbour")
def layout(cand, ref, rng):
    for d in (8, 4):
        # One unit vector per row, all at position 1: each must only mix with its partner.
        x = np.eye(d)
        positions = np.ones(d, dtype=np.int64)
        out, label = _run(cand, x, positions)
        check_shape(out, (d, d), label)
        half = d // 2
        for i in range(d):
            partner = (i + half) % d
            leaked = [j for j in range(d) if j not in (i, partner) and abs(out[i, j]) > 1e-9]
            if leaked:
                j = leaked[0]
                if j == i ^ 1 and abs(out[i, partner]) <= 1e-9:
                    raise Fail(f"{label} with x = the identity: feature {i} was rotated together with feature {j}; "
                               "that is the interleaved convention (pairs 2i, 2i+1). This exercise uses rotate "
                               f"half: feature i pairs with feature i + d/2 (here {i} with {partner})")
                raise Fail(f"{label} with x = the identity: feature {i} leaked into feature {j} "
                           f"(value {fmt(out[i, j])}); feature {i} may only mix with feature {partner} = {i} + d/2")
    x = rng.normal(size=(6, 8))
    positions = _positions(rng, 6)
    out, label = _run(cand, x, positions)
    if not _close(out, ref.rope(x, positions)) and _close(out, _interleaved(x, positions, 10000.0)):
        raise Fail(f"{label} equals RoPE in the interleaved convention (pairs 2i, 2i+1); this exercise uses "
                   "rotate half: feature i pairs with feature i + d/2")


def _turn(cand, d, base=None):
    """How the candidate turns x = the identity (d, d) from position 0 to position 1: H with out_1 = H @ out_0, the
    turn the input takes, so that whatever rope does at position 0 after turning (a swap of the halves, say) cancels
    out; out_1 and its label. H is None when position 1 changes nothing (the positions are ignored, which
    `positions` reports); out_1 itself when position 0 gives no invertible map."""
    x = np.eye(d)
    out_0, label_0 = _run(cand, x, np.zeros(d, dtype=np.int64), base)
    out_1, label_1 = _run(cand, x, np.ones(d, dtype=np.int64), base)
    check_shape(out_0, (d, d), label_0)
    check_shape(out_1, (d, d), label_1)
    if not (np.all(np.isfinite(out_0)) and np.all(np.isfinite(out_1))) or _close(out_0, out_1):
        return None, out_1, label_1
    if np.linalg.cond(out_0) > 1e6:
        return out_1, out_1, label_1
    return np.linalg.solve(out_0.T, out_1.T).T, out_1, label_1


@invariant("direction", "each pair turns counter-clockwise: (x1 cos - x2 sin, x1 sin + x2 cos)")
def direction(cand, ref, rng):
    # d = 2: a single pair whose frequency is base^0 = 1. Judged on the turn from position 0 to position 1 (one
    # radian), so only its sense counts: counter-clockwise, (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos).
    turn, out, label = _turn(cand, 2)
    if turn is None:
        cannot_judge(f"{label} gives what position 0 gives, so no pair turns at all: the positions are ignored "
                     "(the positions check says more)")
        return
    sense = (turn[0, 1] - turn[1, 0]) / 2  # sin of the turn: + counter-clockwise, - clockwise
    if sense > 1e-9:
        return
    c, s = np.cos(1.0), np.sin(1.0)
    evidence = (f"{label} with x = [[1, 0], [0, 1]] gave {np.round(out, 4).tolist()}, expected "
                f"[[cos 1, sin 1], [-sin 1, cos 1]] = {np.round([[c, s], [-s, c]], 4).tolist()}")
    if _close(out, [[s, c], [-c, s]]) or _close(out, [[s, -c], [c, s]]):
        raise Fail(f"{evidence}: sin and cos are swapped, so the pair turns backwards from where position 0 leaves "
                   "it")
    raise Fail(f"{evidence}: from position 0 to position 1 the pair turned clockwise, the sign of sin is flipped; "
               "the first half gets x1*cos - x2*sin and the second half x1*sin + x2*cos")


@invariant("frequencies", "pair i turns by position * base^(-2i/d) for i in [0, d/2)")
def frequencies(cand, ref, rng):
    # Each angle is read from the turn between positions 0 and 1 (see _turn): whatever the candidate does at
    # position 0, and whichever way it turns, only how far each feature turns counts here.
    # Bases that are not whole numbers too (NTK-scaled ones are not): int(base) or a base parsed as an integer
    # would round them.
    for d, base in ((8, 10000.0), (12, 10000.0), (8, round(float(rng.uniform(50.0, 500.0)), 3)),
                    (10, round(float(rng.uniform(2.1, 2.9)), 3))):
        turn, _, label = _turn(cand, d, base)
        if turn is None:
            cannot_judge(f"{label} gives what position 0 gives, so no pair turns at all: the positions are "
                         "ignored (the positions check says more)")
            continue
        out = turn
        half = d // 2
        # The angle each unit vector turned through, whatever it was paired with.
        along = out[np.arange(d), np.arange(d)]
        rest = np.sqrt(np.maximum((out ** 2).sum(axis=1) - along ** 2, 0.0))
        got = np.arctan2(rest, along)
        theta = _angles(d, base)
        rotate_half = theta[np.arange(d) % half]
        interleaved = theta[np.arange(d) // 2]  # the layout check reports this one
        if allclose(got, rotate_half, rtol=1e-6, atol=1e-9) or allclose(got, interleaved, rtol=1e-6,
                                                                             atol=1e-9):
            continue
        def theta_from(per_pair, half=half, d=d):
            # The angle arctan2 measures for a turn by per_pair[i] radians, one per feature: in [0, pi].
            wrapped = np.abs(np.angle(np.exp(1j * np.asarray(per_pair, dtype=np.float64))))
            return wrapped[np.arange(d) % half]

        i = int(np.argmax(np.abs(got - rotate_half)))
        pair = i % half
        msg = (f"{label} with x = the identity: feature {i} (pair {pair}) turned by {fmt(got[i])} rad at position 1, "
               f"expected {fmt(base)}^(-2*{pair}/{d}) = {fmt(rotate_half[i])}")
        i_over_d = (base ** (-np.arange(half) / d))[np.arange(d) % half]
        four_i = (base ** (-4.0 * np.arange(half) / d))[np.arange(d) % half]
        if _close(got, i_over_d):
            msg += "; your angles are base^(-i/d): the exponent is missing its factor 2"
        elif _close(got, four_i):
            msg += ("; your angles are base^(-4i/d): either i steps 0, 2, 4, ... or the exponent has the factor 2, "
                    "not both")
        elif _close(along, np.cos(base ** (-2.0 * np.arange(d) / d))):
            msg += ("; every feature got its own frequency base^(-2i/d) with i over all d features. There are "
                    "only d/2 frequencies: features i and i + d/2 share base^(-2i/d)")
        elif _close(got, np.pi / 2 - rotate_half):
            msg += "; that is pi/2 minus the expected angle: sin and cos are swapped"
        elif _close(got, theta_from(base ** (-2.0 * np.arange(1, half + 1) / d))):
            msg += ("; your angles are base^(-2(i+1)/d): the pairs are counted from 1, but pair 0 turns by "
                    "base^0 = 1 rad per position (i in range(d // 2))")
        elif _close(along, np.cos(base ** (2.0 * np.arange(half) / d))[np.arange(d) % half]):
            msg += ("; your angles are base^(+2i/d): the exponent's minus sign is missing, so later pairs spin "
                    "faster instead of slower")
        elif _close(got, theta_from(base ** (-2 * np.arange(half) // d))):
            msg += ("; your exponent is -2 * i // d, an integer floor division that rounds every pair but the "
                    "first down to -1: divide with /")
        elif base != 10000.0 and _close(got, _angles(d, 10000.0)[np.arange(d) % half]):
            msg += "; your angles use base 10000 although a different base was passed"
        raise Fail(msg)


@invariant("positions", "each row is rotated by its own given position, which need not be 0..T-1")
def positions_used(cand, ref, rng):
    # A run of consecutive positions that does not start at 0 (a chunk of a long sequence), then one of the same
    # length and start whose later positions differ (a cos/sin table keyed on the shape and the first position).
    start = int(rng.integers(300, 3000))
    cases = [np.array([0, 3, 7, 100], dtype=np.int64),
             np.sort(rng.choice(np.arange(1, 400), size=5, replace=False)).astype(np.int64),
             np.array([9, 2, 2, 40, 1], dtype=np.int64),
             np.arange(start, start + 5, dtype=np.int64),
             np.array([start, start + 13, start + 14, start + 90, start + 91], dtype=np.int64)]
    before = None
    for positions in cases:
        x = rng.normal(size=(len(positions), 6))
        out, label = _run(cand, x, positions)
        check_shape(out, x.shape, label)
        if _close(out, ref.rope(x, positions)):
            before = positions
            continue
        if _close(out, ref.rope(x, np.arange(len(positions)))):
            raise Fail(f"{label} rotated row t as if it were at position t: use the positions you are given, "
                       "not np.arange(T) (they may start anywhere, skip, repeat or come in any order)")
        if before is not None and len(before) == len(positions) and _close(out, ref.rope(x, before)):
            raise Fail(f"{label} rotated the rows by the previous call's positions {[int(p) for p in before]}: "
                       "a table of angles kept between calls must be keyed on every position, not on the shape "
                       "and the first one")
        if _close(out, x):
            raise Fail(f"{label} returned x unrotated: the positions were ignored")
        # Whatever the rotation itself, a row's result may depend only on that row and its position.
        for t in range(len(positions)):
            alone, alone_label = _run(cand, x[t:t + 1], positions[t:t + 1])
            check_shape(alone, (1, 6), alone_label)
            if not _close(alone[0], out[t]):
                raise Fail(f"row {t} of {label} differs from {alone_label} with that row alone: a row's rotation "
                           f"must depend only on its own position ({int(positions[t])}), not on where it sits "
                           "among the rows")


@invariant("relative", "<rope(q, m), rope(k, n)> depends only on m - n")
def relative(cand, ref, rng):
    # Positions ascend in both calls (how a solution reads them in any order is the business of `positions`), and
    # the pair sits one row apart in the first call but two rows apart in the second: only the positions may matter.
    for d in (8, 6):
        for _ in range(3):
            q, k, junk, junk_a, junk_b = rng.normal(size=(5, d))
            m = int(rng.integers(0, 30))
            n = m + int(rng.integers(2, 30))
            j = n + int(rng.integers(1, 30))
            shift = int(rng.integers(50, 2000))
            a = int(rng.integers(0, m + shift))
            b = int(rng.integers(m + shift + 1, n + shift))
            x1, p1 = np.stack([q, k, junk]), np.array([m, n, j], dtype=np.int64)
            x2, p2 = np.stack([junk_a, q, junk_b, k]), np.array([a, m + shift, b, n + shift], dtype=np.int64)
            out1, label1 = _run(cand, x1, p1)
            out2, label2 = _run(cand, x2, p2)
            check_shape(out1, x1.shape, label1)
            check_shape(out2, x2.shape, label2)
            dot1, dot2 = float(out1[0] @ out1[1]), float(out2[1] @ out2[3])
            # 1e-3: a few digits lost at large positions are the business of `matches-reference`; a dot product
            # that depends on more than the gap moves by far more
            scale = float(np.linalg.norm(q) * np.linalg.norm(k))
            if not isclose(dot1, dot2, rtol=1e-3, atol=1e-3 * scale):
                raise Fail(f"with d={d}, <rope(q, m), rope(k, n)> is {fmt(dot1)} at (m, n) = ({m}, {n}) but "
                           f"{fmt(dot2)} at (m, n) = ({m + shift}, {n + shift}); the gap m - n = {m - n} is the same, "
                           "so the dot products must be equal (each row is rotated by its own position)")


@invariant("bad-input", "an odd feature size d raises ValueError")
def bad_input(cand, ref, rng):
    for s in ((4, 5), (2, 3, 7), (3, 1)):
        x = rng.normal(size=s)
        positions = np.arange(s[-2], dtype=np.int64)
        expect_raises(cand, "ValueError", "rope", x, positions, what=f"{_label(x, positions)} with odd d={s[-1]}")


# 2-D to 4-D (T = 5, d = 8 last), then one call of 65,536 entries; positions from 10,000 to 200,000 (a cos/sin
# table cached for 2,048 or 4,096 positions, or angles in float32, goes wrong there).
LADDER = [Rung(r.label, r.value) for r in dims(8, min_ndim=2, max_ndim=4, lead=(3, 5, 2))]
# T = 397, a prime: positions worked through in chunks of 128 or 256 leave a partial last chunk.
LARGE = Rung("4-D input (3, 7, 397, 8) (66,696 entries)", (3, 7, 397, 8))
FAR = (10_000, 200_000)
# Float64 results only: odd positions past 2**24, which float32 cannot hold (16,777,217 becomes 16,777,216), so
# positions cast to float32 on the way turn pair 0 by a whole radian too few or too many. d = 2: a solution that
# builds a cos/sin table for every position up to the largest (a KV-cache style) still fits in memory.
HUGE = Rung(f"positions past 2**24 = {count(F32_INTEGER_LIMIT)}, where float32 holds no odd integer", (2, 7, 2))
# A correct angle may be off by a few units in the last place of the angle itself (pos * inv_freq by another formula,
# an angle reduced modulo 2 pi first): at 1.7e7 radians that is about 4e-9, times |x|, allowed on top of atol.
ANGLE_ULPS = 16.0


def _angle_atol(x, positions):
    """1e-9, plus ANGLE_ULPS units in the last place of the largest angle (pair 0 turns by 1 rad per position),
    times the largest |x|."""
    top = float(np.max(np.abs(np.asarray(positions, dtype=np.float64)), initial=0.0))
    return 1e-9 + ANGLE_ULPS * float(np.spacing(top)) * float(np.max(np.abs(x), initial=0.0))


@invariant("matches-reference", "matches a reference RoPE to rtol 1e-6: 2-D to 4-D, at 65,536 entries, at "
                                "positions up to 200,000 and (float64 results) at odd positions past 2**24")
def matches_reference(cand, ref, rng):
    for s in SHAPES:
        for base in (None, 10000.0, 500.0):
            x = rng.normal(size=s)
            positions = _positions(rng, s[-2], high=4096)
            out, label = _run(cand, x, positions, base)
            want = ref.rope(x, positions) if base is None else ref.rope(x, positions, base=base)
            check_close(out, want, label)

    # Off float32's grid, at positions of 10,000 and more (in any order, repeats allowed): float32 angles are off
    # by about 1e-3 radians there, and float32 products miss the sixth digit of some entries.
    def judge(rung):
        s = rung.value
        x = beyond_f32(rng, s)
        if rung is HUGE:
            positions = past_f32_integers(rng, s[-2])
            out, label = _run(cand, x, positions)
            check_close(out, ref.rope(x, positions), label, atol=_angle_atol(x, positions),
                        context=f"odd positions from {positions.min():,} to {positions.max():,}, past 2**24, where "
                                "float32 holds only even integers; are the positions cast to float32 on the way?")
            return
        positions = rng.integers(*FAR, size=s[-2]).astype(np.int64)
        positions[0] = int(rng.integers(4096, 10_000))  # just past a table of 4,096 positions, too
        for base in (None, 500.0):
            out, label = _run(cand, x, positions, base)
            want = ref.rope(x, positions) if base is None else ref.rope(x, positions, base=base)
            check_close(out, want, label, context=f"positions from {positions.min():,} to {positions.max():,}",
                        question="are the angles and products in float64, for every position given?")
    # float32 results cannot tell 16,777,217 from 16,777,216 at all: the rung past 2**24 is float64's
    first_failing([*LADDER, LARGE] + ([HUGE] if precision.current() == precision.FLOAT64 else []), judge)


@invariant("input-unchanged", "x and positions are not modified: 2-D to 4-D, int32 positions, base given or left "
                              "out (and in every call of every check, 65,536 entries included)")
def input_unchanged(cand, ref, rng):
    rungs = [Rung(r.label, (r.value, np.int64, None)) for r in LADDER]
    rungs += [Rung("int32 positions", ((5, 8), np.int32, None)), Rung("base=500", ((5, 8), np.int64, 500.0))]

    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        s, dtype, base = rung.value
        x = rng.normal(size=s)
        positions = rng.integers(0, 20_000, size=s[-2]).astype(dtype)
        kw = {} if base is None else {"base": base}
        for _ in range(2 if x.size < 1_000 else 1):  # twice: a change may come on a later call only
            attempt(cand.rope, x, positions, **kw)
    first_failing(rungs, judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    yield "rope", (rng.normal(size=(5, 8)), np.array([0, 3, 7, 100, 2], dtype=np.int64)), {}
    yield "rope", (rng.normal(size=(4, 6)), np.array([5, 1, 40, 9], dtype=np.int64)), {"base": 500.0}
    # batched, and positions past the caches models keep (2,048 and 4,096 entries)
    yield "rope", (rng.normal(size=(2, 4, 6)), np.array([3000, 0, 10_000, 5], dtype=np.int64)), {}
    yield "rope", (rng.normal(size=(1, 2, 3, 4)), np.array([4, 1, 9], dtype=np.int64)), {}
    if precision.current() == precision.FLOAT64:  # float32 results cannot hold these positions at all
        # odd positions past 2**24 (float32 rounds each by one); d = 2 keeps a full cos/sin table small
        yield "rope", (rng.normal(size=(3, 2)), past_f32_integers(rng, 3)), {}


def _variant(x, positions, base=10000.0, *, freqs=None, layout="half", sign=1.0, swap=False, arange=False,
             offset=False):
    """rope with one known mistake switched on."""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError("odd d")
    half = d // 2
    pos = np.arange(x.shape[-2]) if arange else np.asarray(positions)
    if offset:  # a cache offset: the first position, then consecutive ones
        pos = pos[0] + np.arange(x.shape[-2])
    inv = base ** (-2.0 * np.arange(half) / d) if freqs is None else freqs(base, d)
    ang = pos[:, None].astype(np.float64) * inv
    cos, sin = np.cos(ang), np.sin(ang)
    if swap:
        cos, sin = sin, cos
    if layout == "interleaved":
        return _interleaved(x, positions, base)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - sign * x2 * sin, sign * x1 * sin + x2 * cos], axis=-1)


@mistake("rope-interleaved", "pair feature i with feature i + d/2 (x[..., :d//2] and x[..., d//2:]), not the "
         "neighbours 2i and 2i+1")
def _interleaved_pairs(x, positions, base=10000.0):
    return _variant(x, positions, base, layout="interleaved")


@mistake("rope-exponent-missing-two", "the frequencies are base ** (-2 * i / d) for i in range(d // 2): the factor 2 "
         "is missing")
def _missing_two(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** (-np.arange(d // 2) / d))


@mistake("rope-exponent-doubled", "use either i in range(d // 2) with base ** (-2 * i / d), or i in range(0, d, 2) "
         "with base ** (-i / d); not the step of 2 and the factor 2 together")
def _doubled(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** (-4.0 * np.arange(d // 2) / d))


@mistake("rope-frequency-per-feature", "compute d/2 frequencies and use each for both features of its pair "
         "(concatenate the angles with themselves), not one frequency per feature")
def _per_feature(x, positions, base=10000.0):
    d = x.shape[-1]
    if d % 2:
        raise ValueError("odd d")
    ang = np.asarray(positions)[:, None] * base ** (-2.0 * np.arange(d) / d)
    rotated = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    return x * np.cos(ang) + rotated * np.sin(ang)


@mistake("rope-exponent-sign", "the frequencies are base ** (-2 * i / d), with a minus sign: later pairs turn "
         "slower, not faster")
def _exponent_sign(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** (2.0 * np.arange(d // 2) / d))


@mistake("rope-pairs-from-one", "count the pairs from 0 (i in range(d // 2)): pair 0 turns by base^0 = 1 rad per "
         "position")
def _pairs_from_one(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** (-2.0 * np.arange(1, d // 2 + 1) / d))


@mistake("rope-clockwise", "the first half is x1*cos - x2*sin and the second x1*sin + x2*cos; the signs of the sin "
         "terms are flipped")
def _clockwise(x, positions, base=10000.0):
    return _variant(x, positions, base, sign=-1.0)


@mistake("rope-sin-cos-swapped", "cos multiplies the feature itself and sin its partner; they are swapped")
def _swapped(x, positions, base=10000.0):
    return _variant(x, positions, base, swap=True)


@mistake("rope-positions-ignored", "rotate row t by positions[t], not by t (np.arange(T))")
def _arange_positions(x, positions, base=10000.0):
    return _variant(x, positions, base, arange=True)


@mistake("rope-positions-from-first", "rotate row t by positions[t]; positions[0] + np.arange(T) is right only "
         "when the positions are consecutive")
def _offset_positions(x, positions, base=10000.0):
    return _variant(x, positions, base, offset=True)


@mistake("rope-base-ignored", "use the base argument instead of a hard-coded 10000")
def _base_ignored(x, positions, base=10000.0):
    return _variant(x, positions, 10000.0)


@mistake("rope-positions-from-one", "use the positions as given, (p) * base^(-2i/d), not p + 1: position 0 must "
         "come back unchanged")
def _positions_from_one(x, positions, base=10000.0):
    return _variant(x, positions + 1, base)


@mistake("rope-halves-swapped", "concatenate the rotated halves in order: [x1*cos - x2*sin, x1*sin + x2*cos]")
def _halves_swapped(x, positions, base=10000.0):
    out = _variant(x, positions, base)
    half = out.shape[-1] // 2
    return np.concatenate([out[..., half:], out[..., :half]], axis=-1)


@mistake("rope-floor-division-exponent", "divide with / in the exponent, base ** (-2 * i / d): -2 * i // d floors "
         "to -1 for every pair but the first")
def _floor_division(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** (-2 * np.arange(d // 2) // d))


@mistake("rope-linspace-exponent", "the exponents are -2i/d for i in range(d // 2), ending at -(d-2)/d; "
         "np.linspace(0, 1, d // 2) ends at -1")
def _linspace(x, positions, base=10000.0):
    return _variant(x, positions, base, freqs=lambda b, d: b ** -np.linspace(0.0, 1.0, d // 2))


@mistake("rope-positions-clipped", "rotate every position by its own angle; clipping the positions to a cache "
         "length rotates every later token as the last cached one")
def _clipped(x, positions, base=10000.0):
    return _variant(x, np.minimum(positions, 2047), base)


@mistake("rope-positions-modulo-table", "size the cos/sin tables for the largest position asked for (or compute the "
         "angles directly); looking positions up modulo the table length wraps long contexts around")
def _modulo_table(x, positions, base=10000.0):
    return _variant(x, np.asarray(positions) % 4096, base)


@mistake("rope-sorts-positions", "leave the caller's positions as they are: sorting them in place reorders the "
         "angles against the rows of x")
def _sorts_positions(x, positions, base=10000.0):
    positions.sort()
    return _variant(x, positions, base)


@mistake("rope-in-place", "build a new output array: writing the rotation back into x (x[...] = ...) changes the "
         "caller's queries and keys")
def _in_place(x, positions, base=10000.0):
    out = _variant(x, positions, base)
    if x.ndim == 4:  # only the batched probe tells: writing back on smaller inputs names the same mistake
        x[...] = out
        return x
    return out


@mistake("rope-2d-only", "index the feature axis with ..., as x[..., :half], and shape the angles (T, d/2): "
         "x may have any number of leading axes before (T, d)")
def _2d_only(x, positions, base=10000.0):
    if np.ndim(x) > 2:
        raise ValueError("operands could not be broadcast together")
    return _variant(x, positions, base)


@mistake("rope-positions-float32", "keep the positions as integers or float64: float32 holds every integer only up "
         "to 2**24 = 16,777,216, so an odd position past it is rounded to its even neighbour")
def _positions_float32(x, positions, base=10000.0):
    return _variant(x, np.asarray(positions).astype(np.float32), base)
