"""Hidden checks for the `rmsnorm` exercise: rms_norm and layer_norm over the last axis."""

import numpy as np

from attnprep.grading import (
    CandidateError,
    Fail,
    as_float,
    check_close,
    check_finite,
    check_shape,
    check_unchanged,
    fmt,
    invariant,
    mistake,
    shape_of,
    worst_entry,
)

FUNCTIONS = ("rms_norm", "layer_norm")

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
    message = f"{label}{where} is {fmt(out[idx])}, expected {fmt(want[idx])}{ctx}"
    for name, alt in alternatives.items():
        with np.errstate(all="ignore"):
            if np.shape(alt) == out.shape and np.allclose(out, alt, rtol=rtol, atol=atol, equal_nan=True):
                raise Fail(f"{message}; that is what {name} gives. {advice}")
    total = int((~np.isclose(out, want, rtol=rtol, atol=atol, equal_nan=True)).sum())
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
        bad = ~np.isclose(got, want, rtol=1e-5, atol=0.0)
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])[: bad.ndim]
            d = s[-1]
            l2 = (f"; that is 1 / sqrt(d) with d = {d}: dividing by the L2 norm sqrt(sum(x**2)) forgets the "
                  "mean's 1/d" if np.isclose(got[idx], 1 / np.sqrt(d), rtol=1e-4) else "")
            raise Fail(f"{label} and weight = ones: {_where(idx)} has RMS {fmt(got[idx])} (input RMS "
                       f"{fmt(np.sqrt(ms[idx]))}), expected 1 (up to eps){l2}. The RMS of a "
                       "vector v is sqrt(mean(v**2)), taken over the last axis")


@invariant("no-centering", "rms_norm does not subtract the mean: a constant vector c gives about sign(c) * weight")
def no_centering(cand, ref, rng):
    d = 6
    weight = rng.uniform(0.5, 1.5, size=d)
    c1, c2 = rng.uniform(0.5, 4.0, size=2)
    x = np.stack([np.full(d, c1), np.full(d, -c2), 3.0 + rng.normal(scale=0.1, size=d)])
    out, label = _call(cand, "rms_norm", x, weight)
    want = ref.rms_norm(x, weight)
    if worst_entry(out, want, 1e-4, 1e-9) is not None and np.max(np.abs(out[:2])) < 1e-3:
        raise Fail(f"{label}: vector [0] is the constant {fmt(c1)} and came out as {fmt(out[0, 0])}, ..., "
                   f"expected {fmt(want[0, 0])}, ...: RMSNorm does not subtract the mean (LayerNorm does); "
                   "it divides x by sqrt(mean(x**2) + eps)")
    check_close(out, want, label, rtol=1e-4, atol=1e-4,
                context="vectors 0 and 1 are constant, vector 2 has mean 3")


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
    for s in [(3, 5), (2, 3, 4), (6,)]:
        weight, bias = _weights(rng, s[-1])
        z = np.zeros(s)
        out, label = _call(cand, "rms_norm", z, weight)
        label += ", x all zeros"
        check_finite(out, label, "an all-zero vector has RMS 0; eps inside the square root keeps 0 / sqrt(eps) = 0")
        check_close(out, np.zeros(s), label)
        out, label = _call(cand, "layer_norm", z, weight, bias)
        label += ", x all zeros"
        check_finite(out, label, "an all-zero vector has variance 0; eps inside the square root keeps it finite")
        check_close(out, np.broadcast_to(bias, s), label, context="expected the bias")
    # One zero vector (rms_norm) or constant vector (layer_norm) among ordinary ones.
    weight, bias = _weights(rng, 6)
    x = rng.normal(size=(4, 6))
    x[1] = 0.0
    out, label = _call(cand, "rms_norm", x, weight)
    label += ", vector [1] all zeros"
    check_finite(out[1], f"vector [1] of {label}", "eps inside the square root keeps 0 / sqrt(eps) = 0")
    check_close(out[1], np.zeros(6), f"vector [1] of {label}")
    for i in (1, 3):
        x[i] = rng.uniform(-3.0, 3.0)
    out, label = _call(cand, "layer_norm", x, weight, bias)
    label += f", vectors [1] and [3] constant ({fmt(x[1, 0])} and {fmt(x[3, 0])})"
    for i in (1, 3):
        what = f"vector [{i}] of {label}"
        check_finite(out[i], what, "a constant vector has variance 0; eps inside the square root keeps it finite")
        check_close(out[i], bias, what, context="a constant vector has x - mean = 0, so it gives the bias")


