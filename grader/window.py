"""Hidden checks for the `window` exercise."""

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
    check_shape,
    check_unchanged,
    expect_raises,
    fmt,
    invariant,
    isclose,
    mistake,
    shape_of,
    softmax_divisor,
    unpack,
    worst_entry,
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

FUNCTIONS = ("sliding_window_mask", "window_attention")


# -- helpers --------------------------------------------------------------------

def _blocked(T, window):
    """The expected mask, computed independently of the reference."""
    i, j = np.indices((T, T))
    return (j > i) | (i - j >= window)


def _why(i, j, window):
    if j > i:
        return f"key {j} is in the future of query {i}"
    if i - j >= window:
        return f"i - j = {i - j} >= window = {window}: key {j} has left the window of query {i}"
    if i == j:
        return "the diagonal (a position seeing itself) is never blocked"
    return f"i - j = {i - j} < window = {window}: key {j} is inside the window of query {i}"


def _qkv(rng, T, d_k, d_v, scale=1.0):
    return (rng.normal(scale=scale, size=(T, d_k)), rng.normal(scale=scale, size=(T, d_k)),
            rng.normal(size=(T, d_v)))


def _call(cand, fn, label, *args):
    """Call the candidate; an exception is reported with the call that raised it."""
    return cand.call_as(label, fn, *args)


def _mask(cand, T, window):
    label = f"sliding_window_mask({T}, {window})"
    m = as_array(_call(cand, "sliding_window_mask", label, T, window), label, numeric=False)
    check_shape(m, (T, T), label)
    if m.dtype != np.bool_:
        raise Fail(f"{label} has dtype {m.dtype}, expected bool (True = blocked)")
    return m, label


def _attend(cand, q, k, v, window):
    """(out, weights, label), with both shapes checked."""
    label = f"window_attention(q {shape_of(q)}, k {shape_of(k)}, v {shape_of(v)}, window={window})"
    out, weights = unpack(_call(cand, "window_attention", label, q, k, v, window), 2, label)
    out, weights = as_float(out, f"out of {label}"), as_float(weights, f"weights of {label}")
    check_shape(out, (q.shape[0], v.shape[1]), f"out of {label}")
    check_shape(weights, (q.shape[0], k.shape[0]), f"weights of {label}")
    return out, weights, label


def _causal_attention(q, k, v, divisor=None):
    """Plain causal attention (scores divided by `divisor`, sqrt(d_k) by default)."""
    T = q.shape[0]
    scores = q @ k.T / (np.sqrt(q.shape[1]) if divisor is None else divisor)
    scores = np.where(np.triu(np.ones((T, T), dtype=bool), 1), -np.inf, scores)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    return w @ v, w


def _check_blocked_zero(weights, T, window, label, context=""):
    # A row whose open weights are nan or inf too is a 0/0 or an overflow of the whole softmax (an empty row, no
    # max subtraction), which sum-to-one and stable report; only rows whose open weights are finite show what
    # the blocked entries hold.
    judged = np.isfinite(np.where(_blocked(T, window), 0.0, weights)).all(axis=1)[:, None]
    bad = judged & _blocked(T, window) & (weights != 0.0)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        ctx = f" ({context})" if context else ""
        raise Fail(f"weights of {label}: entry [{i}, {j}] is {fmt(weights[i, j])}, expected exactly 0.0: "
                   f"{_why(i, j, window)}{ctx}")


# -- invariants ----------------------------------------------------------------

@invariant("mask", "sliding_window_mask is True exactly on the future and where i - j >= window")
def mask(cand, ref, rng):
    cases = [(6, 3), (5, 1), (4, 4), (4, 10), (1, 1), (7, 2), (8, 5), (9, np.int64(4))]
    cases.append((int(rng.integers(5, 12)), int(rng.integers(2, 6))))
    for T, window in cases:
        m, label = _mask(cand, T, window)
        want = _blocked(T, window)
        if T > 1 and np.array_equal(m, ~want):
            raise Fail(f"{label} is True exactly where query i may attend to key j: that is the opposite "
                       "convention. Here True means blocked: the future (j > i) and keys with i - j >= window")
        if not np.array_equal(m, want):
            i, j = (int(x) for x in np.argwhere(m != want)[0])
            raise Fail(f"{label}[{i}, {j}] is {bool(m[i, j])}, expected {bool(want[i, j])}: {_why(i, j, window)}")


@invariant("shape", "window_attention returns (out, weights) of shapes (T, d_v) and (T, T)")
def shape(cand, ref, rng):
    for T, d_k, d_v, window in ((6, 4, 3, 3), (1, 3, 2, 1), (5, 8, 2, 2), (7, 2, 5, 10)):
        _attend(cand, *_qkv(rng, T, d_k, d_v), window)


