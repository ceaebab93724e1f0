"""Hidden checks for the `xent` exercise."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    Fail,
    as_float,
    attempt,
    expect_raises,
    fmt,
    invariant,
    is_expected,
    isclose,
    mistake,
    shape_of,
)
from attnprep.ladders import Rung, f32_nudged, first_failing, spiky_rows, to_edge
from attnprep.wire import Unsupported

FUNCTIONS = ("cross_entropy",)

# At float32 the loss is a difference of log-sum-exps as large as the logits, so it keeps no more digits than they
# do: the absolute error float32 code may show (attnprep.precision; input rounding alone cannot show it).
FLOAT32_ROUNDING = {"cross_entropy": lambda args, kwargs: precision.rounding_of(args[0] if args else
                                                                               kwargs.get("logits", 0.0))}


# -- helpers --------------------------------------------------------------------

def _label(logits, targets):
    t = targets.tolist() if targets.size <= 6 else shape_of(targets)
    return f"cross_entropy(logits {shape_of(logits)}, targets {t})"


def _as_scalar(value, label, n):
    """Accept a Python or NumPy real scalar, or a 0-d array; Fail on anything else."""
    if value is None:
        raise Fail(f"{label} returned None; did you forget a return statement?")
    if isinstance(value, Unsupported):
        raise Fail(f"{label} returned {value}, expected one number")
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, dict)):
        raise Fail(f"{label} returned {type(value).__name__}, expected one number")
    if isinstance(value, (list, tuple)) or np.ndim(value) > 0:
        raise Fail(f"{label} returned an array of shape {shape_of(value)}, expected one number: "
                   f"the mean loss over the N = {n} rows")
    return float(as_float(value, f"the value of {label}"))


def _loss(cand, logits, targets):
    label = _label(logits, targets)
    value = cand.call_as(label, "cross_entropy", logits, targets)  # errors name the shapes and targets
    return _as_scalar(value, label, logits.shape[0]), label


def _close(got, want, label, context="", rtol=1e-6, atol=1e-9, why_not_finite="", question=""):
    if not np.isfinite(got):
        why = why_not_finite or context
        raise Fail(f"{label} {is_expected(got, want)}: overflow, 0/0 or log(0)"
                   f"{'; ' + why if why else ''}")
    if not isclose(got, want, rtol=rtol, atol=atol):
        if question and abs(got - want) <= 1e-4 * max(abs(want), 1.0):  # rounding-sized: the question is the point
            context = f"{context}: {question}"
        raise Fail(f"{label} {is_expected(got, want)}{' (' + context + ')' if context else ''}")


def _mean_hint(got, want, n, vocab):
    """Name the usual wrong reductions when the value gives them away."""
    if n > 1 and isclose(got, n * want, rtol=1e-6):
        return f"; {fmt(got)} is {n} times the mean: the sum over N instead of the mean"
    if vocab > 1 and isclose(got, want / vocab, rtol=1e-6):
        return f"; {fmt(got)} is the mean divided by V = {vocab}: averaged over all N x V entries, not over N"
    return ""


def _targets(rng, n, vocab, dtype=np.int64):
    return rng.integers(0, vocab, size=n).astype(dtype)


# -- invariants ----------------------------------------------------------------

@invariant("uniform", "equal logits in every row give log V")
def uniform(cand, ref, rng):
    # One row at a time, so that how the rows are averaged (the business of `mean`) cannot show here.
    cases = [(10, 0.0), (2, 0.0), (1000, 2.5), (7, float(rng.normal(scale=3.0))), (3, -1.5)]
    for vocab, value in cases:
        logits = np.full((1, vocab), value)
        targets = _targets(rng, 1, vocab)
        got, label = _loss(cand, logits, targets)
        _close(got, np.log(vocab), f"{label} with every logit equal to {fmt(value)}",
               context=f"log(V) = log({vocab}): equal logits mean a uniform distribution over the V classes")


def _near(logits, targets, margin, sign):
    """The same rows with the target's logit `margin` above every other (sign +1) or below (sign -1)."""
    out = logits.copy()
    n = len(targets)
    if sign > 0:
        out[np.arange(n), targets] = logits.max(axis=1) + margin
    else:
        out[np.arange(n), targets] = logits.min(axis=1) - margin
    return out


# Past the small cases: a vocabulary of 4,099 (past 1,024 and 4,096, where code may switch to another method "for
# large vocabularies") and a batch of 257 (past 64 and 256), both margins each. Odd sizes: no chunk ends on the last.
CONFIDENT_LARGE = [Rung(label, (n, v, margin, sign)) for label, n, v in (("V = 4,099", 3, 4099), ("N = 257", 257, 7))
                   for margin, sign in ((5000.0, 1), (1000.0, -1))]


