"""Hidden checks for the `rmsnorm` exercise: rms_norm and layer_norm over the last axis."""

import numpy as np

from attnprep import precision
from attnprep.grading import (
    Broke,
    CandidateError,
    Fail,
    allclose,
    as_float,
    attempt,
    check_close,
    check_finite,
    check_shape,
    fmt,
    invariant,
    is_expected,
    isclose,
    median,
    mistake,
    own_allowance,
    shape_of,
    tolerance,
    worst_entry,
)
from attnprep.ladders import Rung, beyond_f32, dims, first_failing, large_shape, offset_rows, shape_label

FUNCTIONS = ("rms_norm", "layer_norm")


def _centering_rounding(args, kwargs):
    """At float32, x - mean(x) is off by as much as the mean rounds, which the normalisation divides by the spread:
    about eps32 * |x| / std(x) per vector, times the weight (attnprep.precision)."""
    x = np.asarray(args[0] if args else kwargs["x"], dtype=np.float64)
    weight = args[1] if len(args) > 1 else kwargs.get("weight", 1.0)
    with np.errstate(all="ignore"):
        ratio = np.max(np.abs(x), axis=-1) / np.maximum(np.std(x, axis=-1), 1e-300)
        ratio = float(np.max(ratio[np.isfinite(ratio)], initial=0.0))
    return precision.rounding_of(ratio) * max(1.0, float(np.max(np.abs(weight), initial=0.0)))


FLOAT32_ROUNDING = {"layer_norm": _centering_rounding}

DEFAULT_EPS = {"rms_norm": 1e-6, "layer_norm": 1e-5}
# Non-square on purpose (T != d, B != T), plus length-1 axes.
SHAPES = [(6,), (1,), (3, 7), (7, 3), (1, 5), (2, 3, 5), (4, 1, 6)]


# -- helpers ----------------------------------------------------------------------

def _label(fn, x, eps=None):
    args = "x, weight" if fn == "rms_norm" else "x, weight, bias"
    extra = "" if eps is None else f", eps={eps:g}"
    return f"{fn}({args}{extra}) with x of shape {shape_of(x)}"


def _call(cand, fn, x, weight, bias=None, eps=None):
    """Run one candidate function; return its output (shape already checked) and a label."""
    label = _label(fn, x, eps)
    args = (x, weight) if fn == "rms_norm" else (x, weight, bias)
    kwargs = {} if eps is None else {"eps": eps}
    try:
        value = cand.call(fn, *args, **kwargs)
    except CandidateError as err:
        if err.is_a("ValueError") and "broadcast" in err.text and not err.not_implemented:
            line = f" (line {err.line})" if err.line else ""
            raise Fail(f"{label} raised ValueError: {err.text}{line}. A reduction over the last axis drops "
                       "that axis; keepdims=True keeps it, so the statistic broadcasts back against x") from None
        raise
    out = as_float(value, label)
    check_shape(out, np.shape(x), label)
    return out, label


def _norm(fn, x, weight, bias=None, eps=None, axis=-1, keepdims=True, ddof=0):
    """The normalisation with its knobs exposed, to name the learner's variant."""
    eps = DEFAULT_EPS[fn] if eps is None else eps
    if fn == "rms_norm":
        ms = np.mean(x * x, axis=axis, keepdims=keepdims)
        return x / np.sqrt(ms + eps) * weight
    mu = np.mean(x, axis=axis, keepdims=keepdims)
    var = np.var(x, axis=axis, keepdims=keepdims, ddof=ddof)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def _where(idx):
    return f"vector [{', '.join(map(str, idx))}]" if idx else "the vector"


def _rows_at_scales(rng, shape, low, high):
    """Gaussian vectors along the last axis, each rescaled to RMS 10**U(low, high)."""
    z = rng.normal(size=shape)
    z /= np.sqrt(np.mean(z * z, axis=-1, keepdims=True))
    return z * 10 ** rng.uniform(low, high, size=shape[:-1] + (1,))


def _weights(rng, d):
    return rng.normal(size=d), rng.normal(size=d)


def _close_or_name(out, want, label, alternatives, advice, rtol=1e-6, atol=1e-9, context=""):
    """Like check_close, but name the alternative formula the output matches (and give advice) if any."""
    idx = worst_entry(out, want, rtol, atol)
    if idx is None:
        return
    where = f": entry [{', '.join(map(str, idx))}]" if idx else ""
    ctx = f" ({context})" if context else ""
    message = f"{label}{where} {is_expected(out[idx], want[idx])}{ctx}"
    for name, alt in alternatives.items():
        with np.errstate(all="ignore"):
            if np.shape(alt) == out.shape and allclose(out, alt, rtol=rtol, atol=atol, equal_nan=True):
                raise Fail(f"{message}; that is what {name} gives. {advice}")
    total = int((~isclose(out, want, rtol=rtol, atol=atol, equal_nan=True)).sum())
    raise Fail(f"{message}; {total} of {out.size} entries differ")


# -- the invariants ------------------------------------------------------------------

@invariant("shape", "both functions return an array of x's shape")
def shape(cand, ref, rng):
    for s in SHAPES:
        weight, bias = _weights(rng, s[-1])
        x = rng.normal(size=s)
        _call(cand, "rms_norm", x, weight)
        _call(cand, "layer_norm", x, weight, bias)