@invariant("row-counts", "row i attends to min(i + 1, window) positions")
def row_counts(cand, ref, rng):
    for T, window in ((8, 3), (6, 1), (5, 5), (7, 2), (4, 9)):
        m, label = _mask(cand, T, window)
        open_ = (~m).sum(axis=1)
        for i in range(T):
            if open_[i] != min(i + 1, window):
                raise Fail(f"{label}: row {i} leaves {open_[i]} positions open (False), expected "
                           f"min({i} + 1, {window}) = {min(i + 1, window)}")
        q, k, v = _qkv(rng, T, 4, 3)
        _, weights, label = _attend(cand, q, k, v, window)
        seen = (weights != 0.0).sum(axis=1)
        for i in range(T):
            if seen[i] != min(i + 1, window):
                cols = np.flatnonzero(weights[i] != 0.0).tolist()
                raise Fail(f"{label}: row {i} of the weights attends to {seen[i]} positions {cols}, "
                           f"expected min({i} + 1, {window}) = {min(i + 1, window)}")


@invariant("blocked-zero", "blocked weights are exactly 0.0, even when blocked keys score far higher")
def blocked_zero(cand, ref, rng):
    for T, window in ((7, 3), (6, 2), (5, 1)):
        q, k, v = _qkv(rng, T, 4, 3, scale=2.0)
        _, weights, label = _attend(cand, q, k, v, window)
        _check_blocked_zero(weights, T, window, label)
    # Scores that grow (or shrink) by about 1e4 per position: the blocked future
    # (or the blocked past) outscores every open key by thousands.
    T, window = 6, 2
    for direction, what in ((1.0, "later keys score about 1e4 higher per step"),
                            (-1.0, "earlier keys score about 1e4 higher per step")):
        q = np.column_stack([np.full(T, 100.0), rng.normal(size=T)])
        pos = np.arange(T) if direction > 0 else np.arange(T)[::-1]
        k = np.column_stack([pos * 100.0 * np.sqrt(2.0), rng.normal(size=T)])
        v = rng.normal(size=(T, 3))
        _, weights, label = _attend(cand, q, k, v, window)
        _check_blocked_zero(weights, T, window, label, what)
    # Every score near -1e4 at d_k = 128, where a fill put in before dividing by sqrt(d_k) shrinks above them.
    q, k = sunken_qk(rng, (), T, T, WIDE_HEAD)
    _, weights, label = _attend(cand, q, k, normal(rng, (T, 3)), window)
    _check_blocked_zero(weights, T, window, label, f"every score near -1e4 and d_k = {WIDE_HEAD}: "
                        f"{fill_before_scale(WIDE_HEAD)}")
    # Nor may the blocked keys reach out (the weights returned need not be the ones out was made with): the values
    # of key 0 (outside the window of rows >= window) and of the last key (the future of every other row) grow to
    # 1e30, which a weight of exp(-60), left by a finite fill below the row's scores, moves by 1e4.
    T, window = 7, 3
    q, k, v = _qkv(rng, T, 4, 3)
    out, _, label = _attend(cand, q, k, v, window)
    v_far = v.copy()
    v_far[[0, -1]] += 1e30
    out_far, _, _ = _attend(cand, q, k, v_far, window)
    for i in range(window, T - 1):
        if not np.allclose(out_far[i], out[i], rtol=1e-9, atol=1e-12, equal_nan=True):
            raise Fail(f"out of {label}: row {i} changed from {fmt(out[i, 0])}, ... to {fmt(out_far[i, 0])}, ... when "
                       f"the value rows of key 0 and key {T - 1} grew to 1e30, though row {i} blocks both: a blocked "
                       "key must get weight exactly 0 in out too (mask with -np.inf, before the softmax, and make "
                       "out from the same weights you return)")


@invariant("sum-to-one", "every row of the weights sums to one")
def sum_to_one(cand, ref, rng):
    for T, window, s in ((7, 3, 1.0), (6, 1, 1.0), (8, 4, 5.0), (5, 20, 0.3)):
        q, k, v = _qkv(rng, T, 3, 2, scale=s)
        _, weights, label = _attend(cand, q, k, v, window)
        check_close(weights.sum(axis=1), np.ones(T), f"the row sums of the weights of {label}",
                    rtol=1e-6, atol=1e-9,
                    context="mask the scores before the softmax so the open entries still sum to one")


