"""Hidden checks for the `causal` exercise."""

import math

import numpy as np

from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_array,
    as_float,
    attempt,
    check_close,
    check_rows_sum_to_one,
    check_shape,
    check_unchanged,
    fmt,
    invariant,
    is_expected,
    isclose,
    mistake,
    row_shift_problem,
    shape_of,
    softmax_divisor,
    unpack,
)
from attnprep.ladders import (
    WIDE_HEAD,
    ZERO_SCORES,
    Stopwatch,
    check_close_fast,
    fill_before_scale,
    meanwhile,
    normal,
    peak_text,
    peaked_qk,
    sunken_qk,
    up_to_long,
    with_zero_rows,
)

FUNCTIONS = ("causal_mask", "causal_attention")

# (T, d_k, d_v): T, d_k and d_v differ wherever possible, so a size taken from
# the wrong dimension cannot pass by accident; length 1 and d_k = 1 included.
SHAPES = [(6, 4, 3), (4, 6, 2), (7, 3, 5), (1, 3, 2), (2, 5, 3), (3, 2, 7), (5, 1, 4)]
# The same plus square cases, where a missing transpose still runs but gives wrong numbers.
REFERENCE_SHAPES = SHAPES + [(5, 5, 5), (4, 4, 6), (8, 3, 3)]


# -- private helpers (generic enough for the other attention exercises) ------------------

def _qkv(rng, T, d_k, d_v, scale=1.0):
    return (rng.normal(scale=scale, size=(T, d_k)), rng.normal(scale=scale, size=(T, d_k)),
            rng.normal(size=(T, d_v)))


def _dims(q, v):
    return f"T={q.shape[0]}, d_k={q.shape[1]}, d_v={v.shape[1]}"


def _with_shapes(err, q, k, v):
    """The same candidate exception (still an error, not a fail), naming the shapes that triggered it."""
    if err.not_implemented:
        return err
    where = f"called with q {shape_of(q)}, k {shape_of(k)}, v {shape_of(v)}: {_dims(q, v)}"
    return CandidateError(err.fn, err.type_name, err.mro, f"{err.text} [{where}]", err.line)


def _attend(cand, q, k, v):
    """Call the candidate's causal_attention; return (out, weights, dims) with checked shapes."""
    dims = _dims(q, v)
    try:
        result = cand.causal_attention(q, k, v)
    except CandidateError as err:
        raise _with_shapes(err, q, k, v) from None
    out, weights = unpack(result, 2, "causal_attention")
    T, d_v = q.shape[0], v.shape[1]
    # Named with their function: `mask` calls causal_attention too, and its shapes are no fault of causal_mask.
    out = as_float(out, f"the out of causal_attention ({dims})")
    weights = as_float(weights, f"the weights of causal_attention ({dims})")
    check_shape(weights, (T, T), f"the weights of causal_attention ({dims})")
    check_shape(out, (T, d_v), f"the out of causal_attention ({dims})")
    return out, weights, dims


