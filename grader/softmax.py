"""Hidden checks for the `softmax` exercise."""

import numpy as np

from attnprep.grading import (
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
)

FUNCTIONS = ("softmax",)

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


@invariant("matches-reference", "matches a reference softmax to rtol 1e-6")
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
        check_close(out, ref.softmax(z), label, context="scores near 300: is the arithmetic done in float64?")


@invariant("stable", "no overflow at magnitudes near 1e4, on rows at very different scales, or in float32")
def stable(cand, ref, rng):
    cases = {
        "scores near +1e4": 1e4 + rng.normal(scale=5.0, size=(3, 6)),
        "scores near -1e4": -1e4 + rng.normal(scale=5.0, size=(3, 6)),
        "rows at very different scales": np.stack([
            rng.normal(scale=1e-3, size=6), 1e4 + rng.normal(size=6), -1e3 + rng.normal(size=6)]),
        "one dominant entry": np.array([[1e4, 0.0, -1e4, 5.0]]),
        # the largest entry away from the front: a shift by any entry but the maximum overflows here
        "a dominant entry last": np.array([[0.0, 5.0, -1e4, 1e4], [-3.0, 2.0, 40.0, 800.0]]),
        "a slice rising from -1e4 to +1e4": np.linspace(-1e4, 1e4, 7)[None, :] + rng.normal(size=(2, 7)),
    }
    for name, z in cases.items():
        out, label = _run(cand, z)
        check_finite(out, label, name)
        check_close(out, ref.softmax(z), label, context=name)
    z32 = (rng.normal(scale=5.0, size=(4, 5)) + np.array([[0.0], [100.0], [1e3], [-1e3]])).astype(np.float32)
    out, label = _run(cand, z32)
    label = f"{label} in float32"
    check_finite(out, label, "float32 overflows past exp(88)")
    check_close(out, ref.softmax(z32.astype(np.float64)), label, rtol=1e-4, atol=1e-6)


@invariant("masked-entries", "-inf entries give exactly 0.0 and the rest still sum to one")
def masked_entries(cand, ref, rng):
    # Offsets near -1e4 too: -inf must become exactly 0 there, which a finite stand-in like -1e4 does not.
    for s, offset in (((4, 6), 0.0), ((2, 3, 5), 0.0), ((3, 6), 1e4), ((3, 6), -1e4)):
        z = rng.normal(size=s) + offset
        blocked = rng.random(s) < 0.4
        keep = rng.integers(0, s[-1], size=s[:-1])  # one open entry per slice, not always the first
        np.put_along_axis(blocked, keep[..., None], False, axis=-1)
        z[blocked] = -np.inf
        out, label = _run(cand, z)
        label += " with -inf entries"
        check_shape(out, s, label)
        if np.isnan(out).any():
            idx = tuple(int(i) for i in np.argwhere(np.isnan(out))[0])
            raise Fail(f"{label}: entry {list(idx)} is nan (inf - inf or 0/0 somewhere)")
        nonzero = blocked & (out != 0.0)
        if nonzero.any():
            idx = tuple(int(i) for i in np.argwhere(nonzero)[0])
            raise Fail(f"{label}: entry {list(idx)} is -inf in z but {fmt(out[idx])} in the output, "
                       "expected exactly 0.0")
        check_close(out, ref.softmax(z), label)


@invariant("axis", "works along every axis, negative ones included")
def axis(cand, ref, rng):
    z = rng.normal(scale=2.0, size=(3, 4, 5))
    for ax in (0, 1, 2, -1, -2, -3):
        out, label = _run(cand, z, axis=ax)
        check_close(out, ref.softmax(z, axis=ax), label)
    z2 = rng.normal(size=(3, 3))  # square: a missing keepdims broadcasts silently here
    out, label = _run(cand, z2, axis=0)
    check_close(out, ref.softmax(z2, axis=0), label)


@invariant("input-unchanged", "the caller's array is not modified")
def input_unchanged(cand, ref, rng):
    for z in (rng.normal(size=(3, 5)), rng.normal(size=(2, 3, 4)) * 50):
        for _ in range(2):  # a second call would see the damage of the first
            _, (after, *_), kwargs = cand.call_tracking_args("softmax", z)
            check_unchanged(z, after, f"z of shape {shape_of(z)}")


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