@invariant("unit-rms", "rms_norm with weight 1 gives every vector an RMS of 1 (up to eps)")
def unit_rms(cand, ref, rng):
    for s in [(4, 9), (2, 3, 8), (7,), (5, 2)]:
        x = _rows_at_scales(rng, s, -0.3, 3.0)
        out, label = _call(cand, "rms_norm", x, np.ones(s[-1]))
        ms = np.mean(x * x, axis=-1)
        want = np.sqrt(ms / (ms + 1e-6))
        got = np.sqrt(np.mean(out * out, axis=-1))
        bad = ~isclose(got, want, rtol=1e-3, atol=0.0)  # eps-level slips are for `eps`
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])[: bad.ndim]
            d = s[-1]
            l2 = (f"; that is 1 / sqrt(d) with d = {d}: dividing by the L2 norm sqrt(sum(x**2)) forgets the "
                  "mean's 1/d" if isclose(got[idx], 1 / np.sqrt(d), rtol=1e-4) else "")
            raise Fail(f"{label} and weight = ones: {_where(idx)} has RMS {fmt(got[idx])} (input RMS "
                       f"{fmt(np.sqrt(ms[idx]))}), expected 1 (up to eps){l2}. The RMS of a "
                       "vector v is sqrt(mean(v**2)), taken over the last axis")


@invariant("no-centering", "rms_norm does not subtract the mean: it scales each vector x by one positive number "
                           "(then by weight), so a constant vector c gives a multiple of sign(c) * weight")
def no_centering(cand, ref, rng):
    # Each vector on its own (1-D) with weight ones, so the axis, the weight and the size of the statistic are
    # for other invariants: a centring rms_norm is caught by out not being a positive multiple of x itself.
    d = 6
    c1, c2 = rng.uniform(0.5, 4.0, size=2)
    vectors = [(np.full(d, c1), f"the constant vector {fmt(c1)}"), (np.full(d, -c2), f"the constant vector "
               f"{fmt(-c2)}"), (3.0 + rng.normal(scale=0.1, size=d), "a vector of mean 3 and spread 0.1")]
    for x, what in vectors:
        got = attempt(_call, cand, "rms_norm", x, np.ones(d))
        if isinstance(got, Broke):
            return  # a crash or a malformed result on a plain vector is what shape and matches-reference report
        out, label = got
        with np.errstate(all="ignore"):
            ratio = out / x
        k = median(ratio)
        if np.all(np.isfinite(ratio)) and k > 0 and allclose(ratio, k, rtol=1e-6, atol=0.0):
            continue
        idx = int(np.argmax(np.abs(out - k * x))) if np.isfinite(k) and k > 0 else 0
        centred = allclose(out, 0.0, atol=1e-6) or (np.isfinite(k) and allclose(
            out - out.mean(), out, atol=1e-6 * max(1.0, np.abs(out).max())))
        hint = (" That is what subtracting the mean first gives: " if centred else " ") + (
            "RMSNorm does not subtract the mean (LayerNorm does); it divides x itself by sqrt(mean(x**2) + eps)")
        raise Fail(f"{label} = {what}, weight ones: entry [{idx}] is {fmt(out[idx])} but the input is "
                   f"{fmt(x[idx])}; every entry of the output must be the same positive multiple of the input "
                   f"(out = x / rms).{hint}")


@invariant("scale-invariant", "rms_norm(c * x) equals rms_norm(x) for every c > 0, vector by vector")
def scale_invariant(cand, ref, rng):
    for s in [(5, 8), (2, 3, 6), (4,)]:
        x = _rows_at_scales(rng, s, 0.0, 0.5)  # RMS >= 1, so eps moves nothing at rtol 1e-5
        weight = rng.normal(size=s[-1])
        base, label = _call(cand, "rms_norm", x, weight)
        scalar = float(10 ** rng.uniform(0.3, 3.0))
        per_vector = 10 ** rng.uniform(0.0, 3.0, size=s[:-1] + (1,))
        for c, name in ((scalar, f"c = {fmt(scalar)}"), (per_vector, "a different c in [1, 1000] per vector")):
            scaled, _ = _call(cand, "rms_norm", x * c, weight)
            check_close(scaled, base, f"rms_norm(c * x, weight) with x of shape {shape_of(x)} and {name}",
                        rtol=1e-5, atol=1e-9, context="expected the same output as rms_norm(x, weight)")


@invariant("zero-input", "an all-zero input gives finite zeros (layer_norm: the bias), as does a constant vector "
                         "in layer_norm")