@invariant("eps", "eps is added inside the square root, which matters for tiny inputs (RMS 1e-8 to 1e-2)")
def eps(cand, ref, rng):
    cases = {"rms_norm": (np.array([1e-8, 1e-6, 1e-4, 1e-3, 3e-3]), (None, 1e-4)),
             "layer_norm": (np.array([1e-8, 1e-5, 1e-3, 3e-3, 1e-2]), (None, 1e-3))}
    for fn, (scales, epsilons) in cases.items():
        d = 6
        x = _rows_at_scales(rng, (len(scales), d), 0.0, 0.0) * scales[:, None]
        weight, bias = _weights(rng, d)
        for e in epsilons:
            out, label = _call(cand, fn, x, weight, bias, eps=e)
            check_finite(out, label, "tiny inputs")
            kwargs = {} if e is None else {"eps": e}
            want = ref.rms_norm(x, weight, **kwargs) if fn == "rms_norm" else ref.layer_norm(x, weight, bias, **kwargs)
            used = DEFAULT_EPS[fn] if e is None else e
            if fn == "rms_norm":
                stat, centred, add = np.sqrt(np.mean(x * x, axis=-1, keepdims=True)), x, 0.0
                what = "mean(x**2)"
            else:
                stat, centred, add = np.std(x, axis=-1, keepdims=True), x - x.mean(-1, keepdims=True), bias
                what = "var(x)"
            with np.errstate(all="ignore"):
                alternatives = {
                    f"adding eps outside the square root, sqrt({what}) + eps": centred / (stat + used) * weight + add,
                    "leaving eps out": centred / stat * weight + add,
                    f"flooring, sqrt(max({what}, eps))": centred / np.sqrt(np.maximum(stat**2, used)) * weight + add,
                    f"flooring the root, max(sqrt({what}), eps)": centred / np.maximum(stat, used) * weight + add,
                }
                if e is not None:
                    alternatives[f"ignoring the eps argument (always {DEFAULT_EPS[fn]:g})"] = _norm(fn, x, weight, bias)
                else:
                    other = DEFAULT_EPS["layer_norm" if fn == "rms_norm" else "rms_norm"]
                    alternatives[f"a default eps of {other:g} (the stub's default for {fn} is "
                                 f"{DEFAULT_EPS[fn]:g})"] = _norm(fn, x, weight, bias, eps=other)
            _close_or_name(out, want, label, alternatives,
                           f"eps belongs inside the square root: sqrt({what} + eps)", atol=1e-12,
                           context=f"vectors of RMS {', '.join(f'{v:g}' for v in scales)}")


@invariant("layer-norm-moments", "layer_norm with weight 1 and bias 0 gives each vector mean 0 and population "
                                 "variance var / (var + eps)")
def layer_norm_moments(cand, ref, rng):
    for s in [(4, 5), (3, 2), (2, 3, 8), (6, 16)]:
        d = s[-1]
        spread = 10 ** rng.uniform(-1.0, 2.0, size=s[:-1] + (1,))
        x = spread * (rng.normal(size=s) + rng.uniform(-5.0, 5.0, size=s[:-1] + (1,)))
        out, label = _call(cand, "layer_norm", x, np.ones(d), np.zeros(d))
        label += " (weight ones, bias zeros)"
        got_mean = np.mean(out, axis=-1)
        bad = np.abs(got_mean) > 1e-7
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(np.atleast_1d(bad))[0])[: bad.ndim]
            why = ("; that is a rounding error far above float64's: is something computed in float32?"
                   if abs(got_mean[idx]) < 1e-4 else "; LayerNorm subtracts each vector's mean")
            raise Fail(f"{label}: {_where(idx)} has mean {fmt(got_mean[idx])}, expected 0 (input mean "
                       f"{fmt(np.mean(x, axis=-1)[idx])}){why}")
        var = np.var(x, axis=-1)
        want = var / (var + 1e-5)
        got = np.var(out, axis=-1)
        bad = ~np.isclose(got, want, rtol=1e-6, atol=1e-12)
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
                        if np.isclose(got[idx], v[idx], rtol=1e-6)), "")
            raise Fail(f"{label}: {_where(idx)} has population variance {fmt(got[idx])}, expected "
                       f"var / (var + eps) = {fmt(want[idx])} with var = {fmt(var[idx])}{why}")