@invariant("confident", "a huge margin gives a loss near 0 when the target wins, and a finite loss when it loses, "
                        "up to V = 4,099 and N = 257; a margin of 14 or 19 a small loss, to rtol 1e-6")
def confident(cand, ref, rng):
    # A loss that is not finite at a huge margin always fails. Its value is held to the reference only when the
    # candidate matches it (to 1e-4) on the same rows at an ordinary margin of 2: a loss that is wrong at every
    # margin (a wrong reduction, say) is the business of the other invariants, not of large margins.
    # Margins of 14 and 19 too: losses near 1e-5 and 1e-6, held to rtol 1e-6 like any other, so a sum of exps
    # rounded in float32 (near 1, by up to 6e-8) shows; a float64 log-sum-exp is off by about |logit| * 1e-16.
    cases = [(4, 6, 1000.0, 1), (3, 50, 100.0, 1), (1, 3, 5000.0, 1), (4, 6, 1000.0, -1), (2, 30, 800.0, -1),
             (4, 50, 14.0, 1), (3, 1000, 19.0, 1)]
    for case in cases:
        _confident_case(cand, ref, rng, *case)
    first_failing(CONFIDENT_LARGE, lambda rung: _confident_case(cand, ref, rng, *rung.value))


def _confident_case(cand, ref, rng, n, vocab, margin, sign):
    """One case of `confident`: the target `margin` above every other logit of its row (sign +1) or below (-1)."""
    logits = rng.normal(size=(n, vocab))
    targets = _targets(rng, n, vocab)
    ordinary = _near(logits, targets, 2.0, sign)
    at_two = _value(cand, ordinary, targets)
    huge = _near(logits, targets, margin, sign)
    got, label = _loss(cand, huge, targets)
    if sign > 0 and margin < 100:
        context = (f"each target's logit beats every other by {fmt(margin)}: its probability is nearly 1, the loss "
                   f"small but not 0, and held to a relative 1e-6 like any other")
    elif sign > 0:
        context = f"each target's logit beats every other by {fmt(margin)}: its probability is 1, the loss 0"
        not_finite = (f"each target's logit beats every other by {fmt(margin)}, so the other probabilities "
                      "underflow to 0; a log(0), or 0 * log(0), anywhere turns the loss into inf or nan")
    else:
        context = (f"each target's logit trails the top one by more than {fmt(margin)}: a confidently wrong "
                   f"prediction, whose loss is a little over {fmt(margin)}")
        not_finite = (f"each target's logit trails the top one by more than {fmt(margin)}, so its softmax "
                      "probability underflows to 0 and log(0) = -inf; the true loss is a little over "
                      f"{fmt(margin)}, finite")
    want = ref.cross_entropy(huge, targets)
    if not np.isfinite(got):
        _close(got, want, label, why_not_finite=not_finite)
    fine = isinstance(at_two, float) and isclose(at_two, ref.cross_entropy(ordinary, targets), rtol=1e-4)
    if fine:
        # A small loss is a difference of two log-sum-exps near the largest logit: float64 keeps it to a few units of
        # that logit's last place per class summed, far below 1e-9 (the absolute floor of other checks) here.
        atol = min(1e-9, 4 * vocab * np.finfo(np.float64).eps * max(1.0, float(np.abs(huge).max())))
        _close(got, want, label, context=context + f"; at a margin of 2 it comes out right ({fmt(at_two)})",
               atol=atol, question="is every step, the sum of exps included, computed in float64?")


def _value(cand, logits, targets):
    return attempt(lambda: _loss(cand, logits, targets)[0])


def _same(a, b):
    return isinstance(a, float) and isinstance(b, float) and bool(isclose(a, b, rtol=1e-6, atol=1e-9))


@invariant("stable", "no overflow for logits near +-1e4 or rows at very different scales, up to V = 4,099 and "
                     "N = 257")
