"""Hidden checks for the `softmax` exercise."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_shape,
    fmt,
    invariant,
    is_expected,
    mistake,
    shape_of,
    worst_entry,
)
from attnprep.ladders import Rung, beyond_f32, dims, first_failing, large_dims, large_shape, spiky_rows, to_edge

FUNCTIONS = ("softmax",)

# At float32 a weight exp(z - log-sum-exp) is off by as much as the log-sum-exp rounds, which is the size of the
# largest score: what input rounding alone cannot show (attnprep.precision).
FLOAT32_ROUNDING = {"softmax": lambda args, kwargs: precision.rounding_of(args[0] if args else kwargs.get("z", 0.0))}

# Non-square on purpose: a transposed reduction cannot pass by accident.
SHAPES = [(5,), (1,), (3, 7), (7, 3), (1, 4), (2, 4, 6), (3, 1, 5)]


def _run(cand, z, **kwargs):
    label = f"softmax(z{', axis=' + str(kwargs['axis']) if 'axis' in kwargs else ''}) of shape {shape_of(z)}"
    return as_float(cand.softmax(z, **kwargs), label), label


@invariant("shape", "the output has the input's shape")
def shape(cand, ref, rng):
    for s in SHAPES:
        out, label = _run(cand, rng.normal(size=s))
        check_shape(out, s, label)


@invariant("sum-to-one", "every slice along the axis sums to one")
def sum_to_one(cand, ref, rng):
    for s in SHAPES:
        z = rng.normal(scale=3.0, size=s)
        out, label = _run(cand, z)
        check_shape(out, s, label)
        check_close(out.sum(axis=-1), np.ones(s[:-1]), f"the sums along the last axis of {label}",
                    rtol=1e-6, atol=1e-6)


@invariant("non-negative", "every probability is >= 0")
def non_negative(cand, ref, rng):
    for s in SHAPES:
        z = rng.normal(scale=20.0, size=s) - 30.0
        out, label = _run(cand, z)
        if (out < 0).any():
            idx = tuple(int(i) for i in np.argwhere(out < 0)[0])
            raise Fail(f"{label}: entry {list(idx)} is {fmt(out[idx])}, a negative probability")


# The ladders: 1-D to 4-D shapes of distinct sizes, then one call of 65,536 entries or more.
SMALL_LADDER = dims(7, min_ndim=1, max_ndim=4)
LARGE_LADDER = large_dims(min_ndim=3, max_ndim=3)  # one large call: the check of the reference stays fast


@invariant("matches-reference", "matches a reference softmax to rtol 1e-6, 1-D to 4-D and at 65,536 entries; "
                                "float32 input to float32's precision")
def matches_reference(cand, ref, rng):
    for s in SHAPES:
        for scale in (0.1, 1.0, 10.0):
            z = rng.normal(scale=scale, size=s)
            out, label = _run(cand, z)
            check_close(out, ref.softmax(z), label)
    # Scores of a few hundred: float64 keeps ~13 digits of each probability, float32 arithmetic only ~5.
    for s in ((4, 6), (2, 3, 5)):
        z = 300.0 + rng.normal(scale=3.0, size=s)
        out, label = _run(cand, z)
        check_close(out, ref.softmax(z), label, context="scores near 300",
                    question="is the arithmetic done in float64?")
    # Probabilities from about 1 down to 1e-200 in one slice, each held to a relative 1e-6 (no absolute floor but
    # float64's subnormals): a softmax that flushes tiny probabilities to 0, or lifts them by an eps, fails here.
    # float64 only: a correct float32 softmax ends near 1e-38. The last call has 65,536 entries and more, where
    # code may switch to float32 for speed: only probabilities this small show float32's exp (above 1e-9, its
    # relative error of about 1e-7 is inside rtol 1e-6).
    if precision.current() == precision.FLOAT64:
        for s in ((3, 40), (64,), large_shape(2)):
            z = rng.uniform(-460.0, 0.0, size=s) + rng.uniform(-50.0, 50.0)
            out, label = _run(cand, z)
            check_close(out, ref.softmax(z), label, atol=1e-300,
                        context="probabilities from about 1 down to 1e-200, each held to a relative 1e-6")

    # Every rung with scores of tens that are not on float32's grid: a switch to float32 above some size (or in
    # some number of axes) moves each probability by about 1e-6 of itself or more there.
    def judge(rung):
        z = beyond_f32(rng, rung.value, scale=20.0, offset=float(rng.uniform(-50.0, 50.0)))
        out, label = _run(cand, z)
        check_close(out, ref.softmax(z), label, context="scores of about 20 to 100, not on float32's grid",
                    question="is the arithmetic done in float64 at this size?")
    first_failing(SMALL_LADDER + LARGE_LADDER, judge)
    # float32 input, whose result is float32 (or float64): held to what float32 arithmetic keeps (F32_RTOL), so a
    # step in float16 (a normaliser rounded to 11 bits, off by up to 5e-4 of itself) fails, a float32 one does not.
    for s, ax in F32_CASES:
        z = rng.normal(scale=3.0, size=s).astype(np.float32)
        out, label = _run(cand, z, **({} if ax == -1 else {"axis": ax}))
        check_close(out, ref.softmax(z.astype(np.float64), axis=ax), label + " in float32", **_f32_tolerance(z),
                    context="float32 input, held to float32's precision", question="is any step done in float16?")


# Float32 inputs of matches-reference: 1-D to 3-D, along the last axis and another.
F32_CASES = [((9,), -1), ((5, 11), -1), ((2, 7, 6), 1), ((3, 1_031), -1)]


def _f32_tolerance(z):
    """What a correct float32 softmax of z keeps: a relative 1e-5 (a few roundings of exp, the sum and the division),
    plus four float32 roundings of the largest score (z - m, or z minus a log-sum-exp, rounds at that size)."""
    return {"rtol": 1e-5 + precision.rounding_of(z), "atol": 1e-9}


def _matches(out, want, rtol=1e-6, atol=1e-9):
    return (isinstance(out, np.ndarray) and out.shape == want.shape
            and bool(allclose(out, want, rtol=rtol, atol=atol, equal_nan=False)))


def _slice_text(z, idx, axis):
    """Where the maximum of the slice holding entry idx sits, for evidence: '(its slice's maximum, 2,990.5, is
    entry [1, 6]; the first is -1,769.7)'."""
    axis = axis % z.ndim
    along = np.take(z, np.arange(z.shape[axis]), axis=axis)
    where = list(idx)
    line = [tuple(where[:axis] + [j] + where[axis + 1:]) for j in range(along.shape[axis])]
    values = np.array([z[i] for i in line])
    top = line[int(np.argmax(values))]
    whole = f", the whole array's {fmt(np.max(z))}" if np.max(z) > values.max() else ""
    return (f"its slice's maximum {fmt(values.max())} is entry {list(top)}{whole}; the slice's first entry is "
            f"{fmt(values[0])} and its last {fmt(values[-1])}")