def _unmasked_weights(q, k):
    """Row softmax of q k^T / sqrt(d_k) with no mask at all (to recognise a forgotten mask)."""
    s = q @ k.T / np.sqrt(q.shape[1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _first(mask):
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _check_not_all_nan(w, dims):
    """Every weight nan at moderate scores: name the likely cause (the mask added as mask * -inf)."""
    if w.size and np.isnan(w).all():
        raise Fail(f"causal_attention ({dims}): every weight is nan, even on the allowed keys, at moderate scores: "
                   "an additive mask built as mask * -inf gives 0 * -inf = nan there; put -inf in with "
                   "np.where(mask, -np.inf, scores)")


def _big_scores(rng, T, d_k):
    """(name, q, k) cases whose scores are about +-1e4, as in the `stable` check."""
    big = np.sqrt(1e4 * np.sqrt(d_k))  # q and k of this size give scores of about 1e4
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    return [
        # every score of every row is about -1e4
        ("scores near -1e4", -big * u + rng.normal(scale=0.1, size=(T, d_k)),
         big * u + rng.normal(scale=0.1, size=(T, d_k))),
        # scores rise from -1e4 to +1e4 along the keys: each row's largest score lies in its masked future
        ("later keys scoring far higher", big * u + rng.normal(scale=0.1, size=(T, d_k)),
         np.linspace(-1.0, 1.0, T)[:, None] * big * u + rng.normal(scale=0.1, size=(T, d_k))),
    ]


# -- the invariants, simplest first --------------------------------------------------------

@invariant("mask", "causal_mask(T) is a bool (T, T) array, True exactly above the diagonal; "
                   "attention keeps the diagonal and the past")
def mask(cand, ref, rng):
    for T in (5, 2, 8, 1):  # T = 1 last: its only entry cannot tell a diagonal from an inverted mask
        label = f"causal_mask({T})"
        m = as_array(cand.causal_mask(T), label)
        check_shape(m, (T, T), label)
        got = m != 0
        want = ref.causal_mask(T)
        if T > 1 and np.array_equal(got, ~want):
            raise Fail(f"{label} is the exact opposite of the expected mask ({label}[0, 0] is {fmt(m[0, 0])}): "
                       "True must mean blocked, i.e. the future (key j > query i), and False allowed")
        diag = np.diag(got)
        if diag.any():
            i = int(np.argmax(diag))
            raise Fail(f"{label}[{i}, {i}] is {fmt(m[i, i])}: the diagonal must not be masked; "
                       f"position {i} always attends to itself")
        past = np.tril(got, k=-1)
        if past.any():
            i, j = _first(past)
            raise Fail(f"{label}[{i}, {j}] is {fmt(m[i, j])}: that blocks the past (key {j} comes before "
                       f"query {i}); only the future, key j > query i, is blocked")
        future = want & ~got
        if future.any():
            i, j = _first(future)
            raise Fail(f"{label}[{i}, {j}] is {fmt(m[i, j])}: query {i} could see the future key {j}; "
                       "every entry above the diagonal must be True (blocked)")
        if m.dtype != np.bool_:
            raise Fail(f"{label} has the right pattern but dtype {m.dtype}; return a bool array "
                       "(True = blocked), as the contract asks")

    # The mask as applied inside causal_attention: every allowed weight (key j <= query i) is > 0.
    for T, d_k, d_v in ((6, 4, 3), (1, 3, 2)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        _, w, dims = _attend(cand, q, k, v)
        allowed = np.tril(np.ones((T, T), dtype=bool))
        bad = allowed & ~(w > 0.0)
        if bad.any():
            i, j = _first(bad)
            if i == j:
                why = (f"the diagonal must not be masked; position {i} always attends to itself")
                _check_not_all_nan(w, dims)
                if np.isnan(w[i, j]):
                    why += f" (with the diagonal masked, row {i} has nothing left and its softmax is 0/0)"
            else:
                why = (f"query {i} may attend to the earlier key {j}: only the future (key j > query i) "
                       "is masked, never the past")
            raise Fail(f"causal_attention ({dims}): weights[{i}, {j}] is {fmt(w[i, j])}: {why}")


@invariant("shape", "out is (T, d_v) and weights (T, T), for T, d_k and d_v all different and T = 1")
def shape(cand, ref, rng):
    for T, d_k, d_v in SHAPES:
        _attend(cand, *_qkv(rng, T, d_k, d_v))  # _attend checks both shapes


@invariant("sum-to-one", "every row of weights sums to one")
def sum_to_one(cand, ref, rng):
    for T, d_k, d_v in ((5, 4, 3), (8, 3, 6), (1, 2, 2), (6, 6, 2)):
        q, k, v = _qkv(rng, T, d_k, d_v, scale=1.5)
        _, w, dims = _attend(cand, q, k, v)
        try:
            check_rows_sum_to_one(w, f"causal_attention ({dims})")
        except Fail as exc:
            hint = ""
            upper = np.triu(np.ones((T, T), dtype=bool), k=1)
            lower = ~upper
            if (w[upper] == 0.0).all() and allclose(w[lower], _unmasked_weights(q, k)[lower],
                                                        rtol=1e-6, atol=1e-9):
                hint = ("; the future was zeroed after the softmax, so the rest no longer adds up: "
                        "mask the scores before the softmax")
            elif allclose(w.sum(axis=0), 1.0, rtol=0.0, atol=1e-6):
                hint = "; the columns sum to one instead: the softmax ran over the queries, not over the keys"
            else:
                _check_not_all_nan(w, dims)
            raise Fail(f"{exc}{hint}") from None


@invariant("upper-triangle-zero", "every weight above the diagonal (a query looking at a later key) is exactly 0.0")
def upper_triangle_zero(cand, ref, rng):
    for T, d_k, d_v, scale in ((5, 4, 3, 1.0), (8, 3, 6, 1.0), (6, 8, 2, 4.0), (2, 2, 1, 1.0)):
        q, k, v = _qkv(rng, T, d_k, d_v, scale=scale)
        _, w, dims = _attend(cand, q, k, v)
        # Only the entries above the diagonal are judged: a masked diagonal is for mask and sum-to-one, and a row
        # that is nan throughout is a 0/0 of its whole softmax (an empty row), not a weight given to the future.
        _check_not_all_nan(w, dims)
        judged = ~(~np.isfinite(w)).all(axis=1)[:, None]
        leak = np.triu(np.ones((T, T), dtype=bool), k=1) & judged & ~(w == 0.0)
        if leak.any():
            i, j = _first(leak)
            hint = ""
            if allclose(w, _unmasked_weights(q, k), rtol=1e-6, atol=1e-9):
                hint = "; these are the weights of no mask at all: return the weights after masking"
            raise Fail(f"causal_attention ({dims}): weights[{i}, {j}] is {fmt(w[i, j])}, expected exactly 0.0: "
                       f"query {i} must not attend to the later key {j}{hint}")
    # Scores near 1e4: the future must still get exactly 0.0, which a finite fill such as -1e4 (put in place
    # or added) does not give here. An overflow or 0/0 at these scores is for `stable` to report, not this.
    # Last, scores near -1e4 at d_k = 128, where a fill put in before dividing by sqrt(d_k) shrinks above them.
    T, d_v = 6, 3
    cases = [(name, q, k, 4) for name, q, k in _big_scores(rng, T, 4)]
    cases.append(("scores near -1e4", *sunken_qk(rng, (), T, T, WIDE_HEAD), WIDE_HEAD))
    for name, q, k, d_k in cases:
        _, w, dims = _attend(cand, q, k, rng.normal(size=(T, d_v)))
        if not np.isfinite(w).all():
            continue
        leak = np.triu(np.ones((T, T), dtype=bool), k=1) & (w != 0.0)
        if leak.any():
            i, j = _first(leak)
            raise Fail(f"causal_attention ({dims}, {name}): weights[{i}, {j}] is {fmt(w[i, j])}, expected exactly "
                       f"0.0: query {i} must not attend to the later key {j}; is the future filled with a finite "
                       f"number? Next to scores of about 1e4 it is not small enough: {fill_before_scale(d_k)}")


@invariant("prefix", "the outputs of the first t positions do not change when later positions change or are cut off")
def prefix(cand, ref, rng):
    for T, t, d_k, d_v in ((7, 3, 4, 5), (6, 1, 3, 2), (5, 4, 2, 3)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        out, w, dims = _attend(cand, q, k, v)
        why = "a causal model's output for a prefix must not depend on what follows it"

        out_cut, w_cut, _ = _attend(cand, q[:t], k[:t], v[:t])
        cut = f"when the sequence ({dims}) is cut to its first {t} position{'s' if t > 1 else ''}"
        check_close(out_cut, out[:t], f"out[:{t}] {cut}", context=why)
        check_close(w_cut, w[:t, :t], f"weights[:{t}, :{t}] {cut}", context=why)

        q2, k2, v2 = q.copy(), k.copy(), v.copy()
        q2[t:], k2[t:] = rng.normal(size=(2, T - t, d_k)) * 2.0
        v2[t:] = rng.normal(size=(T - t, d_v)) * 2.0
        out2, w2, _ = _attend(cand, q2, k2, v2)
        changed = f"when positions {t}..{T - 1} of q, k and v change ({dims})"
        check_close(out2[:t], out[:t], f"out[:{t}] {changed}", context=why)
        check_close(w2[:t], w[:t], f"weights[:{t}] {changed}", context=why)


def _divisor_problem(rng, T, d_k, d_v):
    """q, k, v with scores q k^T spread over a few units, so a softmax of them keeps every allowed key."""
    return rng.normal(scale=1.2, size=(T, d_k)), rng.normal(scale=1.2, size=(T, d_k)), rng.normal(size=(T, d_v))


def _wrong_divisors(T, d_k, d_v):
    """(divisor, what it is, the fix) for the scales learners pick instead of sqrt(d_k)."""
    root = fmt(np.sqrt(d_k))
    return [
        (1.0, "1, i.e. not scaled at all", f"divide q k^T by sqrt(d_k) = sqrt({d_k}) = {root}"),
        (float(d_k), f"d_k = {d_k} itself", f"divide by its square root, sqrt(d_k) = {root}"),
        (np.sqrt(d_v), f"sqrt(d_v) = sqrt({d_v}), the width of v",
         f"the scale comes from d_k = q.shape[1], the width of q and k: sqrt({d_k}) = {root}"),
        (float(d_v), f"d_v = {d_v}, the width of v", f"divide by sqrt(d_k) = sqrt({d_k}) = {root}"),
        (np.sqrt(T), f"sqrt(T) = sqrt({T}), the sequence length",
         f"d_k is q.shape[1], the width of q and k, not q.shape[0]: divide by sqrt({d_k}) = {root}"),
        (float(T), f"T = {T}, the sequence length", f"divide by sqrt(d_k) = sqrt({d_k}) = {root}"),
        (1.0 / np.sqrt(d_k), f"1/sqrt(d_k), i.e. multiplied by sqrt(d_k) = {root}", "divide by it instead"),
        (2.0 * d_k, f"2 * d_k = {2 * d_k}: `/ d_k ** 1/2` parses as (/ d_k) / 2",
         f"write / np.sqrt(d_k) or / d_k ** 0.5 = {root}"),
        *_integer_root(d_k),
    ]


def _integer_root(d_k):
    """The integer square root of a d_k that is no perfect square, as a wrong divisor (none for a square)."""
    r = math.isqrt(d_k)
    return [] if r * r == d_k else [(float(r), f"{r}, the integer square root of d_k = {d_k}",
                                     f"take the real one, np.sqrt(d_k) = {fmt(np.sqrt(d_k))}")]


@invariant("scale", "the scores are divided by sqrt(d_k), the width of q and k (not d_k, not the value width)")
def scale(cand, ref, rng):
    # The divisor is read off the candidate's own weights: within a row, log weight against the raw score
    # q k^T is a line of slope 1/divisor over the keys that get weight, whatever happens to the others.
    # d_k = 7 is no perfect square: an integer square root (math.isqrt, int(d_k ** 0.5)) shows there.
    for T, d_k, d_v in ((7, 9, 4), (6, 16, 3), (5, 7, 3)):
        q, k, v = _divisor_problem(rng, T, d_k, d_v)
        _, w, dims = _attend(cand, q, k, v)
        raw = q @ k.T
        c = softmax_divisor(w, raw)
        if c is None:  # a softmax over the queries (axis 0) still shows its divisor down each column
            c = softmax_divisor(w.T, raw.T)
        right = np.sqrt(d_k)
        if c is not None and abs(c - right) <= 1e-4 * right:
            continue
        where = f"causal_attention with q {shape_of(q)}, k {shape_of(k)}, v {shape_of(v)} ({dims})"
        if c is None:
            raise Fail(f"{where}: the weights are not softmax(q k^T / c) over the keys each query sees for any "
                       f"single divisor c, so the scale cannot be judged on its own; fix the other failures "
                       f"first (the mask, the softmax axis), then this check can read the divisor")
        for divisor, what, fix in _wrong_divisors(T, d_k, d_v):
            if abs(c - divisor) <= 1e-4 * divisor:
                raise Fail(f"{where}: the weights are softmax(q k^T / {fmt(c)}), so the scores are divided by "
                           f"{what}; {fix}")
        raise Fail(f"{where}: the weights are softmax(q k^T / {fmt(c)}), expected the scores divided by "
                   f"sqrt(d_k) = sqrt({d_k}) = {fmt(right)}, with d_k = q.shape[1]")


@invariant("matches-reference", "out and weights match a reference to rtol 1e-6, square shapes and T = 1,031 included")
def matches_reference(cand, ref, rng):
    for T, d_k, d_v in REFERENCE_SHAPES:
        for s in (0.5, 2.0):
            q, k, v = _qkv(rng, T, d_k, d_v, scale=s)
            out, w, dims = _attend(cand, q, k, v)
            want_out, want_w = ref.causal_attention(q, k, v)
            check_close(w, want_w, f"weights ({dims})")
            check_close(out, want_out, f"out ({dims})")
    # A query of zeros, and a key of zeros: scores of exactly 0 (see with_zero_rows).
    for T, d_k, d_v in ((6, 4, 3), (5, 5, 5)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        q, i = with_zero_rows(rng, q, low=1)
        k, j = with_zero_rows(rng, k)
        out, w, dims = _attend(cand, q, k, v)
        want_out, want_w = ref.causal_attention(q, k, v)
        context = f"query {i} and key {j} are all zeros, so their scores are exactly 0; {ZERO_SCORES}"
        check_close(w, want_w, f"weights ({dims})", context=context)
        check_close(out, want_out, f"out ({dims})", context=context)
    # Long sequences: code that changes precision or method above some length (float32 for long inputs, to save
    # memory) is right on every small problem above. Scores of about +-25 make float32's rounding of them show in
    # the weights well above rtol 1e-6.
    watch = Stopwatch()

    def long(rung):
        T = rung.value
        q, k, v = normal(rng, (T, 4), scale=5.0), normal(rng, (T, 4), scale=5.0), normal(rng, (T, 3))
        want = meanwhile(ref.causal_attention, q, k, v)
        with watch:
            out, w, dims = _attend(cand, q, k, v)
        want_out, want_w = want()
        check_close_fast(w, want_w, f"weights ({dims})")
        check_close_fast(out, want_out, f"out ({dims})")

    up_to_long(long, watch)


def _allowed_share(w, rows):
    """Each row's weights as a share of the keys its query may see (j <= i); nan where they sum to 0."""
    T = w.shape[-1]
    allowed = np.tril(np.ones((T, T), dtype=bool))[rows]
    kept = np.where(allowed, w[rows], 0.0)
    with np.errstate(all="ignore"):
        return kept / kept.sum(axis=-1, keepdims=True), allowed


def _shift_mismatch(w, out, w0, out0, rows):
    """Where (w, out) differs from (w0, out0) beyond rounding in the given rows, judged as attention sees it.

    The weights are compared as shares of the keys each query may see (weight leaking onto the future at large
    scores is for upper-triangle-zero to report); out only in rows whose weights came out the same.
    Returns None or (kind, (i, j), got, want).
    """
    share, allowed = _allowed_share(w, rows)
    share0, _ = _allowed_share(w0, rows)
    base_ok = np.isfinite(share0).all(axis=-1) & (np.where(allowed, w0[rows], 0.0).sum(axis=-1) > 1e-290)
    kept = np.where(allowed, w[rows], 0.0).sum(axis=-1)
    leaked = np.where(allowed, 0.0, w[rows]).sum(axis=-1)
    lost = base_ok & (kept <= 1e-290) & (leaked == 0)  # the whole row came out 0
    if lost.any():
        r = int(np.argmax(lost))
        return "underflow", (rows[r], 0), 0.0, 1.0
    # a row whose weight all went to keys its query may not see is for upper-triangle-zero to report
    base_ok &= kept > 1e-290
    bad = base_ok[:, None] & allowed & ~isclose(share, share0, rtol=1e-6, atol=1e-9)
    if bad.any():
        r, j = (int(i) for i in np.argwhere(bad)[0])
        plain = not (leaked[r] or np.where(allowed[r], 0.0, w0[rows[r]]).any())  # share == weight here
        return ("weights" if plain else "share"), (rows[r], j), share[r, j], share0[r, j]
    same_rows = [i for i in rows if allclose(w[i], w0[i], rtol=1e-6, atol=1e-9)]
    for i in same_rows:
        bad = ~isclose(out[i], out0[i], rtol=1e-6, atol=1e-9)
        if bad.any():
            j = int(np.argmax(bad))
            return "out", (i, j), out[i, j], out0[i, j]
    return None


_STABLE_FIX = ("subtract each row's maximum over the keys it may see before np.exp (axis=-1, keepdims=True), "
               "mask with -np.inf (or -1e9) before taking that maximum, and keep the computation in float64")


@invariant("stable", "no overflow or 0/0 with scores near +-1e4, rows at very different scales, or each "
                      "row's maximum at a random visible key")
def stable(cand, ref, rng):
    # Every verdict compares the candidate with itself: the same q, k and v at scores of about 1 against the
    # same problem moved to scores of about 1e4 by a change attention must ignore. Where the candidate already
    # gives nan at scores of about 1, or already breaks that invariance there, the other checks report it and
    # this one only asks that the large scores give finite numbers.
    # T = d_k = d_v: a size taken from the wrong dimension still runs here (and is reported by `shape` and the
    # others), so only the numerics are judged
    T, d_k, d_v = 6, 6, 6
    big = 1e4 * np.sqrt(d_k)  # m * u added to the keys moves the scores of a row with along = 1 by m / sqrt(d_k)
    profiles = [
        (np.ones(T), [("every score of every row moved up by about 1e4", big, None),
                      ("every score of every row moved down by about 1e4", -big, None),
                      ("the last key scoring about 1e4 above the others, in the masked future of every earlier "
                       "query", big, "last")]),
        (np.array([0.5, -1.0, 1.0, 1e-3, -0.2, 0.05]),
         [("rows at very different scales: each row's scores moved by 5e3, -1e4, 1e4, 10, -2e3 and 500",
           big, None)]),
    ]
    for along, cases in profiles:
        q, k, v, u = row_shift_problem(rng, T, d_k, d_v, along)
        out0, w0, dims = _attend(cand, q, k, v)
        if not (np.isfinite(w0).all() and np.isfinite(out0).all()):
            continue  # nan or inf already at scores of about 1: another bug, reported by the other checks
        for name, m, which in cases:
            rows = list(range(T - 1)) if which == "last" else list(range(T))
            keys = slice(T - 1, T) if which == "last" else slice(0, T)
            moved = []
            for amount in (2.0 * np.sqrt(d_k) * np.sign(m), m):  # the same change at scores of about 1, then 1e4
                k2 = k.copy()
                k2[keys] += amount * u
                moved.append(_attend(cand, q, k2, v)[:2])
            (out_m, w_m), (out_x, w_x) = moved
            # does the candidate itself ignore this change at scores of about 1? (its weights, not just their shares)
            holds = (allclose(w_m[rows], w0[rows], rtol=1e-6, atol=1e-9)
                     and allclose(out_m[rows], out0[rows], rtol=1e-6, atol=1e-9))
            what = f"causal_attention ({dims}) with {name}"
            for arr, label in ((w_x, "weights"), (out_x, "out")):
                bad = ~np.isfinite(arr)
                if bad.any():
                    i, j = (int(x) for x in np.argwhere(bad)[0])
                    raise Fail(f"{what}: {label}[{i}, {j}] is {fmt(arr[i, j])} (overflow or 0/0), while the same "
                               f"q, k and v at scores of about 1 give finite {label}: {_STABLE_FIX}")
            if not holds:
                continue
            found = _shift_mismatch(w_x, out_x, w0, out0, rows)
            if found is None:
                continue
            kind, (i, j), got, want = found
            if which == "last":
                why = (f"query {i} may not see the last key, so its weights and output must stay what they are "
                       f"at scores of about 1")
            else:
                why = (f"the same number is added to every score of row {i}, which a softmax ignores, so the "
                       f"weights and output must stay what they are at scores of about 1")
            if kind == "underflow":
                raise Fail(f"{what}: every weight of row {i} came out 0 ({why}): {_STABLE_FIX}")
            if kind == "out":
                raise Fail(f"{what}: out[{i}, {j}] {is_expected(got, want)} ({why}): {_STABLE_FIX}")
            share = "" if kind == "weights" else f" as a share of the keys query {i} may see"
            raise Fail(f"{what}: weights[{i}, {j}]{share} {is_expected(got, want)} ({why}): "
                       f"{_STABLE_FIX}")
    _stable_peaked(cand, ref, rng)


def _stable_peaked(cand, ref, rng):
    """Each row's largest score at a random key its query may see, far above the rest of the row (up to about
    1e4), the rows at very different offsets. A softmax shifted by the diagonal's score, the first key's, the row
    mean or one global maximum overflows here; only each row's own maximum over the keys it sees keeps it finite.

    Judged against the reference only where the candidate matches it on an ordinary problem of the same shapes
    (a wrong scale or mask is for the other checks); a nan or inf where the ordinary problem gives finite numbers
    is this check's either way."""
    T, d_k, d_v = 24, 4, 3
    q0, k0, v0 = _qkv(rng, T, d_k, d_v)
    moderate = attempt(_attend, cand, q0, k0, v0)
    if isinstance(moderate, Broke):
        return  # fails on an ordinary problem: for the other checks
    out0, w0, dims = moderate
    if not (np.isfinite(out0).all() and np.isfinite(w0).all()):
        return
    want_out0, want_w0 = ref.causal_attention(q0, k0, v0)
    matches = allclose(w0, want_w0, rtol=1e-6, atol=1e-9) and allclose(out0, want_out0, rtol=1e-6, atol=1e-9)
    q, k, _ = peaked_qk(rng, (), T, T, d_k, allowed=~_future(T))
    v = normal(rng, (T, d_v))
    out, w, dims = _attend(cand, q, k, v)
    scores = np.where(_future(T), -np.inf, q @ k.T / np.sqrt(d_k))
    what = (f"causal_attention ({dims}) with each row's largest score at a random key its query may see, up to "
            "about 1e4 and far above the rest of the row")
    for arr, label in ((w, "weights"), (out, "out")):
        bad = ~np.isfinite(arr)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            raise Fail(f"{what}: {label}[{i}, {j}] is {fmt(arr[i, j])} (overflow or 0/0) where "
                       f"{peak_text(scores, (i,))}, while an ordinary problem of the same shapes gives finite "
                       f"{label}: {_STABLE_FIX}")
    if not matches:
        return
    want_out, want_w = ref.causal_attention(q, k, v)
    for got, want, label in ((w, want_w, "weights"), (out, want_out, "out")):
        bad = ~isclose(got, want, rtol=1e-6, atol=1e-9)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            raise Fail(f"{what}: {label}[{i}, {j}] {is_expected(got[i, j], want[i, j])}, where "
                       f"{peak_text(scores, (i,))}; the same code matches on an ordinary problem: {_STABLE_FIX}")


@invariant("input-unchanged", "q, k and v are not modified")
def input_unchanged(cand, ref, rng):
    # Every call of every check is also judged for changes in place (the long rung of matches-reference among
    # them); here the shapes that take other code paths: T = 1, d_k = 1, T = d_k = d_v.
    for T, d_k, d_v in ((5, 4, 3), (4, 2, 6), (1, 3, 2), (6, 1, 4), (5, 5, 5)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        for _ in range(2):  # a second call would see the damage of the first
            try:
                _, after, _ = cand.call_tracking_args("causal_attention", q, k, v)
            except CandidateError as err:
                raise _with_shapes(err, q, k, v) from None
            for name, before, now in zip("qkv", (q, k, v), after, strict=True):
                check_unchanged(before, now, f"{name} of shape {shape_of(before)}")


# -- known mistakes, recognised by behaviour on a few probes (see attnprep.diagnosis) --------

def probes(rng):
    yield "causal_mask", (4,), {}
    yield "causal_mask", (7,), {}
    # T, d_k and d_v all different: the masking, scaling and axis mistakes (a mistake on the sizes raises here)
    yield "causal_attention", _qkv(rng, 5, 4, 3, scale=1.5), {}
    # square T == d_k: a missing transpose runs (with the wrong numbers); a d_v unlike d_k breaks out like q
    yield "causal_attention", _qkv(rng, 4, 4, 2, scale=1.5), {}
    # d_k = 1: a mask sized from d_k broadcasts to no mask at all instead of raising
    yield "causal_attention", _qkv(rng, 5, 1, 3, scale=1.5), {}
    T, d_k = 6, 4
    big = np.sqrt(1e4 * np.sqrt(d_k))  # q and k of this size give scores of about 1e4
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    # rows at very different scales, the largest near +-1e4: exp overflows without a max subtraction, and a
    # small row far below one global max underflows to 0/0
    rows = np.array([1e-2, 1.0, 2.0, 0.1, 1.0, 0.5])[:, None] * big * u + rng.normal(scale=0.1, size=(T, d_k))
    yield "causal_attention", (rows, big * u + rng.normal(scale=0.1, size=(T, d_k)), rng.normal(size=(T, 3))), {}
    # the last key scores about +1e4 for every earlier query, i.e. only in their masked future, and about 0
    # elsewhere: a row maximum taken before the mask underflows those rows to 0/0, one global maximum does not
    q = big * u + rng.normal(scale=0.1, size=(T, d_k))
    q[-1] = rng.normal(size=d_k)
    k = rng.normal(size=(T, d_k))
    k[-1] = big * u
    yield "causal_attention", (q, k, rng.normal(size=(T, 3))), {}
    # every score about -1e4, then scores rising from -1e4 to +1e4 along the keys: a finite fill of -1e4, put in
    # place or added, leaks into the future here; -inf and -1e9 do not
    for _, q, k in _big_scores(rng, T, d_k):
        yield "causal_attention", (q, k, rng.normal(size=(T, 3))), {}


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1)): "
         "position i always attends to itself", fn="causal_mask")
def _mask_diagonal(T):
    return np.triu(np.ones((T, T), dtype=bool))


@mistake("mask-blocks-past", "block the future, key j > query i (above the diagonal, np.triu(..., k=1)), "
         "not the past below it", fn="causal_mask")
def _mask_past(T):
    return np.tril(np.ones((T, T), dtype=bool), k=-1)


@mistake("mask-inverted", "return True for the blocked positions (the future, key j > query i) and False for "
         "the allowed ones, not the other way round", fn="causal_mask")
def _mask_inverted(T):
    return np.tril(np.ones((T, T), dtype=bool))


def _variant(q, k, v, *, divide_by=None, blocked=None, fill=-np.inf, additive=False, axis=-1, max_of="row",
             mask_after=None, transpose=True):
    """causal_attention with one known mistake switched on.

    blocked(T) is the mask used; max_of is "row" (each row's max over the keys it may see), "none", "all"
    (one max of the whole array) or "unmasked" (each row's max taken before the mask, over every key);
    mask_after is None, "softmax" (zero the future after it, no renormalising) or "exp" (zero it after exp).
    """
    T, d_k = q.shape
    s = (q @ (k.T if transpose else k)) / (np.sqrt(d_k) if divide_by is None else divide_by(q, v))
    m = (blocked or _future)(T)
    if max_of == "unmasked":
        s = s - s.max(axis=axis, keepdims=True)
    if mask_after is None:
        s = s + fill * m if additive else np.where(m, fill, s)
    if max_of == "row":
        s = s - s.max(axis=axis, keepdims=True)
    elif max_of == "all":
        s = s - s.max()
    e = np.exp(s)
    if mask_after == "exp":
        e = e * ~m
    w = e / e.sum(axis=axis, keepdims=True)
    if mask_after == "softmax":
        w = np.where(m, 0.0, w)
    return w @ v, w


def _future(T):
    return np.triu(np.ones((T, T), dtype=bool), k=1)


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1), "
         "or np.tril(...) for the allowed keys): position i always attends to itself", fn="causal_attention")
def _attention_diagonal(q, k, v):
    return _variant(q, k, v, blocked=_mask_diagonal)


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1), "
         "or np.tril(...) for the allowed keys): position i always attends to itself", fn="causal_attention")