def stable(cand, ref, rng):
    # Each case is a moderate batch plus one large constant per row. The true loss does not change under
    # such a shift, so the candidate is held to its own value on the moderate batch, but only when it also
    # keeps that value under a small shift of the same kind (a candidate that is not shift-invariant at all
    # is the business of `shift-invariant`); and held to the reference only when it matches it on the
    # moderate batch. A loss that is not finite at large logits but finite at moderate ones always fails.
    n, vocab = 4, 6
    small = np.array([0.5, -4.0, 6.0, 2.0])
    cases = {
        "logits near +1e4": np.full(n, 1e4),
        "logits near -1e4": np.full(n, -1e4),
        "rows at scales 0, +1e4, -1e4 and 500": np.array([0.0, 1e4, -1e4, 500.0]),
        "one row at +1e4, the rest near 0": np.array([1e4, 0.0, 0.0, 0.0]),
    }
    for name, offsets in cases.items():
        base = rng.normal(scale=3.0, size=(n, vocab))
        targets = _targets(rng, n, vocab)
        moderate = _value(cand, base, targets)
        if not isinstance(moderate, float) or not np.isfinite(moderate):
            continue  # a crash or inf/nan on moderate logits is another bug, not overflow
        # rows at +-1e4 reach the documented range's edge and go no further
        edge = np.array([to_edge(row, o) if abs(o) == 1e4 else o for row, o in zip(base, offsets, strict=True)])
        logits = base + edge[:, None]
        got = _value(cand, logits, targets)
        label = _label(logits, targets)
        if isinstance(got, Broke) and got.raised:
            raise Fail(f"{label} with {name} raised {got.text}, although the same logits without the large offsets "
                       "work: exp overflows; subtract each row's own maximum before np.exp and add it back after "
                       "the log")
        if isinstance(got, Broke):
            continue
        if not np.isfinite(got):
            raise Fail(f"{label} with {name} is {fmt(got)}, although the same logits without the large "
                       f"offsets give {fmt(moderate)}: exp overflows or a row's sum of exps underflows to 0 "
                       "(log(0)); subtract each row's own maximum before np.exp and add it back after the log")
        if _same(_value(cand, base + small[:, None], targets), moderate) and not _same(got, moderate):
            raise Fail(f"{label} with {name} is {got:.10g}, but the same logits without the large offsets "
                       f"give {moderate:.10g}; a constant added to a row does not change the loss, so precision "
                       "is lost at this magnitude (subtract each row's maximum, compute in float64)")
        if _same(moderate, ref.cross_entropy(base, targets)):
            _close(got, ref.cross_entropy(logits, targets), label,
                   context=f"{name}; moderate logits of this shape come out right, so precision is lost at this "
                           "magnitude (subtract each row's maximum, compute in float64)")

    # Rows whose maximum sits at a random inner position, a few logits near it and the rest 1,000 to 5,000 below,
    # at +-2,500 to +-5,000: a shift by anything but each row's own maximum (the first logit, the target's, the
    # mean, the minimum, one maximum for the batch) overflows or underflows there. Held to the reference when the
    # candidate is right on moderate logits of the same shape; N = 1, then a batch, then a vocabulary of 4,099 and a
    # batch of 257 (past 1,024 and 4,096 classes, past 64 and 256 rows: where code may switch method by size).
    def judge(rung):
        n, vocab = rung.value
        targets = _targets(rng, n, vocab)
        base = rng.normal(scale=3.0, size=(n, vocab))
        moderate = _value(cand, base, targets)
        if not _same(moderate, ref.cross_entropy(base, targets)):
            return  # wrong, or a crash, on moderate logits already: the business of the other invariants
        logits = spiky_rows(rng, (n, vocab))
        got = _value(cand, logits, targets)
        label = _label(logits, targets)
        where = ", ".join(f"row {i}'s maximum {fmt(logits[i].max())} at class {int(np.argmax(logits[i]))} "
                          f"(its first logit {fmt(logits[i, 0])})" for i in range(min(n, 2)))
        if isinstance(got, Broke):
            if got.raised:
                raise Fail(f"{label} raised {got.text}, although moderate logits of this shape work: {where}; "
                           "subtract each row's own maximum before np.exp and add it back after the log")
            return
        _close(got, ref.cross_entropy(logits, targets), label,
               context=f"{where}, the rest of each row 1,000 or more below; moderate logits of this shape come out "
                       "right: subtract each row's own maximum before np.exp and add it back after the log",
               why_not_finite=f"{where}, the rest of each row 1,000 or more below: exp overflows, or a row's sum of "
                              "exps underflows to 0 (log(0)), unless each row is shifted by its own maximum")
    first_failing([Rung("N = 1, V = 9", (1, 9)), Rung("N = 6, V = 9", (6, 9)), Rung("V = 4,099", (3, 4099)),
                   Rung("N = 257", (257, 9))], judge)


@invariant("shift-invariant", "adding a constant to every logit of a row changes nothing")
def shift_invariant(cand, ref, rng):
    n, vocab = 5, 8
    logits = rng.normal(scale=2.0, size=(n, vocab))
    targets = _targets(rng, n, vocab)
    base, label = _loss(cand, logits, targets)
    for shift in (np.array([0.5, -40.0, 800.0, -800.0, 2500.0]), np.full(n, 1000.0), np.full(n, -3000.0),
                  rng.normal(scale=300.0, size=n)):
        got, _ = _loss(cand, logits + shift[:, None], targets)
        what = "a shift of " + (fmt(shift[0]) + " on every row" if np.all(shift == shift[0])
                                else "[" + ", ".join(fmt(s) for s in shift) + "] row by row")
        # rtol 1e-4: a few digits lost at large logits are the business of `stable`; a loss that is not
        # shift-invariant at all moves by far more
        if not np.isfinite(got) or not isclose(got, base, rtol=1e-4, atol=1e-6):
            raise Fail(f"{label} is {fmt(base)}, but after adding {what} to the logits it is {fmt(got)}; "
                       "adding a constant to a whole row does not change its softmax")