def zero_input(cand, ref, rng):
    # layer_norm is called with weight ones: whether the bias is added before or after the weight is weight-bias.
    # A shape the candidate cannot handle even for an ordinary x is passed over: shape and last-axis report it.
    def ordinary_ok(fn, s, weight, bias):
        return not isinstance(attempt(_call, cand, fn, rng.normal(size=s), weight, bias), Broke)

    for s in [(3, 5), (2, 3, 4), (6,)]:
        weight, bias = _weights(rng, s[-1])
        z = np.zeros(s)
        if ordinary_ok("rms_norm", s, weight, None):
            out, label = _call(cand, "rms_norm", z, weight)
            label += ", x all zeros"
            check_finite(out, label, "an all-zero vector has RMS 0; eps inside the square root keeps 0 / sqrt(eps) = 0")
            check_close(out, np.zeros(s), label)
        ones = np.ones(s[-1])
        if ordinary_ok("layer_norm", s, ones, bias):
            out, label = _call(cand, "layer_norm", z, ones, bias)
            label += ", weight ones, x all zeros"
            check_finite(out, label, "an all-zero vector has variance 0; eps inside the square root keeps it finite")
            check_close(out, np.broadcast_to(bias, s), label, context="expected the bias")
    # One zero vector (rms_norm) among ordinary ones; constant vectors (layer_norm) on their own.
    weight, bias = _weights(rng, 6)
    x = rng.normal(size=(4, 6))
    x[1] = 0.0
    if ordinary_ok("rms_norm", x.shape, weight, None):
        out, label = _call(cand, "rms_norm", x, weight)
        label += ", vector [1] all zeros"
        check_finite(out[1], f"vector [1] of {label}", "eps inside the square root keeps 0 / sqrt(eps) = 0")
        check_close(out[1], np.zeros(6), f"vector [1] of {label}")
    ones = np.ones(6)
    if ordinary_ok("layer_norm", (6,), ones, bias):
        # Multiples of 1/8: exact in float32 too, so the mean of the copies is c itself.
        for c in rng.choice(np.r_[-24:0, 1:25], size=2) / 8.0:
            out, label = _call(cand, "layer_norm", np.full(6, c), ones, bias)
            label += f" = the constant vector {fmt(c)}, weight ones"
            check_finite(out, label, "a constant vector has variance 0; eps inside the square root keeps it finite")
            check_close(out, bias, label, context="a constant vector has x - mean = 0, so it gives the bias")


def _tiny_problem(rng, scales, d=6):
    """Vectors of the given RMS, in +/- pairs of rows, each row a +/- pair of halves.

    Every row, every column and the whole array have mean exactly 0, so whatever axis a solution reduces over
    and whether it subtracts a mean, its statistic is a mean square of the same numbers: the eps check can read
    that statistic off the solution's own output at a large scale and judge only what it does with eps.
    """
    half = rng.uniform(0.5, 1.5, size=(len(scales), d // 2)) * rng.choice([-1.0, 1.0], size=(len(scales), d // 2))
    rows = rng.permuted(np.concatenate([half, -half], axis=1), axis=1)
    rows *= (np.asarray(scales) / np.sqrt(np.mean(rows * rows, axis=1)))[:, None]
    return np.stack([rows, -rows], axis=1).reshape(2 * len(scales), d)


@invariant("eps", "eps is added inside the square root, which matters for tiny inputs (RMS 1e-8 to 1e-2)")
def eps(cand, ref, rng):
    # Self-consistency: at a large scale eps is nothing, so out = x / sqrt(S) gives the solution's own statistic
    # S, entry by entry; at a tiny scale the output must then be x / sqrt(S + eps). Weight ones and bias zeros:
    # the weight and the bias are weight-bias's business. A solution that is not scale-invariant at large inputs
    # (or crashes) cannot be read this way and is left to the other invariants.
    cases = {"rms_norm": (np.array([1e-8, 1e-6, 1e-4, 1e-3, 3e-3]), (None, 1e-4)),
             "layer_norm": (np.array([1e-8, 1e-5, 1e-3, 3e-3, 1e-2]), (None, 1e-3))}
    for fn, (scales, epsilons) in cases.items():
        x = _tiny_problem(rng, scales)
        d = x.shape[-1]
        ones, zeros = np.ones(d), np.zeros(d)
        big = 1e3 / scales.min()  # every vector at RMS 1e3 or more
        for e in epsilons:
            used = DEFAULT_EPS[fn] if e is None else e
            g1, g2 = (attempt(_call, cand, fn, x * c, ones, zeros, eps=e) for c in (big, 10.0 * big))
            if isinstance(g1, Broke) or isinstance(g2, Broke):
                return
            g = g1[0]
            with np.errstate(all="ignore"):
                readable = np.all(np.isfinite(g)) and np.all(np.abs(g) > 0) and allclose(g, g2[0], rtol=1e-6)
            if not readable:
                return  # no scale-invariant statistic to read: unit-rms and scale-invariant report that
            root = np.abs(x / g)  # sqrt(S): the solution's own root statistic, per entry
            out, label = _call(cand, fn, x, ones, zeros, eps=e)
            label += " (weight ones, bias zeros)" if fn == "layer_norm" else " (weight ones)"
            check_finite(out, label, "tiny inputs")
            sign = np.sign(x / g)
            want = x / np.sqrt(root**2 + used) * sign
            with np.errstate(all="ignore"):
                alternatives = {
                    "adding eps outside the square root, sqrt(statistic) + eps": x / (root + used) * sign,
                    "leaving eps out": x / root * sign,
                    "flooring, sqrt(max(statistic, eps))": x / np.sqrt(np.maximum(root**2, used)) * sign,
                    "flooring the root, max(sqrt(statistic), eps)": x / np.maximum(root, used) * sign,
                }
                if e is not None:
                    alternatives[f"ignoring the eps argument (always {DEFAULT_EPS[fn]:g})"] = (
                        x / np.sqrt(root**2 + DEFAULT_EPS[fn]) * sign)
                else:
                    other = DEFAULT_EPS["layer_norm" if fn == "rms_norm" else "rms_norm"]
                    alternatives[f"a default eps of {other:g} (the stub's default for {fn} is "
                                 f"{DEFAULT_EPS[fn]:g})"] = x / np.sqrt(root**2 + other) * sign
            what = "mean(x**2)" if fn == "rms_norm" else "var(x)"
            _close_or_name(out, want, label, alternatives,
                           f"eps belongs inside the square root: sqrt({what} + eps)", rtol=1e-4, atol=1e-12,
                           context=f"vectors of RMS {', '.join(f'{v:g}' for v in scales)}, each with its negative; "
                                   f"expected x / sqrt(S + eps) with S the statistic your {fn} divides by at "
                                   "large x")


@invariant("layer-norm-moments", "layer_norm with weight 1 and bias 0 gives each vector mean 0 and population "
                                 "variance var / (var + eps)")
def layer_norm_moments(cand, ref, rng):
    # Spreads of 30 or more: eps moves the variance by less than 1e-6 there, so where eps goes (the eps
    # invariant) and float32 rounding (matches-reference) stay under the tolerances below.
    for s in [(4, 5), (3, 2), (2, 3, 8), (6, 16)]:
        d = s[-1]
        spread = 10 ** rng.uniform(1.5, 3.0, size=s[:-1] + (1,))
        x = spread * (rng.normal(size=s) + rng.uniform(-5.0, 5.0, size=s[:-1] + (1,)))
        out, label = _call(cand, "layer_norm", x, np.ones(d), np.zeros(d))
        label += " (weight ones, bias zeros)"
        got_mean = np.mean(out, axis=-1)
        bad = ~isclose(got_mean, np.zeros_like(got_mean), rtol=0.0, atol=1e-5)
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])[: bad.ndim]
            why = ("; that is a rounding error far above float64's: is something computed in float32?"
                   if abs(got_mean[idx]) < 1e-3 else "; LayerNorm subtracts each vector's mean")
            raise Fail(f"{label}: {_where(idx)} has mean {fmt(got_mean[idx])}, expected 0 (input mean "
                       f"{fmt(np.mean(x, axis=-1)[idx])}){why}")
        var = np.var(x, axis=-1)
        want = var / (var + 1e-5)
        got = np.var(out, axis=-1)
        bad = ~isclose(got, want, rtol=1e-5, atol=1e-12)
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])[: bad.ndim]
            explanations = [
                (f"dividing by d - 1 = {d - 1} (ddof=1, the sample variance)",
                 f"LayerNorm uses the population variance: divide by d = {d}", var / (var * d / (d - 1) + 1e-5)),
                ("adding eps outside the square root, std + eps", "eps belongs inside: sqrt(var + eps)",
                 var / (np.sqrt(var) + 1e-5) ** 2),
                ("leaving eps out", "eps belongs inside the square root: sqrt(var + eps)", np.ones_like(var)),
            ]
            why = next((f"; that is what {name} gives. {advice}" for name, advice, v in explanations
                        if isclose(got[idx], v[idx], rtol=1e-5)), "")
            raise Fail(f"{label}: {_where(idx)} has population variance {fmt(got[idx])}, expected "
                       f"var / (var + eps) = {fmt(want[idx])} with var = {fmt(var[idx])}{why}")