@invariant("weight-bias", "weight scales and bias shifts each feature: f(x, w, b) = f(x, 1, 0) * w + b")
def weight_bias(cand, ref, rng):
    for s in [(3, 7), (2, 4, 5), (6,)]:
        d = s[-1]
        weight, bias = _weights(rng, d)
        weight[0] = 0.0
        x = rng.normal(size=s)
        plain, _ = _call(cand, "rms_norm", x, np.ones(d))
        out, label = _call(cand, "rms_norm", x, weight)
        check_close(out, plain * weight, label, context="expected rms_norm(x, ones) * weight, feature by feature")
        plain, _ = _call(cand, "layer_norm", x, np.ones(d), np.zeros(d))
        out, label = _call(cand, "layer_norm", x, weight, bias)
        check_close(out, plain * weight + bias, label,
                    context="expected layer_norm(x, ones, zeros) * weight + bias, feature by feature")


@invariant("last-axis", "each length-d vector along the last axis is normalised on its own")
def last_axis(cand, ref, rng):
    for s in [(2, 3, 5), (3, 4, 7), (5, 5), (3, 2, 6)]:
        x = _rows_at_scales(rng, s, 0.5, 2.5)
        weight, bias = _weights(rng, s[-1])
        for fn in FUNCTIONS:
            out, label = _call(cand, fn, x, weight, bias)
            want = ref.rms_norm(x, weight) if fn == "rms_norm" else ref.layer_norm(x, weight, bias)
            alternatives = {f"normalising over axis {a}": _norm(fn, x, weight, bias, axis=a)
                            for a in range(x.ndim - 1)}
            alternatives["normalising over the whole array at once"] = _norm(fn, x, weight, bias, axis=None)
            if x.ndim == 2 and x.shape[0] == x.shape[1]:
                alternatives["a reduction without keepdims (vector i's statistic lands on feature i)"] = _norm(
                    fn, x, weight, bias, keepdims=False)
            _close_or_name(out, want, label, alternatives,
                           "Reduce over axis=-1 with keepdims=True, so each vector gets its own statistic",
                           rtol=1e-4, atol=1e-4, context="vectors at very different scales")


@invariant("matches-reference", "both functions match a reference to rtol 1e-6")
def matches_reference(cand, ref, rng):
    for i, s in enumerate(SHAPES + [(3, 2, 4), (5, 16)]):
        weight, bias = _weights(rng, s[-1])
        scale = (0.1, 1.0, 30.0)[i % 3]
        x = rng.normal(scale=scale, size=s) + rng.normal(scale=scale)
        out, label = _call(cand, "rms_norm", x, weight)
        check_close(out, ref.rms_norm(x, weight), label)
        out, label = _call(cand, "layer_norm", x, weight, bias)
        check_close(out, ref.layer_norm(x, weight, bias), label)
    x = rng.normal(size=(3, 8))
    weight, bias = _weights(rng, 8)
    for e in (1e-2, 0.5):
        out, label = _call(cand, "rms_norm", x, weight, eps=e)
        check_close(out, ref.rms_norm(x, weight, eps=e), label)
        out, label = _call(cand, "layer_norm", x, weight, bias, eps=e)
        check_close(out, ref.layer_norm(x, weight, bias, eps=e), label)


@invariant("input-unchanged", "x, weight and bias are not modified")
def input_unchanged(cand, ref, rng):
    for s in [(3, 5), (2, 3, 4)]:
        x = rng.normal(size=s) + 1.0
        weight, bias = _weights(rng, s[-1])
        for fn, args in (("rms_norm", (x, weight)), ("layer_norm", (x, weight, bias))):
            for _ in range(2):  # the second call would see the damage of the first
                _, after, _ = cand.call_tracking_args(fn, *args)
                for name, before, now in zip(("x", "weight", "bias"), args, after, strict=False):
                    check_unchanged(before, now, f"{fn}: {name} of shape {shape_of(before)}")


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