def _circulant(rng, vocab):
    """(V, V) logits whose rows are shifts of one row: every column holds the same values as every row, so a softmax
    over the rows gives the same numbers as one over the columns, and each row has the same log-sum-exp."""
    c = rng.permutation(np.linspace(-2.0, 2.0, vocab)) + rng.normal(scale=0.05, size=vocab)
    return np.stack([np.roll(c, i) for i in range(vocab)])


@invariant("mean", "the loss is the mean over the N rows, not the sum (N = 1 too)")
def mean(cand, ref, rng):
    # The candidate against itself. 1. Changing one row's target changes the mean by that row's change divided
    # by N: with these logits every row has the same log-sum-exp, so the change is the gap between the two target
    # logits, whatever axis the softmax runs over or how the log-sum-exp is written.
    for vocab in (5, 8):
        logits = _circulant(rng, vocab)
        targets = _targets(rng, vocab, vocab)
        base, label = _loss(cand, logits, targets)
        r = int(rng.integers(vocab))
        moved = targets.copy()
        moved[r] = (targets[r] + 1 + int(rng.integers(vocab - 1))) % vocab
        got, label2 = _loss(cand, logits, moved)
        gap = logits[r, targets[r]] - logits[r, moved[r]]
        want = base + gap / vocab
        if not np.isfinite(got) or not isclose(got, want, rtol=1e-6, atol=1e-9):
            change = got - base
            ratio = f", {fmt(change / (gap / vocab))} times that" if gap and np.isfinite(change) else ""
            raise Fail(f"{label2} is {fmt(got)}, but with row {r}'s target {int(targets[r])} instead of "
                       f"{int(moved[r])} it is {fmt(base)}: the change of one row's loss ({fmt(gap)}, the gap between "
                       f"its two target logits, as every row has the same log-sum-exp here) should move the mean over "
                       f"the N = {vocab} rows by {fmt(gap / vocab)}; it moved by {fmt(change)}{ratio}; average the N "
                       "per-row losses, each the loss of its own row's target")
    # 2. A class no row gives any probability (60 below each row's least logit) changes no row's loss, so neither
    #    does it change their mean; N = 1 too.
    for n in (1, 4):
        vocab = 6
        logits = rng.normal(scale=2.0, size=(n, vocab))
        targets = _targets(rng, n, vocab)
        base, label = _loss(cand, logits, targets)
        wider = np.hstack([logits, logits.min(axis=1, keepdims=True) - 60.0])
        got, label2 = _loss(cand, wider, targets)
        if not np.isfinite(got) or not isclose(got, base, rtol=1e-6, atol=1e-9):
            raise Fail(f"{label2} is {fmt(got)}, but without its last class, whose logit is 60 below every other "
                       f"of its row (probability about 1e-26), {label} is {fmt(base)}: that class changes no row's "
                       f"loss, so the mean over the N = {n} rows cannot change either; average over the N rows only, "
                       "not over all N x V entries")


# Out of range in every way: one past the end and far past it, -1 (NumPy's last class), -100 (PyTorch's
# ignore_index, which this contract does not have), -V (the first class, from the end) and one below that.
# Int64 targets also past 2**31 and 2**32, and 2**32 below a valid class: a cast to int32 (or uint32) before the range
# check wraps 2**31 + 1 to a negative number but 2**32 + 1 and 1 - 2**32 to class 1, which the check then accepts.
def _bad_targets(vocab, dtype=np.int64):
    wide = (2**31 + 1, 2**32 + 1, 1 - 2**32, 2**32 + vocab - 1) if dtype == np.int64 else ()
    return (vocab, vocab + 100, -1, -100, -vocab, -vocab - 1, *wide)


@invariant("bad-input", "a target outside 0..V-1 raises ValueError: V, V + 100, -1, -100 (no ignore_index), -V, "
                        "past 2**31 and 2**32 (int64), in any row, int32 or int64, N = 1 to 4,099")