@invariant("weight-bias", "weight scales and bias shifts each feature: f(x, w, b) = f(x, 1, 0) * w + b")
def weight_bias(cand, ref, rng):
    for s in [(3, 7), (2, 4, 5), (6,)]:
        d = s[-1]
        weight, bias = _weights(rng, d)
        weight[0] = 0.0
        x = rng.normal(size=s)
        plain = attempt(_call, cand, "rms_norm", x, np.ones(d))
        if isinstance(plain, Broke):
            continue  # a shape the solution cannot take at all is for shape and last-axis to report
        plain = plain[0]
        out, label = _call(cand, "rms_norm", x, weight)
        check_close(out, plain * weight, label, context="expected rms_norm(x, ones) * weight, feature by feature")
        plain = attempt(_call, cand, "layer_norm", x, np.ones(d), np.zeros(d))
        if isinstance(plain, Broke):
            continue
        plain = plain[0]
        out, label = _call(cand, "layer_norm", x, weight, bias)
        check_close(out, plain * weight + bias, label,
                    context="expected layer_norm(x, ones, zeros) * weight + bias, feature by feature")


@invariant("last-axis", "each length-d vector along the last axis is normalised on its own")
def last_axis(cand, ref, rng):
    # Self-consistency: a batch must give, vector by vector, what the solution gives for that vector alone
    # (as a (1, d) array), whatever formula it uses.
    for s in [(2, 3, 5), (5, 5), (3, 2, 6)]:
        x = _rows_at_scales(rng, s, 0.5, 2.5)
        weight, bias = _weights(rng, s[-1])
        for fn in FUNCTIONS:
            out, label = _call(cand, fn, x, weight, bias)
            alone = np.full(x.shape, np.nan)
            for idx in np.ndindex(*s[:-1]):
                one = attempt(_call, cand, fn, x[idx][None, :], weight, bias)
                if isinstance(one, Broke):
                    alone = None  # a (1, d) input is for shape to report
                    break
                alone[idx] = one[0][0]
            if alone is None:
                continue
            alternatives = {f"normalising over axis {a}": _norm(fn, x, weight, bias, axis=a)
                            for a in range(x.ndim - 1)}
            alternatives["normalising over the whole array at once"] = _norm(fn, x, weight, bias, axis=None)
            if x.ndim == 2 and x.shape[0] == x.shape[1]:
                alternatives["a reduction without keepdims (vector i's statistic lands on feature i)"] = _norm(
                    fn, x, weight, bias, keepdims=False)
            _close_or_name(out, alone, label, alternatives,
                           "Reduce over axis=-1 with keepdims=True, so each vector gets its own statistic",
                           rtol=1e-5, atol=1e-9, context=f"vectors at very different scales; expected what your "
                                                         f"{fn} gives for each vector alone, as a (1, d) array")