def _attention_diagonal_finite(q, k, v):
    return _variant(q, k, v, blocked=_mask_diagonal, fill=-1e9)


@mistake("mask-includes-diagonal", "mask only the positions strictly above the diagonal (np.triu(..., k=1), "
         "or np.tril(...) for the allowed keys): position i always attends to itself", fn="causal_attention")
def _attention_diagonal_additive(q, k, v):
    return _variant(q, k, v, blocked=_mask_diagonal, fill=-1e9, additive=True)


@mistake("mask-blocks-past", "mask the future, key j > query i (above the diagonal), not the past below it",
         fn="causal_attention")
def _attention_past(q, k, v):
    return _variant(q, k, v, blocked=_mask_past)


@mistake("mask-after-softmax", "mask the scores with -inf before the softmax; zeroing the future weights "
         "afterwards leaves rows that no longer sum to one", fn="causal_attention")
def _mask_after_softmax(q, k, v):
    return _variant(q, k, v, max_of="unmasked", mask_after="softmax")


@mistake("mask-after-exp", "mask the scores with -inf before taking each row's maximum and exp: a maximum taken "
         "over the masked future can underflow every allowed key to 0", fn="causal_attention")
def _mask_after_exp(q, k, v):
    return _variant(q, k, v, max_of="unmasked", mask_after="exp")