@invariant("window-one", "window = 1: each position attends only to itself, so out == v")
def window_one(cand, ref, rng):
    # Judged on what the statement is about: with window = 1 no key but the query's own may get weight, and each
    # output row is that one weight times its value row. Whether that weight is 1 (rows that sum to one) is for
    # sum-to-one; when it is, out must be v itself.
    for T, d_k, d_v in ((5, 3, 2), (1, 2, 4), (6, 4, 4)):
        q, k, v = _qkv(rng, T, d_k, d_v, scale=3.0)
        out, weights, label = _attend(cand, q, k, v, 1)
        context = "with window = 1 each position attends only to itself: the identity"
        off = ~np.eye(T, dtype=bool) & (weights != 0.0)
        if off.any():
            i, j = (int(x) for x in np.argwhere(off)[0])
            raise Fail(f"weights of {label}: entry [{i}, {j}] is {fmt(weights[i, j])}, expected 0 ({context}; "
                       f"{_why(i, j, 1)})")
        diag = np.diag(weights)
        bad = ~(np.isfinite(diag) & (diag > 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise Fail(f"weights of {label}: entry [{i}, {i}] is {fmt(diag[i])}, expected 1 ({context})")
        if allclose(diag, 1.0, rtol=1e-6, atol=1e-9):
            check_close(out, v, f"out of {label}", context="with window = 1 the output is v itself")
        else:
            check_close(out, diag[:, None] * v, f"out of {label}",
                        context="with window = 1 each output row is its own value row times its one weight")


@invariant("equals-causal", "window >= T gives exactly causal attention (and a causal mask)")
def equals_causal(cand, ref, rng):
    # Judged on the window alone: with window >= T the mask is the causal one, the weights give weight to exactly
    # the keys j <= i, and any window >= T gives the same result as any other. How the open scores become weights
    # (the scale, the softmax axis, the normalisation) is for scale, sum-to-one and matches-reference.
    for T, window in ((6, 6), (5, 8), (4, 10**6), (1, 1)):
        m, mlabel = _mask(cand, T, window)
        want = np.triu(np.ones((T, T), dtype=bool), 1)
        if not np.array_equal(m, want):
            i, j = (int(x) for x in np.argwhere(m != want)[0])
            raise Fail(f"{mlabel}[{i}, {j}] is {bool(m[i, j])}, expected {bool(want[i, j])}: with window >= T "
                       "only the future is blocked (a plain causal mask)")
        q, k, v = _qkv(rng, T, 4, 3)
        out, weights, label = _attend(cand, q, k, v, window)
        context = "window >= T, so this must be plain causal attention"
        leak = want & (weights != 0.0)
        if leak.any():
            i, j = (int(x) for x in np.argwhere(leak)[0])
            raise Fail(f"weights of {label}: entry [{i}, {j}] is {fmt(weights[i, j])}, expected exactly 0.0: "
                       f"key {j} is in the future of query {i} ({context})")
        lost = ~want & np.isfinite(weights).all(axis=1)[:, None] & ~(weights > 0)
        if lost.any():
            i, j = (int(x) for x in np.argwhere(lost)[0])
            raise Fail(f"weights of {label}: entry [{i}, {j}] is {fmt(weights[i, j])}, expected a positive "
                       f"weight: with window >= T every key j <= i is visible ({context})")
        other = T + 3 if window < T + 3 else T
        out2, weights2, label2 = _attend(cand, q, k, v, other)
        context = f"window={window} and window={other} are both >= T, so the window blocks nothing but the future"
        check_close(weights2, weights, f"weights of {label2}", context=context)
        check_close(out2, out, f"out of {label2}", context=context)


@invariant("prefix", "outputs for the first t positions do not depend on later positions")
def prefix(cand, ref, rng):
    T = 8
    for window in (3, 1, 8):
        q, k, v = _qkv(rng, T, 4, 3)
        out, weights, label = _attend(cand, q, k, v, window)
        for t in (1, 4, 7):
            q2, k2, v2 = q.copy(), k.copy(), v.copy()
            q2[t:] = rng.normal(size=q2[t:].shape) * 3.0
            k2[t:] = rng.normal(size=k2[t:].shape) * 3.0
            v2[t:] += 5.0
            out2, weights2, _ = _attend(cand, q2, k2, v2, window)
            context = (f"changing positions {t}..{T - 1} must not change the first {t} outputs: a query "
                       "never sees the future")
            check_close(out2[:t], out[:t], f"out[:{t}] of {label}", context=context)
            check_close(weights2[:t], weights[:t], f"weights[:{t}] of {label}", context=context)
            out3, weights3, label3 = _attend(cand, q[:t], k[:t], v[:t], window)
            context = f"cutting the sequence off after {t} positions must not change the first {t} outputs"
            check_close(out3, out[:t], f"out of {label3}", context=context)
            check_close(weights3, weights[:t, :t], f"weights of {label3}", context=context)


@invariant("scale", "scores are divided by sqrt(d_k)")
def scale(cand, ref, rng):
    # The divisor is read from the weights themselves (ratios of the weights a row gives its open keys), so a
    # wrong mask, a wrong normalisation or a wrong axis elsewhere does not show up here as a wrong scale.
    for T, d_k, d_v, window in ((7, 16, 3, 4), (6, 9, 2, 5), (9, 5, 4, 8)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        _, weights, label = _attend(cand, q, k, v, window)
        right = float(np.sqrt(d_k))
        c = softmax_divisor(weights, q @ k.T)
        if c is None:  # a softmax over the queries (axis 0) still shows its divisor down each column
            c = softmax_divisor(weights.T, (q @ k.T).T)
        if c is None:
            raise Fail(f"weights of {label}: no single divisor c makes them softmax(q k^T / c) over the keys of a "
                       "row (judged from the ratios of the weights each row gives its keys), so the scale cannot "
                       "be judged on its own; fix the other failures first (the softmax axis, the mask, the "
                       "weights returned)")
        if isclose(c, right, rtol=1e-4, atol=0.0):
            continue
        guesses = {"1 (no scaling)": 1.0, f"d_k = {d_k}": float(d_k),
                   f"sqrt(d_v) = sqrt({d_v}), the width of v": np.sqrt(d_v),
                   f"sqrt(T) = sqrt({T}), the sequence length": np.sqrt(T),
                   f"sqrt(window) = sqrt({window})": np.sqrt(window),
                   f"1/sqrt(d_k) = {fmt(1 / right)} (multiplied by sqrt(d_k) instead of divided)": 1.0 / right}
        named = next((name for name, div in guesses.items() if isclose(c, div, rtol=1e-4, atol=0.0)), None)
        what = f"the scores were divided by {named or fmt(c)}"
        raise Fail(f"weights of {label} with d_k = {d_k} are softmax(q k^T / c) with c = {fmt(c)}: {what}; "
                   f"divide q k^T by sqrt(d_k) = {fmt(right)}, d_k the width of q and k")


def _rows_finite(*arrays):
    """Per row: True where every entry of every array is finite."""
    return np.all([np.isfinite(a).all(axis=1) for a in arrays], axis=0)


def _attend_moderate(cand, q, k, v, window):
    """The call on a moderate problem, or None when it already fails there (another invariant's business)."""
    got = attempt(_attend, cand, q, k, v, window)
    return None if isinstance(got, Broke) else got


def _shifted(k, m):
    k = k.copy()
    k[:, 0] = m
    return k


def _check_shift(cand, T, d_k, d_v, window, shifts, name, advice, rng):
    """Scores of row i shifted by shifts[i] (every key moved along a direction the base keys do not use).

    Attention ignores a constant added to a whole row of scores, so the candidate's own result on the
    unshifted, moderate problem is what the shifted one must give."""
    q, k, v = _qkv(rng, T, d_k, d_v)
    k[:, 0] = 0.0  # the base keys are orthogonal to e_0 ...
    q[:, 0] = np.asarray(shifts, dtype=np.float64) * np.sqrt(d_k)  # ... and q . e_0 / sqrt(d_k) is the shift
    base = _attend_moderate(cand, q, k, v, window)
    if base is None:
        return
    out0, w0, _ = base
    out, weights, label = _attend(cand, q, _shifted(k, 1.0), v, window)
    fine = _rows_finite(out0, w0)
    bad = fine & ~_rows_finite(out, weights)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        arr, what = (weights, "weights") if not np.isfinite(weights[i]).all() else (out, "out")
        j = int(np.flatnonzero(~np.isfinite(arr[i]))[0])
        raise Fail(f"{what} of {label}: entry [{i}, {j}] is {fmt(arr[i, j])} with {name} (row {i} shifted by "
                   f"{fmt(shifts[i])}), but finite on the same problem without the shift: overflow or 0/0 in "
                   f"the softmax; {advice}")
    # Is the candidate's result unchanged by a small shift? If not, its softmax is not one over each row's keys
    # (other invariants say so) and only finiteness can be judged here.
    small = 3.0 / max(np.abs(shifts).max(), 1.0)
    _, w_small, _ = _attend(cand, q, _shifted(k, small), v, window)
    if not allclose(w_small[fine], w0[fine], rtol=1e-3, atol=1e-6):
        return
    for got, want, what in ((weights, w0, "weights"), (out, out0, "out")):
        idx = worst_entry(got[fine], want[fine], 1e-6, 1e-9)
        if idx is not None:
            i = int(np.flatnonzero(fine)[idx[0]])
            j = idx[1]
            raise Fail(f"{what} of {label}: entry [{i}, {j}] is {fmt(got[i, j])} with {name} (row {i} shifted by "
                       f"{fmt(shifts[i])}), but {fmt(want[i, j])} on the same problem without the shift; adding "
                       f"the same number to every score of a row must not change attention, so this is lost "
                       f"precision or an overflow; {advice}")


def _check_blocked_key(cand, T, d_k, d_v, window, key, name, advice, rng):
    """One key raised by about 1e4 for every query: the rows that may not see it must not change.

    A blocked key takes no part in a row's softmax, so the candidate's own result with that key at an ordinary
    score is what those rows must give; only rows where the key is blocked are judged."""
    q, k, v = _qkv(rng, T, d_k, d_v)
    k[:, 0] = 0.0
    q[:, 0] = np.sqrt(d_k)  # k[key, 0] = c raises key's score by c in every row
    base = _attend_moderate(cand, q, k, v, window)
    if base is None:
        return
    out0, w0, _ = base
    rows = np.flatnonzero(_blocked(T, window)[:, key] & _rows_finite(out0, w0))
    if rows.size == 0:
        return
    k_small = k.copy()
    k_small[key, 0] = 3.0
    _, w_small, _ = _attend(cand, q, k_small, v, window)
    if not allclose(w_small[rows], w0[rows], rtol=1e-6, atol=1e-9):
        return  # the candidate's rows already react to a blocked key at ordinary scores: blocked-zero's business
    k_big = k.copy()
    k_big[key, 0] = 1e4
    out, weights, label = _attend(cand, q, k_big, v, window)
    # a row that gives the blocked key weight leaks, which is for blocked-zero to report; nan or 0 stays judged
    leaks = (_blocked(T, window) & np.isfinite(weights) & (weights != 0.0)).any(axis=1)
    rows = rows[~leaks[rows]]
    for got, want, what in ((weights, w0, "weights"), (out, out0, "out")):
        idx = worst_entry(got[rows], want[rows], 1e-6, 1e-9)
        if idx is not None:
            i, j = int(rows[idx[0]]), idx[1]
            raise Fail(f"{what} of {label}: entry [{i}, {j}] is {fmt(got[i, j])} with {name}, but "
                       f"{fmt(want[i, j])} when that key scores like the others: key {key} is blocked for query "
                       f"{i} ({_why(i, key, window)}), so its score must not matter there; {advice}")


@invariant("stable", "no overflow or lost precision when scores are near +-1e4, rows are at very different "
                      "scales, or each row's maximum sits at a random key of its window")
def stable(cand, ref, rng):
    advice = "subtract each row's own maximum (axis=-1, keepdims=True) before exp, in float64"
    # A blocked key scoring about 1e4 above the open ones: the maximum must be taken after masking.
    blocked_advice = ("mask the blocked scores with -np.inf (or -1e9) BEFORE taking each row's maximum, so a "
                      "blocked key cannot set it and underflow the open keys to 0/0")
    _check_blocked_key(cand, 6, 4, 3, 3, 5, "the last key (in the future of every earlier query) scoring about "
                       "1e4 above the others", blocked_advice, rng)
    _check_blocked_key(cand, 7, 3, 2, 2, 0, "the first key (out of the window of every query from 2 on) scoring "
                       "about 1e4 above the others", blocked_advice, rng)
    for sign, T, window in ((1.0, 6, 3), (-1.0, 5, 2), (1.0, 7, 7)):
        _check_shift(cand, T, 4, 3, window, np.full(T, sign * 1e4),
                     f"scores near {'+' if sign > 0 else '-'}1e4", advice, rng)
    # Query rows at very different scales: row 0 scores near 2e4, rows 1 and 4 near 0, row 3 near 300. One
    # maximum for the whole matrix (instead of one per row) underflows every other row to 0/0.
    _check_shift(cand, 5, 3, 2, 5, np.array([2e4, 0.0, 1.0, 3e2, 0.0]),
                 "query rows at very different scales: row 0 scores near 2e4, rows 1 and 4 near 0",
                 "subtract each row's own maximum (axis=-1, keepdims=True), not one maximum of the whole score "
                 "matrix", rng)
    # Each row's maximum at a random key of its window, far above the rest: the diagonal, the oldest key of the
    # window or the mean are no safe shift here. Judged once with a narrow window and once with a wide one.
    for T, window in ((24, 5), (20, 14)):
        _check_peaked(cand, ref, T, 4, 3, window, advice, rng)


def _check_peaked(cand, ref, T, d_k, d_v, window, advice, rng):
    """Scores up to about 1e4 whose largest entry in each row sits at a random key of the row's window.

    Finite numbers are asked of every candidate that gives them on an ordinary problem of the same shapes; the
    values are held to the reference only where the candidate matches it there (a wrong scale is not this
    check's)."""
    q0, k0, v0 = _qkv(rng, T, d_k, d_v)
    base = _attend_moderate(cand, q0, k0, v0, window)
    if base is None:
        return
    out0, w0, _ = base
    if not _rows_finite(out0, w0).all():
        return
    want_out0, want_w0 = ref.window_attention(q0, k0, v0, window)
    matches = allclose(w0, want_w0, rtol=1e-6, atol=1e-9) and allclose(out0, want_out0, rtol=1e-6, atol=1e-9)
    blocked = _blocked(T, window)
    q, k, _ = peaked_qk(rng, (), T, T, d_k, allowed=~blocked)
    v = normal(rng, (T, d_v))
    out, weights, label = _attend(cand, q, k, v, window)
    scores = np.where(blocked, -np.inf, q @ k.T / np.sqrt(d_k))
    name = ("each row's largest score at a random key of its window, up to about 1e4 and far above the rest of "
            "the row")
    for arr, what in ((weights, "weights"), (out, "out")):
        bad = ~np.isfinite(arr)
        if bad.any():
            i, j = (int(x) for x in np.argwhere(bad)[0])
            raise Fail(f"{what} of {label}: entry [{i}, {j}] is {fmt(arr[i, j])} with {name} "
                       f"({peak_text(scores, (i,))}), but finite on an ordinary problem of the same shapes: "
                       f"overflow or 0/0 in the softmax; {advice}")
    if not matches:
        return
    want_out, want_w = ref.window_attention(q, k, v, window)
    for got, want, what in ((weights, want_w, "weights"), (out, want_out, "out")):
        idx = worst_entry(got, want, 1e-6, 1e-9)
        if idx is not None:
            i, j = idx
            raise Fail(f"{what} of {label}: entry [{i}, {j}] is {fmt(got[i, j])} with {name} "
                       f"({peak_text(scores, (i,))}), expected {fmt(want[i, j])}; the same code matches on an "
                       f"ordinary problem, so this is lost precision at large scores; {advice}")


@invariant("bad-input", "window < 1 raises ValueError in both functions")
def bad_input(cand, ref, rng):
    q, k, v = _qkv(rng, 5, 3, 2)
    for window in (0, -1, -4):
        expect_raises(cand, "ValueError", "sliding_window_mask", 5, window,
                      what=f"sliding_window_mask(5, {window})")
        expect_raises(cand, "ValueError", "window_attention", q, k, v, window,
                      what=f"window_attention(q (5, 3), k (5, 3), v (5, 2), window={window})")


@invariant("matches-reference", "out and weights match a reference to rtol 1e-6, T = 1,031 included")
def matches_reference(cand, ref, rng):
    cases = [(6, 4, 4, 3), (9, 3, 5, 2), (5, 8, 2, 5), (10, 2, 3, 4), (1, 3, 3, 2), (7, 5, 1, np.int64(3))]
    for T, d_k, d_v, window in cases:
        for s in (0.5, 2.0):
            q, k, v = _qkv(rng, T, d_k, d_v, scale=s)
            out, weights, label = _attend(cand, q, k, v, window)
            want_out, want_w = ref.window_attention(q, k, v, window)
            check_close(weights, want_w, f"weights of {label}")
            check_close(out, want_out, f"out of {label}")
    # A query of zeros, and a key of zeros: scores of exactly 0 (see with_zero_rows).
    for T, d_k, d_v, window in ((7, 4, 3, 3), (6, 5, 5, 6)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        q, i = with_zero_rows(rng, q, low=1)
        k, j = with_zero_rows(rng, k)
        out, weights, label = _attend(cand, q, k, v, window)
        want_out, want_w = ref.window_attention(q, k, v, window)
        context = f"query {i} and key {j} are all zeros, so their scores are exactly 0; {ZERO_SCORES}"
        check_close(weights, want_w, f"weights of {label}", context=context)
        check_close(out, want_out, f"out of {label}", context=context)
    # Long sequences: code that changes precision or method above some length (float32 for long inputs) is right
    # on every small problem above. Scores of about +-25 make float32's rounding show well above rtol 1e-6.
    watch = Stopwatch()

    def long(rung):
        T, window = rung.value, max(rung.value // 10, 2)
        q, k, v = normal(rng, (T, 4), scale=5.0), normal(rng, (T, 4), scale=5.0), normal(rng, (T, 3))
        want = meanwhile(ref.window_attention, q, k, v, window)
        with watch:
            out, weights, label = _attend(cand, q, k, v, window)
        want_out, want_w = want()
        check_close_fast(weights, want_w, f"weights of {label}")
        check_close_fast(out, want_out, f"out of {label}")

    up_to_long(long, watch)


@invariant("input-unchanged", "q, k and v are not modified")
def input_unchanged(cand, ref, rng):
    # Every call of every check is also judged for changes in place (the long rung of matches-reference among
    # them); here the windows that take other code paths: a window inside T, window = 1, window >= T, T = 1.
    for T, d_k, d_v, window in ((6, 4, 3, 3), (5, 2, 4, 1), (4, 3, 3, 9), (1, 3, 2, 2)):
        q, k, v = _qkv(rng, T, d_k, d_v)
        for _ in range(2):  # a second call would see the damage of the first
            label = f"window_attention(q {shape_of(q)}, k {shape_of(k)}, v {shape_of(v)}, window={window})"
            try:
                _, after, _ = cand.call_tracking_args("window_attention", q, k, v, window)
            except CandidateError as err:
                if err.not_implemented:
                    raise
                raise CandidateError(label, err.type_name, err.mro, err.text, err.line) from None
            for name, before, got in zip(("q", "k", "v"), (q, k, v), after[:3], strict=True):
                check_unchanged(before, got, f"{name} of shape {shape_of(before)} (passed to {label})")


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    for T, window in ((7, 3), (5, 1), (6, 0)):
        yield "sliding_window_mask", (T, window), {}
    yield "window_attention", (*_qkv(rng, 6, 4, 3, scale=1.5), 3), {}
    # later keys score about 1e4 higher per step: a blocked future outscores every open key
    T = 6
    q = np.column_stack([np.full(T, 100.0), rng.normal(size=T)])
    k = np.column_stack([np.arange(T) * 100.0 * np.sqrt(2.0), rng.normal(size=T)])
    yield "window_attention", (q, k, rng.normal(size=(T, 3)), 2), {}
    # every score near +1e4
    q, k, v = _qkv(rng, 5, 4, 2)
    q[:, 0], k[:, 0] = 2e4, 1.0
    yield "window_attention", (q, k, v, 2), {}
    # query rows at very different scales: row 0 scores near 2e4, rows 1, 2 and 4 near 0
    q, k, v = _qkv(rng, 5, 3, 2)
    q[:, 0], k[:, 0] = np.array([2e4, 0.0, 1.0, 3e2, 0.0]) * np.sqrt(3.0), 1.0
    yield "window_attention", (q, k, v, 5), {}


def _band(T, window, *, validate=True, future=lambda i, j: j > i, past=lambda d, w: d >= w):
    """A sliding-window mask; `past(i - j, window)` says which earlier keys are blocked."""
    if validate and window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    i, j = np.indices((T, T))
    return future(i, j) | past(i - j, window)


@mistake("mask-includes-diagonal", "block only the strict future (j > i): every position attends to itself",
         fn="sliding_window_mask")
def _mask_includes_diagonal(T, window):
    return _band(T, window, future=lambda i, j: j >= i)


@mistake("mask-blocks-past", "block the future (j > i) and the keys window or more steps back (i - j >= window); "
         "this blocks the past and opens the future", fn="sliding_window_mask")
def _mask_blocks_past(T, window):
    return _band(T, window, future=lambda i, j: j < i, past=lambda d, w: -d >= w)


@mistake("mask-forgets-future", "also block the future (j > i): |i - j| < window lets each query see the next "
         "window - 1 keys", fn="sliding_window_mask")
def _mask_forgets_future(T, window):
    return _band(T, window, future=lambda i, j: np.zeros_like(i, dtype=bool), past=lambda d, w: np.abs(d) >= w)


@mistake("window-off-by-one", "the window counts the position itself: block where i - j >= window, so row i "
         "keeps min(i + 1, window) keys", fn="sliding_window_mask")
def _window_one_too_many(T, window):
    return _band(T, window, past=lambda d, w: d > w)


@mistake("window-off-by-one", "the window counts the position itself: block where i - j >= window, so row i "
         "keeps min(i + 1, window) keys", fn="sliding_window_mask")
def _window_one_too_few(T, window):
    return _band(T, window, past=lambda d, w: d >= w - 1)


@mistake("mask-allowed-convention", "return True where attention is BLOCKED (the future and i - j >= window), not "
         "where it is allowed", fn="sliding_window_mask")
def _mask_allowed_convention(T, window):
    return ~_band(T, window)


@mistake("no-validation", "raise ValueError when window < 1: a window of 0 blocks every key, the diagonal too",
         fn="sliding_window_mask")
def _no_validation(T, window):
    return _band(T, window, validate=False)


def _variant(q, k, v, window, *, divisor=None, fill=None, after=False, axis=-1, subtract="row", raw_weights=False):
    """window_attention with one known mistake switched on."""
    T = q.shape[0]
    blocked = _band(T, window)
    scores = q @ k.T / (np.sqrt(q.shape[1]) if divisor is None else divisor(q.shape[1]))
    if raw_weights:
        raw = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return _variant(q, k, v, window)[0], raw / raw.sum(axis=-1, keepdims=True)
    if fill is not None:
        scores = scores + fill * blocked
    elif not after:
        scores = np.where(blocked, -np.inf, scores)
    if subtract == "row":
        scores = scores - scores.max(axis=axis, keepdims=True)
    elif subtract == "global":
        scores = scores - scores.max()
    w = np.exp(scores)
    w = w / w.sum(axis=axis, keepdims=True)
    if after:
        w = np.where(blocked, 0.0, w)
    return w @ v, w


def _unmasked_when_covering(reaches):
    def window_attention(q, k, v, window):
        if reaches(window, q.shape[0]):  # the "fast path": nothing masked, the future included
            return _variant(q, k, v, window, fill=0.0)
        return _variant(q, k, v, window)
    return mistake("full-window-unmasked", "a window that covers the whole sequence still blocks the future: it is "
                   "then plain causal attention, not attention without a mask", fn="window_attention")(
        window_attention)


_mistake_unmasked_from_T = _unmasked_when_covering(lambda window, T: window >= T)
_mistake_unmasked_past_T = _unmasked_when_covering(lambda window, T: window > T)


@mistake("missing-scale", "divide the scores q @ k.T by sqrt(d_k) before the softmax", fn="window_attention")
def _missing_scale(q, k, v, window):
    return _variant(q, k, v, window, divisor=lambda d_k: 1.0)


@mistake("scale-by-d-k", "divide the scores by sqrt(d_k), not by d_k itself", fn="window_attention")
def _scale_by_d_k(q, k, v, window):
    return _variant(q, k, v, window, divisor=lambda d_k: d_k)


@mistake("mask-after-softmax", "set the blocked scores to -inf before the softmax; zeroing weights afterwards "
         "leaves rows that no longer sum to one", fn="window_attention")
def _mask_after_softmax(q, k, v, window):
    return _variant(q, k, v, window, after=True)


@mistake("weights-before-mask", "return the weights of the masked softmax, the ones that multiply v, not the "
         "softmax of the unmasked scores", fn="window_attention")
def _weights_before_mask(q, k, v, window):
    return _variant(q, k, v, window, raw_weights=True)


@mistake("finite-mask-fill", "set the blocked scores to -np.inf (np.where): a finite penalty like -1e4 lets a "
         "blocked key that scores far higher leak through", fn="window_attention")
def _finite_mask_fill(q, k, v, window):
    return _variant(q, k, v, window, fill=-1e4)


@mistake("softmax-over-queries", "take the softmax over the keys, the last axis (axis=-1), not axis 0",
         fn="window_attention")
def _softmax_over_queries(q, k, v, window):
    return _variant(q, k, v, window, axis=0)


@mistake("no-max-subtraction", "subtract each row's maximum from the scores before np.exp: scores near 1e4 "
         "overflow", fn="window_attention")
def _no_max_subtraction(q, k, v, window):
    return _variant(q, k, v, window, subtract=None)


@mistake("global-max", "subtract the maximum of each row (axis=-1, keepdims=True), not one maximum of all the "
         "scores: a row far below it underflows to 0/0", fn="window_attention")
def _global_max(q, k, v, window):
    return _variant(q, k, v, window, subtract="global")


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, a negative window, and scores in the thousands
    yield from _first_probes(rng)
    yield "sliding_window_mask", (5, -2), {}
    yield "window_attention", (40.0 * rng.normal(size=(6, 4)), 40.0 * rng.normal(size=(6, 4)),
                               rng.normal(size=(6, 3)), 3), {}
    # windows that cover the whole sequence: still causal
    yield "window_attention", (*_qkv(rng, 5, 4, 3, scale=1.5), 5), {}
    yield "window_attention", (*_qkv(rng, 4, 4, 3, scale=1.5), 9), {}


def _win(q, k, v, window, *, shift=None, mask_size=None, max_first=False):
    """window_attention with one known mistake switched on (shift(raw scores, blocked, window) replaces the row
    maximum)."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T, d_k = q.shape
    blocked = _band(T if mask_size is None else mask_size(q), window)
    s = q @ k.T / np.sqrt(d_k)
    if max_first:
        e = np.exp(s - s.max(axis=-1, keepdims=True)) * ~blocked
    else:
        m = np.where(blocked, -np.inf, s)
        e = np.exp(m - (m.max(axis=-1, keepdims=True) if shift is None else shift(s, blocked, window)))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w


def _win_with(**switches):
    def window_attention(q, k, v, window):
        return _win(q, k, v, window, **switches)
    return window_attention


def _oldest(s, blocked, window):
    T = s.shape[0]
    return s[np.arange(T), np.maximum(np.arange(T) - window + 1, 0)][:, None]


def _window_mean(s, blocked, window):
    return np.where(blocked, 0.0, s).sum(axis=-1, keepdims=True) / (~blocked).sum(axis=-1, keepdims=True)


_mistake_win_diag = mistake(
    "shift-by-diagonal", "subtract each row's maximum before np.exp, not its diagonal score: a larger score in the "
    "window still overflows", fn="window_attention")(_win_with(shift=lambda s, b, w: np.diag(s)[:, None]))
_mistake_win_oldest = mistake(
    "shift-by-oldest-key", "subtract each row's maximum before np.exp, not the oldest key's score in the window: a "
    "larger score still overflows", fn="window_attention")(_win_with(shift=_oldest))
_mistake_win_mean = mistake(
    "shift-by-mean", "subtract each row's maximum before np.exp, not the mean of the scores in its window: a score "
    "far above the mean still overflows", fn="window_attention")(_win_with(shift=_window_mean))
_mistake_win_max_first = mistake(
    "max-before-mask", "block the keys with -inf first, then subtract the maximum of the open keys: a maximum over "
    "the blocked keys too underflows the open ones to 0/0", fn="window_attention")(_win_with(max_first=True))
_mistake_win_mask_d_k = mistake(
    "mask-from-d-k", "build the mask from the sequence length T = q.shape[0], not from d_k = q.shape[1]",
    fn="window_attention")(_win_with(mask_size=lambda q: q.shape[1]))
_mistake_win_sign = mistake(
    "window-sign-flipped", "block the keys window or more steps back, i - j >= window, not j - i >= window, which "
    "only blocks the future again", fn="sliding_window_mask")(
    lambda T, window: _band(T, window, past=lambda d, w: -d >= w))


@mistake("validates-zero-only", "reject every window below 1 (if window < 1), not only 0: a negative window "
         "silently blocks everything", fn="sliding_window_mask")
def _win_validate_zero(T, window):
    if window == 0:
        raise ValueError("window must be >= 1")
    return _band(T, window, validate=False)


@mistake("scale-folded-in-place", "scale a copy (q / sqrt(d_k)) or the scores, not q with /=, which changes the "
         "caller's queries", fn="window_attention")
def _win_scale_in_place(q, k, v, window):
    out = _win(q, k, v, window)
    q /= np.sqrt(q.shape[1])
    return out


@mistake("scale-folded-in-place", "scale a copy (k.T / sqrt(d_k)) or the scores, not k (or its view k.T) with /=, "
         "which changes the caller's keys", fn="window_attention")
def _win_scale_keys_in_place(q, k, v, window):
    out = _win(q, k, v, window)
    k /= np.sqrt(q.shape[1])
    return out