def bad_input(cand, ref, rng):
    rungs = [Rung("N = 1", (1, 5, np.int64)), Rung("N = 4", (4, 5, np.int64)), Rung("int32 targets", (4, 5, np.int32)),
             Rung("N = 4,099, V = 16", (4099, 16, np.int64)),  # odd: rows checked in chunks leave a tail
             # Vocabularies past 2**8 and 2**16: targets cast to a small unsigned type wrap -1 to 255 or 65,535,
             # a valid class there, so a range check made after the cast never sees the bad target.
             Rung("V = 300", (3, 300, np.int64)), Rung("V = 70,000", (2, 70_000, np.int64))]

    def judge(rung):
        n, vocab, dtype = rung.value
        logits = rng.normal(size=(n, vocab))
        for i, bad in enumerate(_bad_targets(vocab, dtype)):
            targets = _targets(rng, n, vocab, dtype)
            row = (0, n - 1, int(rng.integers(0, n)))[i % 3]  # the first row, the last, anywhere
            targets[row] = bad
            expect_raises(cand, "ValueError", "cross_entropy", logits, targets,
                          what=f"{_label(logits, targets)} with targets[{row}] = {bad}, outside 0..{vocab - 1}")
    first_failing(rungs, judge)


# N = 1 and V = 1 at the edges, then one call of 65,536 logits with rows offset by +-4,200 to +-8,000 (float32 keeps
# only about 3 decimals there), each nudged off float32's grid so that a float32 cast lowers every target's loss by
# about 4e-4: an error of one sign, which the mean over the rows cannot average away.
# V = 300 and 70,000 too: targets past 255 and 65,535, which a cast to uint8 or uint16 wraps to another class.
LADDER = [Rung(f"N = {n:,}, V = {v:,}", (n, v)) for n, v in ((1, 1), (3, 1), (1, 5), (4, 10), (16, 3), (7, 100),
                                                             (4, 300), (2, 70_000))]
LARGE = Rung("N = 521, V = 127 (66,167 logits)", (521, 127))  # odd sizes: no chunk of rows ends on the last
# The same rows at large vocabularies: past 32,768 and 65,536 classes, and past Llama 3's 128,256, where code may
# switch to float32 "to save memory on big vocabularies".
LARGE_VOCAB = [Rung("N = 2, V = 32,771", (2, 32_771)), Rung("N = 1, V = 131,101", (1, 131_101))]
# Past 1,000 and 2,048 rows, where code may average chunks of rows (a mean of chunk means is not the mean unless
# every chunk is full) or switch method "for large batches"; prime, so that no chunk size divides it.
LONG_BATCH = Rung("N = 2,053, V = 13", (2053, 13))


@invariant("matches-reference", "matches a reference cross-entropy to rtol 1e-6, N = 1 to 2,053 and V = 1 to "
                                "131,101 (66,167 logits in one call), logits near +-8,000 at V = 127 to 131,101")
def matches_reference(cand, ref, rng):
    def judge(rung):
        n, vocab = rung.value
        for s, dtype in ((0.1, np.int64), (1.0, np.int32), (10.0, np.int64)):
            logits = rng.normal(scale=s, size=(n, vocab))
            targets = _targets(rng, n, vocab, dtype)
            if vocab > 256:
                targets[-1] = vocab - 1  # a class past 255 (past 65,535 at V = 70,000) in every call
            got, label = _loss(cand, logits, targets)
            _close(got, ref.cross_entropy(logits, targets), label)

    def judge_large(rung):
        n, vocab = rung.value
        if rung is not LARGE and precision.current() != precision.FLOAT64:
            # A float32 file is judged at float32 precision, and float32 code summing 32,771 terms near 8,000 one
            # at a time (np.logaddexp along a row) is right to float32's rounding of each step, far above 1e-6.
            return
        # one sign per call at the large vocabularies: rows at scales far apart are the business of `stable`
        signs = rng.choice([-1.0, 1.0], size=(n, 1) if rung is LARGE else 1)
        offsets = signs * rng.uniform(4200.0, 8000.0, size=(n, 1))
        targets = _targets(rng, n, vocab)
        target = np.zeros((n, vocab), dtype=bool)
        target[np.arange(n), targets] = True
        logits = f32_nudged(offsets + rng.normal(scale=3.0, size=(n, vocab)), np.where(target, -1.0, 1.0))
        got, label = _loss(cand, logits, targets)
        _close(got, ref.cross_entropy(logits, targets), label,
               context="rows offset by +-4,200 to +-8,000, off float32's grid",
               question="is everything computed in float64 at this size?")
    first_failing([*LADDER, LONG_BATCH], judge)
    first_failing([LARGE, *LARGE_VOCAB], judge_large)


@invariant("input-unchanged", "logits and targets are not modified, N = 1 to 16, int32 or int64 targets (and in "
                              "every call of every check, 131,101 logits included)")