@mistake("mask-times-inf", "put -inf into the masked scores with np.where(mask, -np.inf, scores): an additive "
         "mask built as mask * -inf is 0 * -inf = nan on every allowed key", fn="causal_attention")
def _mask_times_inf(q, k, v):
    return _variant(q, k, v, fill=-np.inf, additive=True)


@mistake("mask-fill-too-small", "fill the future with -np.inf (or -1e9), not -1e4: next to scores of about 1e4 "
         "a fill of -1e4 leaves the future with weight", fn="causal_attention")
def _mask_fill_1e4(q, k, v):
    return _variant(q, k, v, fill=-1e4)


@mistake("mask-fill-too-small", "fill the future with -np.inf (or -1e9), not -1e4: next to scores of about 1e4 "
         "a fill of -1e4 leaves the future with weight", fn="causal_attention")
def _mask_add_1e4(q, k, v):
    return _variant(q, k, v, fill=-1e4, additive=True)


@mistake("weights-before-mask", "return the weights after masking, the same ones that make out, not the softmax "
         "of the unmasked scores", fn="causal_attention")
def _weights_before_mask(q, k, v):
    out, _ = _variant(q, k, v)
    _, unmasked = _variant(q, k, v, blocked=lambda T: np.zeros((T, T), dtype=bool))
    return out, unmasked