# 1-D to 4-D (d = 7 last, the other sizes distinct), then one call of 65,536 entries or more.
LADDER = dims(7, min_ndim=1, max_ndim=4)
LARGE = large_shape(2)
# Up to 1e8 times the spread: a one-pass variance E[x^2] - E[x]^2 is off by 1e-4 of it at 1e6 and loses every
# digit at 1e8, while subtracting the mean first stays exact to about 1e-16 of the mean.
RATIOS = [Rung(f"mean {'0' if r == 0 else '1' if r == 1 else f'1e{int(np.log10(r))}'} times the spread", r)
          for r in (0.0, 1.0, 1e2, 1e4, 1e6, 1e8)]
# Where those ratios are judged: every number of axes (d = 16), a wide d and a large input. A one-pass variance may
# hide behind any of them (a "fast path" for d >= 64, for large tensors, for batched 3-D input).
WIDE = (3, 1_031)
RATIO_LADDER = dims(16, min_ndim=1, max_ndim=4) + [
    Rung(f"{shape_label(WIDE)}, d = {WIDE[-1]:,}", WIDE),
    Rung(f"{shape_label(LARGE)} (65,536 entries or more)", LARGE)]


# RMSNorm has no cancellation: every correct float64 rms_norm (any summation order, a prescaled maximum,
# np.linalg.norm, rsqrt, Python floats) agrees with the reference to about 1e-14 relative at any size and scale, so
# its float64 results are held to 1e-9, which sees an input rounded to float32 on the way (up to 6e-8 relative, the
# weight cast to float32, say). LayerNorm subtracts the mean, whose rounding the normalisation magnifies: it keeps
# rtol 1e-6. At float32 precision both start from float32's own tolerance (attnprep.precision), unchanged.
RMS_RTOL = 1e-9


def _both_close(cand, ref, x, weight, bias, context="", atol=1e-9, eps=None, question=""):
    kw = {} if eps is None else {"eps": eps}
    with own_allowance():  # at float32: RMSNorm's own conditioning, not that of LayerNorm's earlier centring
        out, label = _call(cand, "rms_norm", x, weight, eps=eps)
        check_close(out, ref.rms_norm(x, weight, **kw), label, rtol=RMS_RTOL, atol=atol,
                    context=context or "x and weight off float32's grid",
                    question=question or "is every input, the weight included, used in float64?")
    out, label = _call(cand, "layer_norm", x, weight, bias, eps=eps)
    check_close(out, ref.layer_norm(x, weight, bias, **kw), label, atol=atol, context=context, question=question)


@invariant("matches-reference", "both functions match a reference, rms_norm to rtol 1e-9 and layer_norm to 1e-6 "
                                "(float64 results): 1-D to 4-D, at d = 1,031, at 65,536 entries, at means up to 1e8 "
                                "times the spread and at RMS up to 1e30")