def input_unchanged(cand, ref, rng):
    rungs = [Rung(r.label, (*r.value, 1.0, np.int64)) for r in LADDER[::2]]
    rungs += [Rung("logits near 100", (3, 5, 100.0, np.int64)), Rung("int32 targets", (4, 6, 1.0, np.int32))]

    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        n, vocab, s, dtype = rung.value
        logits = rng.normal(scale=s, size=(n, vocab))
        targets = _targets(rng, n, vocab, dtype)
        for _ in range(2 if logits.size < 1_000 else 1):  # twice: a change may come on a later call only
            attempt(cand.cross_entropy, logits, targets)
    first_failing(rungs, judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    # N != V, distinct rows: the reduction and the softmax axis show.
    yield "cross_entropy", (rng.normal(scale=2.0, size=(4, 6)), np.array([0, 5, 2, 2])), {}
    # N == V: a missing keepdims broadcasts silently here.
    yield "cross_entropy", (rng.normal(scale=2.0, size=(5, 5)), np.array([1, 4, 0, 3, 3])), {}
    # every logit near +1e4; then rows at scales 0, +1e4, -1e4 and 500.
    yield "cross_entropy", (1e4 + rng.normal(scale=3.0, size=(3, 5)), np.array([4, 0, 2])), {}
    logits = rng.normal(size=(4, 6)) + np.array([[0.0], [1e4], [-1e4], [500.0]])
    yield "cross_entropy", (logits, np.array([1, 3, 5, 0])), {}
    # rows at 1e4 and 500 only: one maximum of the whole batch gives log(0) in the second row, while a per-row
    # shift made only for rows past exp's range (a different mistake, caught by `stable`) is right here
    logits = rng.normal(size=(2, 6)) + np.array([[1e4], [500.0]])
    yield "cross_entropy", (logits, np.array([2, 4])), {}
    # confidently right: the other probabilities underflow to 0
    logits = rng.normal(size=(3, 7))
    targets = np.array([6, 0, 3])
    logits[np.arange(3), targets] = logits.max(axis=1) + 1000.0
    yield "cross_entropy", (logits, targets), {}
    # confidently wrong: the target's probability underflows (in row 0 a non-target's as well)
    logits = rng.normal(size=(3, 7))
    targets = np.array([2, 5, 0])
    logits[np.arange(3), targets] = logits.min(axis=1) - 1000.0
    logits[0, 4] = logits[0, 2]
    yield "cross_entropy", (logits, targets), {}
    # confidently wrong by 720: the target's probability is a tiny subnormal, not 0, but exp(720) overflows
    logits = rng.normal(size=(3, 5))
    targets = np.array([1, 4, 2])
    logits[np.arange(3), targets] = logits.max(axis=1) - 720.0
    yield "cross_entropy", (logits, targets), {}
    # a target of V, and one of -1
    logits = rng.normal(size=(3, 4))
    yield "cross_entropy", (logits, np.array([0, 4, 1])), {}
    yield "cross_entropy", (logits, np.array([2, -1, 1])), {}
    # PyTorch's ignore_index: a target of -100
    yield "cross_entropy", (logits, np.array([2, -100, 1])), {}
    # one logit 700 above its row's typical logit and 2,700 above the rest: exp(z - max) and even exp(z) are
    # finite, exp(z - mean) is not
    logits = rng.normal(size=(3, 5)) + np.array([700.0, -2000.0, -2000.0, -2000.0, -2000.0])
    yield "cross_entropy", (logits, np.array([0, 0, 0])), {}
    yield "cross_entropy", _rounding_probe(rng), {}
    # confidently wrong again, with no target in column 0: a shift by the first logit stays finite here
    logits = rng.normal(size=(3, 6))
    targets = np.array([3, 1, 5])
    logits[np.arange(3), targets] = logits.min(axis=1) - 1000.0
    yield "cross_entropy", (logits, targets), {}


def _rounding_probe(rng):
    """64 rows of 520 logits near 1e4 on float32's grid, whose losses float32 rounds by a third of its step or more.

    Each row has its target at the row maximum m and every other logit at m - a, so the loss is
    log(1 + 519 exp(-a)), chosen per row as 0.3, 0.7, 1.3 or 1.7 times float32's step of 2**-10 at 1e4. The
    log-sum-exp m + loss is then rounded in float32 to a grid point a third of a step or more away, whatever the
    order of summation (every other rounding stays near 1e-7), and the loss of each row becomes 0 or one or two steps.
    33,280 logits: a size that code switching to float32 "for large batches" is likely to reach.
    """
    N, V, step = 64, 520, 2.0**-10
    m = 1e4 + step * rng.integers(-2000, 2000, size=N)
    loss = step * rng.choice([0.3, 0.7, 1.3, 1.7], size=N)
    a = -np.log(np.expm1(loss) / (V - 1))
    a = np.round(a / step) * step  # on the grid too, so z - m is exact in float32 (the loss moves by < 1e-6)
    targets = rng.integers(0, V, size=N)
    logits = np.repeat((m - a)[:, None], V, axis=1)
    logits[np.arange(N), targets] = m
    return logits, targets


def _check(logits, targets):
    if np.any((targets < 0) | (targets >= logits.shape[1])):
        raise ValueError("target out of range")


def _log_softmax(logits, axis=1):
    m = logits.max(axis=axis, keepdims=True)
    return logits - m - np.log(np.exp(logits - m).sum(axis=axis, keepdims=True))


def _picked(log_probs, targets):
    return log_probs[np.arange(len(targets)), targets]


@mistake("sum-instead-of-mean", "return the mean of the per-row losses over the N rows, not their sum")
def _sum(logits, targets):
    _check(logits, targets)
    return float(-np.sum(_picked(_log_softmax(logits), targets)))


@mistake("mean-over-all-entries", "average over the N rows only: the mean over all N x V entries of a "
         "one-hot product divides the loss by V")
def _mean_over_all_entries(logits, targets):
    _check(logits, targets)
    return float(-np.mean(_picked(_log_softmax(logits), targets)) / logits.shape[1])


@mistake("softmax-wrong-axis", "normalise each row over the vocabulary (axis=1), not over the batch (axis 0)")
def _softmax_over_batch(logits, targets):
    _check(logits, targets)
    return float(-np.mean(_picked(_log_softmax(logits, axis=0), targets)))


@mistake("missing-keepdims", "reduce with keepdims=True (or index [:, 0]) so each row's max and sum broadcast "
         "back over its own logits")
def _missing_keepdims(logits, targets):
    _check(logits, targets)
    m = logits.max(axis=1)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=1))
    return float(-np.mean(_picked(log_probs, targets)))