@mistake("softmax-over-queries", "take the softmax over the keys, the last axis (axis=-1), not over the queries "
         "(axis 0)", fn="causal_attention")
def _softmax_over_queries(q, k, v):
    return _variant(q, k, v, axis=0)


@mistake("missing-scale", "divide the scores q k^T by sqrt(d_k) before the softmax", fn="causal_attention")
def _missing_scale(q, k, v):
    return _variant(q, k, v, divide_by=lambda q, v: 1.0)


@mistake("scale-by-d-k", "divide the scores by sqrt(d_k), not by d_k", fn="causal_attention")
def _scale_by_d_k(q, k, v):
    return _variant(q, k, v, divide_by=lambda q, v: q.shape[1])


@mistake("scale-by-d-v", "take the scale from d_k, the width of q and k (q.shape[1]), not from the width of v",
         fn="causal_attention")
def _scale_by_d_v(q, k, v):
    return _variant(q, k, v, divide_by=lambda q, v: np.sqrt(v.shape[1]))


@mistake("no-max-subtraction", "subtract each row's maximum from the masked scores before np.exp: scores near 1e4 "
         "overflow, and near -1e4 give 0/0", fn="causal_attention")
def _no_max_subtraction(q, k, v):
    return _variant(q, k, v, max_of="none")