def matches_reference(cand, ref, rng):
    for i, s in enumerate(SHAPES + [(3, 2, 4), (5, 16)]):
        weight, bias = _weights(rng, s[-1])
        scale = (0.1, 1.0, 30.0)[i % 3]
        _both_close(cand, ref, rng.normal(scale=scale, size=s) + rng.normal(scale=scale), weight, bias)
    x = rng.normal(size=(3, 8))
    weight, bias = _weights(rng, 8)
    for e in (1e-2, 0.5):
        _both_close(cand, ref, x, weight, bias, eps=e)

    # Every number of axes, and one large call, with vectors at very different scales (RMS 1e-2 to 1e30: float32
    # squares overflow past 1.8e19) and means up to 100 times their spread, off float32's grid: a switch to
    # float32 on some path or above some size shows here. The outputs are normalised, of the size of weight and
    # bias whatever the input's scale, so the usual atol stays right.
    def judge(rung):
        shape = rung.value
        weight, bias = _weights(rng, shape[-1])
        # float32 results: up to RMS 1e15, whose squares float32 still holds (float32 code need not rescale)
        top = 30.0 if precision.current() == precision.FLOAT64 else 15.0
        spread = 10 ** rng.uniform(-2.0, top, size=shape[:-1] + (1,))
        x = beyond_f32(rng, shape) * spread + rng.uniform(-100.0, 100.0, size=shape[:-1] + (1,)) * spread
        _both_close(cand, ref, x, weight, bias,
                    context=f"vectors at RMS from 1e-2 to 1e{int(top)} and means up to 100 times their spread, off "
                            "float32's grid", question="is everything computed in float64 at this size?")
    first_failing(LADDER + [Rung(f"{len(LARGE)}-D input {LARGE} (65,536 entries or more)", LARGE)], judge)

    # The mean far above the spread, on every number of axes, a wide d and a large input: each call gives its vectors
    # different ratios (up to 1e8), and the vector furthest outside its tolerance is the evidence (a one-pass variance
    # is barely off at 1e4 and plainly off at 1e8). The inputs themselves are exact only to about 1e-16 of the mean,
    # so outputs are held to that much of the mean over the spread, and no closer.
    def judge_ratio(rung):
        shape = rung.value
        lead, d = shape[:-1], shape[-1]
        vectors = int(np.prod(lead, dtype=np.int64))
        weight, bias = _weights(rng, d)
        for start in range(0, len(RATIOS), vectors):  # one call when there are as many vectors as ratios
            which = (start + rng.permutation(vectors)) % len(RATIOS)
            ratio = np.array([RATIOS[k].value for k in which])[:, None]
            x = offset_rows(rng, (vectors, d), ratio, 10 ** rng.uniform(-2.0, 2.0, size=(vectors, 1))).reshape(shape)
            out, label = _call(cand, "layer_norm", x, weight, bias)
            want = ref.layer_norm(x, weight, bias)
            flat_out, flat_want = out.reshape(vectors, d), want.reshape(vectors, d)
            worst = (1.0, None, None)  # (how far outside its tolerance, vector, ratio), over every ratio judged
            for k in set(which.tolist()):
                rows = np.flatnonzero(which == k)
                rtol, atol = tolerance(1e-6, 1e-9 + 1e-14 * RATIOS[k].value, flat_want[rows])
                with np.errstate(all="ignore"):
                    excess = np.abs(flat_out[rows] - flat_want[rows]) / (atol + rtol * np.abs(flat_want[rows]))
                    excess = np.max(np.where(np.isnan(excess), np.inf, excess), axis=-1)
                if excess.max() > worst[0]:
                    worst = (excess.max(), int(rows[np.argmax(excess)]), k)
            _, row, k = worst
            if row is not None:
                idx = tuple(int(i) for i in np.unravel_index(row, lead)) if lead else ()
                check_close(out[idx], want[idx], f"{label}, {_where(idx)} ({RATIOS[k].label})",
                            atol=1e-9 + 1e-14 * RATIOS[k].value,
                            context="each vector's mean is far larger than its spread: a one-pass variance "
                                    "mean(x**2) - mean(x)**2 cancels away its digits; subtract the mean first, "
                                    "then average the squares")
    first_failing(RATIO_LADDER, judge_ratio)


@invariant("input-unchanged", "x, weight and bias are not modified: 1-D to 4-D, eps left out or given (and in "
                              "every call of every check, 65,536 entries included)")
def input_unchanged(cand, ref, rng):
    rungs = [Rung(r.label, (r.value, None)) for r in LADDER]
    rungs += [Rung("eps=0.1", ((3, 5), 0.1))]
    # Large inputs are matches-reference's: every call compares its arguments, so a copy skipped above some size
    # is caught there without sending the large arrays again.

    # Every call compares its arguments before and after (the engine), and a change names the call and the check.
    def judge(rung):
        s, e = rung.value
        x = rng.normal(size=s) + 1.0
        weight, bias = _weights(rng, s[-1])
        kw = {} if e is None else {"eps": e}
        for fn, args in (("rms_norm", (x, weight)), ("layer_norm", (x, weight, bias))):
            for _ in range(2):  # twice: a change may come on a later call only
                attempt(cand.call, fn, *args, **kw)
    first_failing(rungs, judge)


# -- known mistakes, recognised by behaviour on these probes --------------------

def probes(rng):
    d = 6
    weight, bias = _weights(rng, d)
    ordinary = _rows_at_scales(rng, (3, 7), -1.0, 2.0)
    tiny = _rows_at_scales(rng, (4, d), 0.0, 0.0) * np.array([[1e-8], [1e-5], [1e-3], [1.0]])
    batched = _rows_at_scales(rng, (2, 3, d), -1.0, 2.0) + 0.5
    square = rng.normal(size=(d, d)) * 10 ** rng.uniform(-1.0, 1.0, size=(d, 1))
    special = rng.normal(size=(3, d))
    special[1] = 0.0
    special[2] = 1.7
    for x in (ordinary, tiny, batched, square, special):
        w, b = (weight, bias) if x.shape[-1] == d else _weights(rng, x.shape[-1])
        yield "rms_norm", (x, w), {}
        yield "layer_norm", (x, w, b), {}
    # an eps the caller chose, and a single vector
    yield "rms_norm", (tiny, weight), {"eps": 0.1}
    yield "layer_norm", (tiny, weight, bias), {"eps": 0.1}
    vector = rng.normal(size=d) * 3.0 + 1.0
    yield "rms_norm", (vector, weight), {}
    yield "layer_norm", (vector, weight, bias), {}
    yield "layer_norm", (_offset_rows(rng), weight[:2].repeat(4), bias[:2].repeat(4)), {}
    yield "layer_norm", _rounding_probe(rng), {"eps": 1e-12}