@mistake("no-max-subtraction", "subtract each row's maximum before np.exp (log-sum-exp): logits near 1e4 "
         "overflow to inf")
def _no_max_subtraction(logits, targets):
    _check(logits, targets)
    lse = np.log(np.exp(logits).sum(axis=1))
    return float(np.mean(lse - _picked(logits, targets)))


@mistake("global-max", "subtract the maximum of each row (axis=1), not one maximum of the whole batch: a row far "
         "below it gives log(0)")
def _global_max(logits, targets):
    _check(logits, targets)
    m = logits.max()
    lse = m + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - _picked(logits, targets)))


@mistake("log-of-softmax", "compute log-softmax directly as (z - max) - log(sum(exp(z - max))): the log of a "
         "softmax probability that underflowed to 0 is -inf")
def _log_of_softmax(logits, targets):
    _check(logits, targets)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return float(-np.mean(np.log(_picked(e / e.sum(axis=1, keepdims=True), targets))))


@mistake("one-hot-times-log", "pick each row's target log-probability by indexing (log_probs[np.arange(N), "
         "targets]): a one-hot times log(0) gives 0 * -inf = nan")
def _one_hot_times_log(logits, targets):
    _check(logits, targets)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    one_hot = np.eye(logits.shape[1])[targets]
    return float(-np.sum(one_hot * np.log(e / e.sum(axis=1, keepdims=True))) / logits.shape[0])


@mistake("negative-targets-wrap", "also reject negative targets with ValueError: NumPy reads -1 as the last "
         "class")
def _negative_wraps(logits, targets):
    if np.any(targets >= logits.shape[1]):
        raise ValueError("target out of range")
    return float(-np.mean(_picked(_log_softmax(logits), targets)))


@mistake("no-validation", "raise ValueError for a target outside 0..V-1 before indexing: NumPy raises "
         "IndexError for V and reads -1 as the last class")
def _no_validation(logits, targets):
    return float(-np.mean(_picked(_log_softmax(logits), targets)))


@mistake("shift-by-target", "shift each row by its maximum, not by the target's logit: exp(z_j - z_target) "
         "overflows to inf once the target trails another logit by more than about 709")
def _shift_by_target(logits, targets):
    _check(logits, targets)
    n = len(targets)
    picked = logits[np.arange(n), targets]
    others = np.exp(logits - picked[:, None])
    others[np.arange(n), targets] = 0.0
    return float(np.mean(np.log1p(others.sum(axis=1))))


@mistake("max-not-added-back", "add the row maximum back: logsumexp(z) = m + log(sum(exp(z - m))), and the loss is "
         "logsumexp(z) - z[target]")
def _max_not_added_back(logits, targets):
    _check(logits, targets)
    m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(axis=1))
    return float(np.mean(lse - _picked(logits, targets)))