@mistake("global-max", "subtract each row's own maximum (axis=-1, keepdims=True), not one maximum of the whole "
         "score matrix", fn="causal_attention")
def _global_max(q, k, v):
    return _variant(q, k, v, max_of="all")


@mistake("missing-transpose", "multiply q by the transpose of k (q @ k.T): the scores are the dot products of "
         "query rows with key rows", fn="causal_attention")
def _missing_transpose(q, k, v):
    return _variant(q, k, v, transpose=False)


@mistake("mask-from-d-k", "T is q.shape[0] and d_k is q.shape[1]: size the mask (T, T) from the sequence length "
         "and scale by sqrt(d_k)", fn="causal_attention")
def _mask_from_d_k(q, k, v):
    d_k, T = q.shape  # the two sizes swapped
    s = np.where(_future(T), -np.inf, q @ k.T / np.sqrt(d_k))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w


@mistake("out-like-q", "give out the shape (T, d_v), the width of v (np.zeros((T, v.shape[1]))), not the shape "
         "of q", fn="causal_attention")
def _out_like_q(q, k, v):
    _, w = _variant(q, k, v)
    out = np.zeros_like(q)
    for i in range(q.shape[0]):
        out[i] = w[i] @ v
    return out, w


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, then scores in the thousands, which overflow any other shift
    yield from _first_probes(rng)
    yield "causal_attention", (40.0 * rng.normal(size=(5, 4)), 40.0 * rng.normal(size=(5, 4)),
                               rng.normal(size=(5, 3))), {}
    # a query of zeros: its scores are exactly 0, which code that marks blocked entries by a 0 takes for blocked
    q = rng.normal(size=(5, 4))
    q[2] = 0.0
    yield "causal_attention", (q, rng.normal(size=(5, 4)), rng.normal(size=(5, 3))), {}