def _judge(cand, ref, z, z_mod, name, shift=None, rtol=1e-6, atol=1e-9, axis=-1):
    """Fail only on numerical evidence that softmax breaks down on the extreme scores z.

    z_mod is a moderate problem of the same shape. When z = z_mod + shift (one constant for the whole
    array), softmax(z) must equal softmax(z_mod) whatever the axis, so the candidate is compared with itself.
    Otherwise the reference is the yardstick, but only for a candidate that matches it on z_mod: any other
    difference belongs to the other invariants.
    """
    kwargs = {} if axis == -1 else {"axis": axis}
    label = (f"softmax(z{', axis=' + str(axis) if kwargs else ''}) of shape {shape_of(z)}"
             + (" in float32" if z.dtype == np.float32 else ""))
    out_mod = attempt(lambda: _run(cand, z_mod, **kwargs)[0])
    if not isinstance(out_mod, np.ndarray) or not np.isfinite(out_mod).all():
        return  # a crash or a nan on moderate scores is another bug, not overflow
    out = attempt(lambda: _run(cand, z, **kwargs)[0])
    if isinstance(out, Broke) and out.raised:
        raise Fail(f"{label} with {name} raised {out.text}, although the same shape of moderate scores works: the "
                   "size of the scores breaks it (subtract each slice's maximum before np.exp)")
    if isinstance(out, Broke):
        return
    if out.shape != z.shape:
        return  # a wrong shape is for `shape` and `axis` to report
    if not np.isfinite(out).all():
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(out))[0])
        raise Fail(f"{label} with {name}: entry {list(idx)} is {fmt(out[idx])} (z there is {fmt(z[idx])}; "
                   f"{_slice_text(z, idx, axis)}), although the same shape of moderate scores gives finite "
                   "values: exp overflows (inf) or every exp underflows (0/0); subtract each slice's own maximum "
                   "before np.exp")
    if shift is not None and not _matches(out, out_mod, rtol, atol):
        idx = worst_entry(out, out_mod, rtol, atol)
        raise Fail(f"{label} with {name}: entry {list(idx)} is {fmt(out[idx])}, but the same scores "
                   f"{'lowered' if shift > 0 else 'raised'} by {fmt(abs(shift))} give {fmt(out_mod[idx])}; "
                   "softmax does not change when a constant is added to every score, so precision or range is "
                   "lost at this magnitude (subtract each slice's maximum rather than clipping; compute in float64)")
    if _matches(out_mod, ref.softmax(z_mod.astype(np.float64), axis=axis), rtol, atol):
        want = ref.softmax(z.astype(np.float64), axis=axis)
        if not _matches(out, want, rtol, atol):
            idx = worst_entry(out, want, rtol, atol)
            raise Fail(f"{label} with {name}: entry {list(idx)} {is_expected(out[idx], want[idx])} "
                       f"(z there is {fmt(z[idx])}; {_slice_text(z, idx, axis)}), although moderate scores of "
                       "this shape come out right: the softmax breaks down at this magnitude (subtract each "
                       "slice's own maximum, keepdims=True, before np.exp; do not clip)")