@mistake("targets-index-grid", "pick one entry per row with log_probs[np.arange(N), targets]: log_probs[:, targets] "
         "is an N x N grid of every row at every target")
def _index_grid(logits, targets):
    _check(logits, targets)
    return float(-np.mean(_log_softmax(logits)[:, targets]))


def _epsilon_guard(eps):
    @mistake("epsilon-in-log", "do not guard log(0) with an epsilon: -log(p + eps) caps a confidently wrong loss at "
             "-log(eps); compute logsumexp(z) - z[target] in log space, which stays finite and exact")
    def variant(logits, targets):
        _check(logits, targets)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return float(-np.mean(np.log(_picked(e / e.sum(axis=1, keepdims=True), targets) + eps)))
    return variant


# The usual epsilons, one variant each (the diagnosis finds module-level functions): -log(p + eps) and
# -log(max(p, eps)) agree to its tolerance.
_eps6, _eps7, _eps8, _eps9, _eps10, _eps12, _eps15, _eps20 = (
    _epsilon_guard(eps) for eps in (1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-12, 1e-15, 1e-20))


@mistake("missing-minus", "the loss is MINUS the mean log-probability of the targets: -log p is positive")
def _missing_minus(logits, targets):
    _check(logits, targets)
    return float(np.mean(_picked(_log_softmax(logits), targets)))


@mistake("per-row-losses", "return one number, the mean of the N per-row losses, not the vector of them")
def _per_row(logits, targets):
    _check(logits, targets)
    return -_picked(_log_softmax(logits), targets)


@mistake("target-range-off-by-one", "reject targets >= V (and < 0) with ValueError: a target equal to V is out "
         "of range too")
def _range_off_by_one(logits, targets):
    if np.any(targets == logits.shape[1]):
        raise IndexError("index out of bounds")
    _check(logits, targets)
    return float(-np.mean(_picked(_log_softmax(logits), targets)))


@mistake("in-place-shift", "subtract the row maximum into a new array (z = logits - m): logits -= m rewrites "
         "the caller's logits")
def _in_place_shift(logits, targets):
    _check(logits, targets)
    out = float(-np.mean(_picked(_log_softmax(logits), targets)))
    logits -= logits.max(axis=1, keepdims=True)
    return out


def _clipped(bound):
    @mistake("clips-logits", "do not clip the logits: subtracting each row's maximum already keeps np.exp from "
                             "overflowing, and clipping changes the loss of large logits")
    def variant(logits, targets):
        _check(logits, targets)
        return float(-np.mean(_picked(_log_softmax(np.clip(logits, -bound, bound)), targets)))
    return variant


# The usual bounds, one variant each (the probes with logits near 1e4, 500 and 1000 apart tell them apart).
_clip30, _clip50, _clip80, _clip88, _clip100, _clip500, _clip700 = (
    _clipped(b) for b in (30.0, 50.0, 80.0, 88.0, 100.0, 500.0, 700.0))


@mistake("shift-by-mean", "subtract each row's maximum before np.exp, not its mean: a logit far above the mean still "
                          "overflows")
def _shift_by_mean(logits, targets):
    _check(logits, targets)
    c = logits.mean(axis=1, keepdims=True)
    lse = c[:, 0] + np.log(np.exp(logits - c).sum(axis=1))
    return float(np.mean(lse - _picked(logits, targets)))


@mistake("ignore-index", "reject a target of -100 with ValueError like any other out of range: this exercise has no "
                         "ignore_index, and no row may be skipped")
def _ignore_index(logits, targets):
    keep = targets != -100
    _check(logits, targets[keep])
    rows = np.flatnonzero(keep)
    return float(-np.mean(_log_softmax(logits)[rows, targets[rows]]))


@mistake("float32-arithmetic", "compute in float64 at every size: near 1e4 float32 keeps only about three decimals, "
                               "so the log-sum-exp of large logits loses the loss's digits")
def _float32_large(logits, targets):
    # Float32 only on a large input: on the small probes float32's rounding is noise near the tolerance, which would
    # make the verdict a matter of chance; the rounding probe (33,280 logits) tells it apart exactly.
    _check(logits, targets)
    z = logits.astype(np.float32) if logits.size >= 4096 else logits
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - _picked(z, targets)))


@mistake("shift-by-first", "shift each row by its maximum, not by its first logit: a logit about 709 above the first "
                           "overflows np.exp")
def _shift_by_first(logits, targets):
    _check(logits, targets)
    c = logits[:, :1]
    lse = c[:, 0] + np.log(np.exp(logits - c).sum(axis=1))
    return float(np.mean(lse - _picked(logits, targets)))