def _causal(q, k, v, *, shift=None, dtype=np.float64, divisor=None, k_q=False, zeros_not_inf=False,
            out_unmasked=False, out_transposed=False, zeros_blocked=False):
    """causal_attention with one known mistake switched on (shift(raw scores, blocked) replaces the row max)."""
    q, k, v = (np.asarray(a, dtype=dtype) for a in (q, k, v))
    T, d_k = q.shape
    s = (k @ q.T if k_q else q @ k.T) / np.asarray(np.sqrt(d_k) if divisor is None else divisor(d_k), dtype=dtype)
    blocked = _future(T)

    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if zeros_not_inf:
        w = softmax(np.tril(s))
    elif zeros_blocked:  # np.tril, then every 0 taken for a blocked entry, a real score of 0 included
        m = np.tril(s)
        m[m == 0] = -np.inf
        w = softmax(m)
    else:
        m = np.where(blocked, -np.inf, s)
        e = np.exp(m - (m.max(axis=-1, keepdims=True) if shift is None else shift(s, blocked)))
        w = e / e.sum(axis=-1, keepdims=True)
    out = softmax(s) @ v if out_unmasked else (w.T if out_transposed else w) @ v
    return out, w


def _causal_with(**switches):
    def causal_attention(q, k, v):
        return _causal(q, k, v, **switches)
    return causal_attention