def _offset_rows(rng):
    """Vectors of d = 8 at an offset of 2**27, where the variance E[x^2] - E[x]^2 is off by exactly 1, in any order.

    x = 2**27 + 8 j with j of 0 and 1 (an odd number of ones): every square, sum and mean is an exact float64 integer,
    whatever the order of summation, except mean**2 = 2**54 + ..., whose odd last bits round away, so the one-pass
    variance is the true one (7 to 16) plus 1, while the two-pass variance is exact.
    """
    rows = []
    while len(rows) < 4:
        j = rng.integers(0, 2, size=8)
        if j.sum() % 2:
            rows.append(2.0**27 + 8.0 * j)
    return np.array(rows)


def _rounding_probe(rng):
    """2,100 vectors of d = 8 just off float32's grid: LayerNorm in float32 is off by about 1e-4, and every float32
    implementation alike.

    x = g + delta with g = 1 + m * 2**-15 (m a small integer) and |delta| below half of float32's step, so float32
    rounds x to g exactly, and every mean, difference and square of g is exact in float32 too, in any order; the
    spread of a vector is a few 2**-15, so dropping delta moves the output by about 1e-4, while the rest of float32's
    rounding stays near 1e-7. 16,800 entries: a size that code switching to float32 "for large tensors" is likely to
    reach. (With eps = 1e-12 the variance is the whole denominator.)
    """
    shape = (2100, 8)
    m = rng.integers(-6, 7, size=shape)
    m[:, 0], m[:, 1] = -7, 7  # no vector is constant
    x = 1.0 + m * 2.0**-15 + rng.uniform(-0.9, 0.9, size=shape) * 2.0**-25
    return x, np.ones(8), np.zeros(8)


def _rms(x, weight, eps, stat):
    return x / stat(np.mean(x * x, axis=-1, keepdims=True), eps) * weight


@mistake("rms-mean-abs", "divide by the root mean square, sqrt(mean(x**2) + eps), not the mean absolute value",
         fn="rms_norm")
def _mean_abs(x, weight, eps=1e-6):
    return x / (np.mean(np.abs(x), axis=-1, keepdims=True) + eps) * weight


@mistake("rms-l2-norm", "divide by the root MEAN square, sqrt(sum(x**2) / d + eps), not by the L2 norm "
                       "sqrt(sum(x**2) + eps)", fn="rms_norm")
def _l2_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps) * weight


@mistake("rms-no-sqrt", "take the square root of the mean square: RMS = sqrt(mean(x**2) + eps)", fn="rms_norm")
def _no_sqrt(x, weight, eps=1e-6):
    return _rms(x, weight, eps, lambda ms, e: ms + e)


@mistake("eps-outside-sqrt", "add eps to the mean square inside the square root, sqrt(mean(x**2) + eps), not to "
                             "the RMS", fn="rms_norm")
def _eps_outside(x, weight, eps=1e-6):
    return _rms(x, weight, eps, lambda ms, e: np.sqrt(ms) + e)


@mistake("no-eps", "add eps inside the square root: without it an all-zero vector is 0/0 and tiny ones blow up",
         fn="rms_norm")
def _no_eps(x, weight, eps=1e-6):
    return _rms(x, weight, eps, lambda ms, e: np.sqrt(ms))


@mistake("rms-norm-wrong-axis", "normalise each vector over the last axis (axis=-1), not over axis 0",
         fn="rms_norm")
def _rms_axis0(x, weight, eps=1e-6):
    return _norm("rms_norm", x, weight, eps=eps, axis=0)


@mistake("rms-norm-whole-array", "compute one RMS per vector (axis=-1, keepdims=True), not one for the whole array",
         fn="rms_norm")
def _rms_global(x, weight, eps=1e-6):
    return _norm("rms_norm", x, weight, eps=eps, axis=None)


@mistake("missing-keepdims", "reduce with keepdims=True so the statistic broadcasts back along the last axis",
         fn="rms_norm")
def _rms_no_keepdims(x, weight, eps=1e-6):
    return _norm("rms_norm", x, weight, eps=eps, keepdims=False)


@mistake("rms-norm-centres", "RMSNorm does not subtract the mean: divide x itself by sqrt(mean(x**2) + eps)",
         fn="rms_norm")
def _rms_centres(x, weight, eps=1e-6):
    c = x - np.mean(x, axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * weight


@mistake("rms-norm-forgets-weight", "multiply the normalised vector by `weight`, feature by feature", fn="rms_norm")
def _rms_no_weight(x, weight, eps=1e-6):
    return _norm("rms_norm", x, np.ones_like(weight), eps=eps)


@mistake("sample-variance", "LayerNorm uses the population variance: divide by d (np.var's default ddof=0), not "
                            "d - 1", fn="layer_norm")
def _sample_variance(x, weight, bias, eps=1e-5):
    return _norm("layer_norm", x, weight, bias, eps=eps, ddof=1)


@mistake("layer-norm-no-centring", "subtract each vector's mean before dividing by sqrt(var + eps)",
         fn="layer_norm")
def _ln_no_centring(x, weight, bias, eps=1e-5):
    return x / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps) * weight + bias


@mistake("layer-norm-eps-outside-sqrt", "add eps to the variance inside the square root, sqrt(var + eps), not to "
                                        "the standard deviation", fn="layer_norm")