def _stable_ladder():
    """Every code path a softmax may take: 1-D to 4-D along the last axis, other axes, and float32 input."""
    rungs = [Rung(r.label, (r.value, -1, np.float64)) for r in dims(9, min_ndim=1, max_ndim=4)]
    rungs += [Rung("3-D input (9, 2, 3) along axis 0", ((9, 2, 3), 0, np.float64)),
              Rung("3-D input (2, 9, 3) along axis -2", ((2, 9, 3), -2, np.float64)),
              Rung("float32 1-D input (9,)", ((9,), -1, np.float32)),
              Rung("float32 2-D input (5, 9)", ((5, 9), -1, np.float32)),
              # Long slices with the maximum in their back half: a softmax that works through a long slice in
              # chunks, each shifted by the first chunk's maximum (or a running one it does not carry back),
              # is right on every short slice.
              Rung(f"1-D input of {LONG_SLICE:,} entries, its maximum in the back half",
                   ((LONG_SLICE,), -1, np.float64)),
              Rung("2-D input (3, 20,011), each maximum in the back half", ((3, 20_011), -1, np.float64))]
    return rungs


LONG_SLICE = 65_537
UNCHANGED_LARGE = large_shape(2, 300_000)  # (547, 549)


def _max_to_back_half(rng, z):
    """spiky_rows' rows with each maximum moved to a random position in the row's back half, the few entries near
    it moved right next to it: everything before the back half is far below the row's maximum."""
    n = z.shape[-1]
    rows = z.reshape(-1, n).copy()
    for row in rows:
        at = int(np.argmax(row))
        near = [int(j) for j in np.flatnonzero(row > row[at] - 100.0) if j != at]
        for step, j in enumerate(near, start=1):  # swap each near entry to just after the maximum
            k = (at + step) % n
            row[[j, k]] = row[[k, j]]
        row[:] = np.roll(row, int(rng.integers(n // 2, n - len(near))) - at)
    return rows.reshape(z.shape)


# float32 keeps about 7 digits of a score, so a correct float32 softmax (a log-sum-exp, say) errs by about 6e-8 of
# the largest score: its probes stay near +-400, where exp overflows past 88 all the same, and are held to 1e-4.
F32_MAGNITUDE, F32_GAP = 400.0, 100.0


@invariant("stable", "no overflow at magnitudes up to 1e4, with each slice's maximum anywhere, on rows at very "
                     "different scales, along any axis, 1-D to 4-D and in float32")
def stable(cand, ref, rng):
    # Each slice's maximum sits at a random inner position, a few entries near it and the rest far below, at
    # +-2,500 to +-5,000: only a shift by the slice's own maximum keeps every exp finite and not all zero.
    def judge(rung):
        shape, axis, dtype = rung.value
        moved = shape[:axis] + shape[axis + 1:] + (shape[axis],) if axis not in (-1, len(shape) - 1) else shape
        spikes = spiky_rows(rng, moved) if dtype == np.float64 else spiky_rows(rng, moved, F32_MAGNITUDE, gap=F32_GAP)
        if moved[-1] > 1_000:
            spikes = _max_to_back_half(rng, spikes)
        z = np.moveaxis(spikes, -1, axis).astype(dtype)
        z_mod = rng.normal(scale=2.0, size=shape).astype(dtype)
        tol = {"rtol": 1e-4, "atol": 1e-6} if dtype == np.float32 else {}
        _judge(cand, ref, z, z_mod, f"each slice's maximum at a random entry, up to {fmt(np.abs(z).max())} in "
               "magnitude", axis=axis, **tol)
    first_failing(_stable_ladder(), judge)
    # Up to the documented +-1e4 and no further (to_edge), so that the verdict never rests on values beyond it.
    base = rng.normal(scale=2.0, size=(3, 6))
    _judge(cand, ref, base + to_edge(base, 1e4), base, "scores near +1e4", shift=to_edge(base, 1e4))
    base = rng.normal(scale=2.0, size=(3, 6))
    _judge(cand, ref, base + to_edge(base, -1e4), base, "scores near -1e4", shift=to_edge(base, -1e4))
    _judge(cand, ref, np.array([[1e4, 0.0, -1e4, 5.0]]), rng.normal(scale=2.0, size=(1, 4)),
           "one dominant entry (1e4)")
    _judge(cand, ref, np.linspace(-1e4, 1e4, 7)[None, :] + rng.uniform(-1.0, 0.0, size=(2, 7)) * [[-1.0] + [1.0] * 6],
           rng.normal(size=(2, 7)), "a slice rising from -1e4 to +1e4")
    offsets = np.array([[0.0], [100.0], [1e3], [-1e3]])
    base = rng.normal(scale=2.0, size=(4, 5))
    _judge(cand, ref, (base + offsets).astype(np.float32), base.astype(np.float32),
           "rows near 0, 100, 1e3 and -1e3 (float32 overflows past exp(88))", rtol=1e-4, atol=1e-6)


# (shape, offset, low, axis, dtype) of the masked calls. Offsets near -1e4 in every dimensionality, along another
# axis and in float32: a finite stand-in such as -1e4 for -inf (swapped in on one code path only) gives a blocked
# entry as much weight as the open ones there, and nowhere else.
MASKED_CASES = [((4, 6), 0.0, 0.0, -1, np.float64), ((2, 3, 5), 0.0, 0.0, -1, np.float64),
                ((3, 6), 1e4, 0.0, -1, np.float64), ((3, 6), -1e4, 0.0, -1, np.float64),
                ((3, 7), 0.0, -1e3, -1, np.float64), ((7,), -1e4, 0.0, -1, np.float64),
                ((2, 3, 5), -1e4, 0.0, -1, np.float64), ((2, 2, 3, 4), -1e4, 0.0, -1, np.float64),
                ((9,), 0.0, 0.0, -1, np.float64), ((2, 3, 5), -1e4, 0.0, 0, np.float64),
                ((4, 3, 5), 0.0, 0.0, 1, np.float64), ((3, 6), -1e4, 0.0, -1, np.float32),
                ((7,), 0.0, 0.0, -1, np.float32)]


def _run_along(cand, z, ax):
    """softmax of z (built along its last axis) moved so that axis `ax` is the one normalised; the output moved
    back, with the call's label."""
    if ax == -1:
        return _run(cand, z)
    out, label = _run(cand, np.moveaxis(z, -1, ax), axis=ax)
    check_shape(out, np.moveaxis(z, -1, ax).shape, label)
    return np.moveaxis(out, ax, -1), label


@invariant("masked-entries", "-inf entries give exactly 0.0 and the rest still sum to one: 1-D to 4-D, along "
                             "other axes, in float32, next to scores near -1e4")
def masked_entries(cand, ref, rng):
    # Each masked call is judged against the candidate's own call on the same z with ordinary numbers in place of
    # the -inf entries: where that one already overflows, is not normalised along the axis, or is not the
    # softmax, the fault is not the -inf entries (stable, sum-to-one, axis and matches-reference say what it is),
    # and only what the masking itself adds is judged here.
    # The `low` case masks every entry of a slice but those near -1e3: the open entries alone are what the
    # softmax must normalise, so exp of them without subtracting their maximum underflows to 0/0, which the
    # same z without -inf entries (its largest entries near 0) does not.
    for s, offset, low, ax, dtype in MASKED_CASES:
        blocked = rng.random(s) < 0.4
        keep = rng.integers(0, s[-1], size=s[:-1])  # one open entry per slice, not always the first
        np.put_along_axis(blocked, keep[..., None], False, axis=-1)
        np.put_along_axis(blocked, (keep[..., None] + 1) % s[-1], True, axis=-1)  # and one blocked entry
        if ax != -1:
            # no slice along the caller's last axis all -inf either: a maximum taken along that axis instead of
            # `axis` (for the axis check to report) would otherwise give -inf - -inf here
            moved = np.moveaxis(blocked, -1, ax)
            first = moved[..., 0]
            first[moved.all(axis=-1)] = False
        z_plain = rng.normal(size=s) + np.where(blocked, 0.0, low)
        z_plain += to_edge(z_plain, offset) if offset else 0.0  # near +-1e4, within the documented range
        z_plain = z_plain.astype(dtype)
        z = np.where(blocked, -np.inf, z_plain).astype(dtype)
        out, label = _run_along(cand, z, ax)
        label += f" ({np.dtype(dtype).name}) with -inf entries" if dtype != np.float64 else " with -inf entries"
        check_shape(out, s, label)
        plain = attempt(_run_along, cand, z_plain, ax)
        if isinstance(plain, Broke) or plain[0].shape != s or not np.isfinite(plain[0]).all():
            continue  # fails without any -inf at these magnitudes already: not the masking's doing
        plain = plain[0]
        if not allclose(plain.sum(axis=-1), 1.0, rtol=0.0, atol=1e-5):
            # not normalised along the axis even without -inf entries (for sum-to-one and axis): a slice
            # along the axis it does normalise may be all -inf here, so only finite entries are judged
            nonzero = blocked & np.isfinite(out) & (out != 0.0)
            if nonzero.any():
                idx = tuple(int(i) for i in np.argwhere(nonzero)[0])
                raise Fail(f"{label}: entry {_moved(idx, ax)} is -inf in z but {fmt(out[idx])} in the output, "
                           "expected exactly 0.0")
            continue
        if np.isnan(out).any():
            idx = tuple(int(i) for i in np.argwhere(np.isnan(out))[0])
            raise Fail(f"{label}: entry {_moved(idx, ax)} is nan (inf - inf or 0/0 somewhere), while the same z "
                       "with ordinary numbers in place of the -inf entries gives finite numbers: an -inf entry must "
                       "give exp(-inf) = 0; subtract the slice maximum, which is finite, not an entry that may be "
                       "-inf")
        nonzero = blocked & (out != 0.0)
        if nonzero.any():
            idx = tuple(int(i) for i in np.argwhere(nonzero)[0])
            stand_in = (" (a finite stand-in for -inf, such as -1e4, weighs as much as scores near it: keep -inf, "
                        "whose exp is exactly 0)" if offset < 0 else "")
            raise Fail(f"{label}: entry {_moved(idx, ax)} is -inf in z but {fmt(out[idx])} in the output, "
                       f"expected exactly 0.0{stand_in}")
        f32 = dtype != np.float64
        check_close(out.sum(axis=-1), np.ones(s[:-1]), f"the sums along the axis of {label}", rtol=1e-6,
                    atol=1e-5 if f32 else 1e-6, context="the open entries must still sum to one, as they do "
                                                        "without -inf entries")
        # float32 input is held to float32's precision (see matches-reference)
        tol = _f32_tolerance(z_plain) if f32 else {"rtol": 1e-6, "atol": 1e-9}
        # the reference only for a candidate that is right on the same z without -inf, at the same magnitudes
        z_level, level = z_plain, plain
        if low:
            z_level = z_plain + np.where(blocked, low, 0.0)
            level = attempt(_run_along, cand, z_level, ax)
            level = None if isinstance(level, Broke) else level[0]
        if level is not None and level.shape == s and allclose(level, ref.softmax(z_level.astype(np.float64)),
                                                                   **tol):
            check_close(out, ref.softmax(z.astype(np.float64)), label, **tol,
                        context="the same call with ordinary numbers in place of the -inf entries is right")


def _moved(idx, ax):
    """An entry's index as the caller's array has it: the checks build z along its last axis and move that axis
    to `ax` (np.moveaxis) for the call."""
    order = list(range(len(idx)))
    if ax != -1:
        order.insert(ax % len(idx), order.pop())
    return [int(idx[o]) for o in order]


@invariant("axis", "works along every axis, negative ones included, past 65,536 entries too")
def axis(cand, ref, rng):
    z = rng.normal(scale=2.0, size=(3, 4, 5))
    for ax in (0, 1, 2, -1, -2, -3):
        out, label = _run(cand, z, axis=ax)
        check_close(out, ref.softmax(z, axis=ax), label)
    z2 = rng.normal(size=(3, 3))  # square: a missing keepdims broadcasts silently here
    out, label = _run(cand, z2, axis=0)
    check_close(out, ref.softmax(z2, axis=0), label)
    # Past 65,536 entries along axis 0 and a middle one: a path for large arrays (chunks along one axis, a reshape
    # to rows) may be right along the last axis only.
    big = rng.normal(scale=2.0, size=AXIS_LARGE)
    for ax in (0, -2):
        out, label = _run(cand, big, axis=ax)
        check_close(out, ref.softmax(big, axis=ax), label, context=f"{big.size:,} entries")


AXIS_LARGE = large_shape(3)  # (39, 41, 43): 68,757 entries


@invariant("input-unchanged", "the caller's array is not modified: 1-D to 4-D, along other axes, in float32, "
                              "300,303 entries (and in every call of every check)")
def input_unchanged(cand, ref, rng):
    # A copy made only on some paths (2-D, small arrays, the last axis, float64) leaves the others in place.
    # Inputs of 65,536 entries and so are matches-reference's: every call compares its arguments, so a copy skipped
    # above some size is caught there; one larger call here, beyond any other check's.
    rungs = [Rung(r.label, (r.value, -1, np.float64)) for r in SMALL_LADDER]
    rungs += [Rung("3-D input (2, 3, 4) along axis 0", ((2, 3, 4), 0, np.float64)),
              Rung("float32 2-D input (3, 5)", ((3, 5), -1, np.float32)),
              # one call past the other checks' largest (68,757 entries), where a copy may be skipped "to save
              # memory" (past 2**17 or 2**18 entries, say)
              Rung(f"2-D input {UNCHANGED_LARGE} ({int(np.prod(UNCHANGED_LARGE)):,} entries)",
                   (UNCHANGED_LARGE, -1, np.float64))]

    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        shape, axis, dtype = rung.value
        z = (rng.normal(scale=50.0, size=shape)).astype(dtype)
        kwargs = {} if axis == -1 else {"axis": axis}
        for _ in range(2 if z.size < 1_000 else 1):  # twice: a change may come on a later call only
            attempt(cand.softmax, z, **kwargs)
    first_failing(rungs, judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    yield "softmax", (rng.normal(size=(3, 7)),), {}
    yield "softmax", (np.stack([rng.normal(size=6), 1e4 + rng.normal(size=6), -1e3 + rng.normal(size=6)]),), {}
    yield "softmax", (rng.normal(size=(3, 4, 5)),), {"axis": 0}


@mistake("no-max-subtraction", "subtract each slice's maximum before np.exp: exp(1e4) overflows to inf")
def _no_max_subtraction(z, axis=-1):
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


@mistake("global-max", "subtract the maximum of each slice (keepdims=True), not one maximum of the whole array")
def _global_max(z, axis=-1):
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=axis, keepdims=True)


@mistake("missing-keepdims", "reduce with keepdims=True so the max and the sum broadcast back along the axis")
def _missing_keepdims(z, axis=-1):
    e = np.exp(z - z.max(axis=axis))
    return e / e.sum(axis=axis)


@mistake("softmax-wrong-axis", "normalise along the `axis` argument (default -1, the last); this uses axis 0")
def _wrong_axis(z, axis=-1):
    e = np.exp(z - z.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


@mistake("ignores-axis", "use the `axis` argument: this always normalises along the last axis")
def _ignores_axis(z, axis=-1):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@mistake("sum-over-everything", "divide by the sum of each slice along the axis, not the sum of the whole array")
def _sum_everything(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum()


@mistake("modifies-input", "write `z = z - ...`, not `z -= ...`: in-place arithmetic changes the caller's array")
def _in_place(z, axis=-1):
    z -= z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


# Probes that tell the shifts apart: a slice maximum far above the rest in the middle (R1), first (R2), a slice
# minimum far below (R3), and one huge entry that drags the mean up (R5); a masked pair near 0 and near -1e4;
# a 1-D vector, moderate and large; scores near 3,000, which float32 rounds by ~1e-4; and 65,536 of them.
_SPREAD = np.array([[0.0, 800.0, 0.0, 0.0, 0.0, 0.0], [800.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [-800.0, 0.0, 1.0, 2.0, 3.0, 4.0], [1500.0, 0.0, 0.0, 0.0, 0.0, 0.0]])


def _masked_probe(rng):
    z = np.stack([rng.normal(size=5), -9999.0 + rng.normal(scale=0.5, size=5)])
    z[:, [1, 3]] = -np.inf
    return z


def probes_more(rng):
    yield "softmax", (_SPREAD + rng.normal(scale=0.5, size=_SPREAD.shape),), {}
    yield "softmax", (_masked_probe(rng),), {}
    yield "softmax", (rng.normal(size=6),), {}
    yield "softmax", (1000.0 + rng.normal(size=6),), {}
    yield "softmax", (3000.0 + rng.normal(scale=3.0, size=(2, 6)),), {}
    yield "softmax", (3000.0 + rng.normal(scale=3.0, size=(16, 4096)),), {}


_first_probes = probes


def probes(rng):  # noqa: F811 -- the first probes, then the ones above, in one stream
    yield from _first_probes(rng)
    yield from probes_more(rng)


def _shifted(shift):
    """A softmax that subtracts shift(z, axis) (keepdims) instead of each slice's maximum."""
    def softmax(z, axis=-1):
        z = np.asarray(z, dtype=np.float64)
        e = np.exp(z - shift(z, axis))
        return e / e.sum(axis=axis, keepdims=True)
    return softmax


def _finite(z, fill):
    return np.where(np.isfinite(z), z, fill)


_mistake_shift_first = mistake(
    "shift-by-first", "subtract each slice's maximum, not its first entry: a later, larger entry still overflows")(
    _shifted(lambda z, a: np.take(z, [0], axis=a)))
_mistake_shift_mean = mistake(
    "shift-by-mean", "subtract each slice's maximum, not its mean: an entry far above the mean still overflows")(
    _shifted(lambda z, a: z.mean(axis=a, keepdims=True)))
_mistake_shift_median = mistake(
    "shift-by-median", "subtract each slice's maximum, not its median: an entry far above it still overflows")(
    _shifted(lambda z, a: np.nanmedian(_finite(z, np.nan), axis=a, keepdims=True)))
_mistake_shift_min = mistake(
    "shift-by-min", "subtract each slice's maximum, not its minimum: a wide slice still overflows exp")(
    _shifted(lambda z, a: _finite(z, np.inf).min(axis=a, keepdims=True)))
_mistake_max_abs = mistake(
    "shift-by-max-magnitude", "subtract each slice's maximum, not its largest magnitude: a slice of large "
    "negative scores underflows to 0/0")(_shifted(lambda z, a: np.abs(z).max(axis=a, keepdims=True)))
_mistake_last_axis_max = mistake(
    "max-along-last-axis", "take the maximum along `axis` too, not along the last axis: only a shift constant "
    "along `axis` cancels out")(_shifted(lambda z, a: z.max(axis=-1, keepdims=True)))


@mistake("divide-by-max", "divide by the sum of the exponentials along the axis, not by their maximum")
def _divide_by_max(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.max(axis=axis, keepdims=True)


@mistake("clips-scores", "subtract each slice's maximum instead of clipping the scores: clipping changes the answer")
def _clips(z, axis=-1):
    e = np.exp(np.clip(z, -50.0, 50.0))
    return e / e.sum(axis=axis, keepdims=True)


@mistake("index-broadcast-2d", "reduce with keepdims=True instead of indexing with [:, None], which only fits 2-D "
                               "input along the last axis")
def _index_2d(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis)[:, None])
    return e / e.sum(axis=axis)[:, None]


@mistake("stable-only-2d", "subtract each slice's maximum on every path (1-D, batched, any axis), not only for 2-D "
                           "input along the last axis")
def _stable_2d(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    if z.ndim == 2 and axis in (-1, 1):
        z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


@mistake("unmasks-inf", "leave -inf scores as they are: exp(-inf) is exactly 0, while replacing them with 0 or "
                        "-1e4 lets blocked positions through")
def _inf_to_zero(z, axis=-1):
    z = np.where(np.isinf(z), 0.0, z)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@mistake("neginf-to-finite", "leave -inf scores as they are: a stand-in like -1e4 is not small next to scores near "
                             "-1e4, so blocked positions get weight")
def _neginf_to_1e4(z, axis=-1):
    z = np.where(np.isneginf(z), -1e4, np.asarray(z, dtype=np.float64))
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@mistake("float16-arithmetic", "compute in float64: float16 keeps about three significant digits")
def _float16(z, axis=-1):
    z = np.asarray(z, dtype=np.float16)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)


@mistake("float32-arithmetic", "compute in float64 at every size: float32 keeps about seven digits, so scores in the "
                               "thousands lose precision in their probabilities")
def _float32_large(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    work = z.astype(np.float32) if z.size >= 1 << 15 else z
    e = np.exp(work - work.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float64)


@mistake("modifies-input-1d", "copy before writing: the in-place path for a single vector overwrites the caller's "
                              "scores")
def _in_place_1d(z, axis=-1):
    if isinstance(z, np.ndarray) and z.ndim == 1 and z.dtype == np.float64:
        z -= z.max()
        np.exp(z, out=z)
        z /= z.sum()
        return z
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@mistake("modifies-input-large", "copy before writing: the in-place path for large arrays overwrites the caller's "
                                 "scores")
def _in_place_large(z, axis=-1):
    z = np.asarray(z, dtype=np.float64)
    buf = z if z.size >= 1 << 15 else z.copy()
    np.subtract(buf, buf.max(axis=axis, keepdims=True), out=buf)
    np.exp(buf, out=buf)
    buf /= buf.sum(axis=axis, keepdims=True)
    return buf


# -- mistakes that only move tiny probabilities ----------------------------------------------------------------
# Judged with DIAGNOSIS_ATOL = 0: a floor of 1e-12 or a flush below 1e-15 changes nothing an absolute tolerance of
# 1e-8 would see. The probe's scores lie 20 to 720 below the maximum (probabilities from 2e-9 down to the
# subnormal 2e-313), and each variant comes in the thresholds people pick.
DIAGNOSIS_ATOL = 0.0
_TINY_PROBE = np.array([[0.0, -20.0, -40.0, -60.0, -90.0, -300.0, -720.0],
                        [-45.0, 0.0, -5.0, -33.0, -710.0, -150.0, -75.0]])


def _plain(z, axis):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _tiny_variants(make, values):
    for value in values:
        for renormalised in (True, False):
            yield value, renormalised, make(value, renormalised)


def _floor(eps, renormalised):
    def softmax(z, axis=-1):
        p = _plain(z, axis) + eps
        return p / p.sum(axis=axis, keepdims=True) if renormalised else p
    return softmax


def _flush(threshold, renormalised):
    def softmax(z, axis=-1):
        p = _plain(z, axis)
        p = np.where(p < threshold, 0.0, p)
        return p / p.sum(axis=axis, keepdims=True) if renormalised else p
    return softmax


def _clip_shifted(low):
    def softmax(z, axis=-1):
        z = np.asarray(z, dtype=np.float64)
        e = np.exp(np.clip(z - z.max(axis=axis, keepdims=True), low, None))
        return e / e.sum(axis=axis, keepdims=True)
    return softmax


for _value, _renorm, _variant in _tiny_variants(_floor, (1e-15, 1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6)):
    globals()[f"_floor_{_value:g}_{_renorm}"] = mistake(
        "floor-on-probabilities", "do not add a small constant to the probabilities: every tiny one becomes that "
        "constant; if a later log must not see 0, take log-softmax as z - logsumexp(z) instead")(_variant)
for _value, _renorm, _variant in _tiny_variants(_flush, (1e-30, 1e-20, 1e-16, 1e-15, 1e-12, 1e-10, 1e-8)):
    globals()[f"_flush_{_value:g}_{_renorm}"] = mistake(
        "flushes-tiny-probabilities", "keep tiny probabilities as they are: setting those below a threshold to 0 "
        "loses the tail of every wide slice")(_variant)
for _value in (-700.0, -500.0, -100.0, -50.0):  # a clip keeps the sum at one: no renormalised twin
    globals()[f"_clip_shifted_{-_value:g}"] = mistake(
        "clips-shifted-scores", "do not clip the shifted scores: exp(-inf) is exactly 0 and exp(-720) is a "
        "number, while a clip at -700 turns both into exp(-700)")(_clip_shifted(_value))
del _value, _renorm, _variant


def probes(rng):  # noqa: F811 -- the probes above, then the tiny-probability one
    yield from _first_probes(rng)
    yield from probes_more(rng)
    yield "softmax", (_TINY_PROBE.copy(),), {}
    yield "softmax", (_masked_probe(rng),), {}