def _visible_mean(s, blocked):
    return np.where(blocked, 0.0, s).sum(axis=-1, keepdims=True) / (~blocked).sum(axis=-1, keepdims=True)


_mistake_allowed_tril_k1 = mistake(
    "allowed-includes-next", "the allowed keys are np.tril(..., k=0): with k=1 each query also sees the next key",
    fn="causal_mask")(lambda T: ~np.tril(np.ones((T, T), dtype=bool), k=1))
_mistake_diag_shift = mistake(
    "shift-by-diagonal", "subtract each row's maximum before np.exp, not its diagonal score: a larger score in the "
    "row still overflows", fn="causal_attention")(_causal_with(shift=lambda s, b: np.diag(s)[:, None]))
_mistake_first_key_shift = mistake(
    "shift-by-first-key", "subtract each row's maximum before np.exp, not the first key's score: a larger score in "
    "the row still overflows", fn="causal_attention")(_causal_with(shift=lambda s, b: s[:, :1]))
_mistake_mean_shift = mistake(
    "shift-by-mean", "subtract each row's maximum before np.exp, not the mean of its visible scores: a score far "
    "above the mean still overflows", fn="causal_attention")(_causal_with(shift=_visible_mean))
_mistake_float32 = mistake(
    "float32-arithmetic", "compute in float64: float32 keeps about seven digits, which large scores turn into "
    "visible errors in the weights", fn="causal_attention")(_causal_with(dtype=np.float32))
_mistake_out_unmasked = mistake(
    "out-before-mask", "compute out from the masked weights, the ones returned: out here still sees the future",
    fn="causal_attention")(_causal_with(out_unmasked=True))
_mistake_out_transposed = mistake(
    "out-transposed-weights", "compute out = weights @ v, not weights.T @ v: row i of the weights is what query i "
    "reads", fn="causal_attention")(_causal_with(out_transposed=True))
_mistake_scale_precedence = mistake(
    "scale-precedence", "divide by np.sqrt(d_k): `/ d_k ** 1/2` is read as (/ d_k) / 2", fn="causal_attention")(
    _causal_with(divisor=lambda d_k: d_k * 2))
_mistake_scale_precedence_grouped = mistake(
    "scale-precedence", "divide by np.sqrt(d_k): `/ (d_k ** 1/2)` is read as / (d_k / 2), half of d_k",
    fn="causal_attention")(_causal_with(divisor=lambda d_k: d_k / 2))
_mistake_scores_k_q = mistake(
    "scores-k-q-transposed", "compute the scores as q @ k.T, not k @ q.T: entry [i, j] pairs query i with key j",
    fn="causal_attention")(_causal_with(k_q=True))
_mistake_tril_scores = mistake(
    "tril-scores", "set the future scores to -inf (np.where(mask, -np.inf, scores)); np.tril(scores) sets them to 0, "
    "and exp(0) still gives them weight", fn="causal_attention")(_causal_with(zeros_not_inf=True))
_mistake_zeros_blocked = mistake(
    "zero-scores-blocked", "mark the future with the mask itself (np.where(mask, -np.inf, scores)), not by the zeros "
    "np.tril leaves: a real score can be exactly 0 (a query of zeros, or one orthogonal to a key)",
    fn="causal_attention")(_causal_with(zeros_blocked=True))


@mistake("scale-folded-in-place", "scale a copy (q / sqrt(d_k)) or the scores, not q with /=, which changes the "
         "caller's queries", fn="causal_attention")
def _causal_scale_in_place(q, k, v):
    out = _causal(q, k, v)
    q /= np.sqrt(q.shape[1])
    return out


@mistake("missing-keepdims", "reduce with keepdims=True so each row's max and sum broadcast back over the keys",
         fn="causal_attention")
def _causal_missing_keepdims(q, k, v):
    s = np.where(_future(q.shape[0]), -np.inf, q @ k.T / np.sqrt(q.shape[1]))
    e = np.exp(s - s.max(axis=-1))
    w = e / e.sum(axis=-1)
    return w @ v, w