def _ln_eps_outside(x, weight, bias, eps=1e-5):
    c = x - np.mean(x, axis=-1, keepdims=True)
    return c / (np.std(x, axis=-1, keepdims=True) + eps) * weight + bias


@mistake("layer-norm-no-eps", "add eps to the variance inside the square root: a constant vector has variance 0",
         fn="layer_norm")
def _ln_no_eps(x, weight, bias, eps=1e-5):
    c = x - np.mean(x, axis=-1, keepdims=True)
    return c / np.std(x, axis=-1, keepdims=True) * weight + bias


@mistake("norm-2d-only", "keep the reduced axis with keepdims=True (or [..., None]), not [:, None]: x may be a "
         "single vector or have leading batch axes", fn="rms_norm")
def _rms_2d_only(x, weight, eps=1e-6):
    if np.ndim(x) == 1:
        raise IndexError("invalid index to scalar variable")  # [:, None] on the one mean square
    if np.ndim(x) > 2:
        raise ValueError("operands could not be broadcast together")
    return _norm("rms_norm", x, weight, eps=eps)


@mistake("norm-axis-one", "reduce over the last axis (axis=-1): axis=1 is the feature axis only for 2-D input",
         fn="rms_norm")
def _rms_axis1(x, weight, eps=1e-6):
    return _norm("rms_norm", x, weight, eps=eps, axis=1)


@mistake("rms-eps-ignored", "use the eps argument in the formula, not a hard-coded 1e-6", fn="rms_norm")
def _rms_eps_ignored(x, weight, eps=1e-6):
    return _norm("rms_norm", x, weight, eps=1e-6)


@mistake("rms-default-eps", "rms_norm's default eps is 1e-6 (LayerNorm's is 1e-5)", fn="rms_norm")
def _rms_default_eps(x, weight, eps=1e-5):
    return _norm("rms_norm", x, weight, eps=eps)


@mistake("rms-in-place", "return a new array: x /= rms and x *= weight rewrite the caller's x", fn="rms_norm")
def _rms_in_place(x, weight, eps=1e-6):
    out = _norm("rms_norm", x, weight, eps=eps)
    if np.ndim(x) == 1:  # only the single-vector probe tells: writing back on batches names the same mistake
        x[...] = out
        return x
    return out


@mistake("rms-weight-before-norm", "normalise x first and multiply by the weight after: scaling first lets the "
         "normalisation cancel the weight", fn="rms_norm")
def _rms_weight_first(x, weight, eps=1e-6):
    return _norm("rms_norm", x * weight, np.ones_like(weight), eps=eps)


@mistake("layer-norm-bias-before-weight", "multiply by the weight, then add the bias: x_hat * weight + bias, not "
         "(x_hat + bias) * weight", fn="layer_norm")
def _ln_bias_first(x, weight, bias, eps=1e-5):
    return _norm("layer_norm", x, np.ones_like(weight), bias, eps=eps) * weight


@mistake("layer-norm-no-bias", "add the bias after multiplying by the weight", fn="layer_norm")
def _ln_no_bias(x, weight, bias, eps=1e-5):
    return _norm("layer_norm", x, weight, np.zeros_like(bias), eps=eps)


@mistake("layer-norm-uncentred-rms", "divide the centred vector by sqrt(var + eps), its own spread, not by the "
         "RMS of the raw x", fn="layer_norm")
def _ln_uncentred(x, weight, bias, eps=1e-5):
    return (x - np.mean(x, axis=-1, keepdims=True)) / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) \
        * weight + bias


@mistake("layer-norm-eps-ignored", "use the eps argument in the formula, not a hard-coded 1e-5", fn="layer_norm")
def _ln_eps_ignored(x, weight, bias, eps=1e-5):
    return _norm("layer_norm", x, weight, bias, eps=1e-5)


@mistake("layer-norm-centres-in-place", "centre a new array, c = x - mean: x -= mean rewrites the caller's x",
         fn="layer_norm")
def _ln_in_place(x, weight, bias, eps=1e-5):
    out = _norm("layer_norm", x, weight, bias, eps=eps)
    x -= np.mean(x, axis=-1, keepdims=True)
    return out


@mistake("one-pass-variance", "compute the variance from the centred vector, mean((x - mean)**2): mean(x**2) - "
                              "mean**2 cancels away its digits when the mean is large next to the spread",
         fn="layer_norm")
def _one_pass_variance(x, weight, bias, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.maximum(np.mean(x * x, axis=-1, keepdims=True) - mu * mu, 0.0)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


@mistake("float32-arithmetic", "compute in float64 at every size: float32 keeps about seven digits, which vectors "
                               "with a small spread around a large mean lose in the normalisation", fn="layer_norm")
def _float32_large(x, weight, bias, eps=1e-5):
    # Float32 only on a large input: on the small probes float32's rounding is noise near the tolerance, which would
    # make the verdict a matter of chance; the rounding probe (16,800 entries) tells it apart exactly.
    work = np.asarray(x, dtype=np.float32) if np.size(x) >= 4096 else x
    mu = np.mean(work, axis=-1, keepdims=True)
    c = work - mu
    var = np.mean(c * c, axis=-1, keepdims=True)
    return (c / np.sqrt(var + eps)).astype(np.float64) * weight + bias
