"""The worker's value codec: arrays of numbers as raw bytes, every other array through np.save, both checked."""

import random
import struct

import numpy as np
import pytest

from attnprep import wire

VALUES = [np.arange(6.0).reshape(2, 3), np.zeros((0, 4)), np.array(5), np.arange(10)[::2],
          np.asfortranarray(np.ones((3, 2))), np.array([True, False]), np.zeros(3, dtype=">f8") + 1,
          np.array([1 + 2j]), np.arange(4, dtype=np.float16), np.arange(3, dtype=np.uint8),
          np.array(["ab", "c"]), np.zeros(2, dtype=[("a", "f8")]), np.longdouble(1.5), np.float32(3.5)]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{np.asarray(v).dtype}{np.shape(v)}")
def test_round_trip_keeps_type_dtype_shape_and_values(value):
    blobs: list[bytes] = []
    got = wire.decode(wire.encode([value], blobs), blobs, budget=wire.Budget(float("inf")))[0]
    assert type(got) is type(value) and np.asarray(got).dtype == np.asarray(value).dtype
    assert np.shape(got) == np.shape(value) and np.array_equal(np.asarray(got), np.asarray(value))
    if isinstance(got, np.ndarray):
        assert got.flags.writeable  # as np.load gives it: a check may work on what it got


def test_numbers_use_the_raw_format_and_the_rest_np_save():
    assert wire._array_bytes(np.ones(3))[:4] == wire._RAW_MAGIC
    assert wire._array_bytes(np.array(["a"]))[:6] == b"\x93NUMPY"


def _raw(dtype: str, shape: tuple, data: bytes) -> bytes:
    head = (wire._RAW_MAGIC + bytes([len(dtype)]) + dtype.encode() + bytes([len(shape)])
            + struct.pack(f">{len(shape)}Q", *shape))
    return head + bytes(-len(head) % 16) + data


FORGED = [_raw("|O8", (1,), b"\0" * 8), _raw("<U2", (1,), b"\0" * 8), _raw("<f8", (2**63,), b"\0" * 8),
          _raw("<f8", (2,), b"\0" * 8), _raw("<f0", (), b""), wire._RAW_MAGIC + b"\x03<f8\xff",
          wire._RAW_MAGIC + b"\x02\xff\xfe\x00", wire._RAW_MAGIC]


@pytest.mark.parametrize("blob", FORGED, ids=range(len(FORGED)))
def test_a_forged_raw_header_is_a_wire_error(blob):
    with pytest.raises(wire.WireError):
        wire.decode({"$nd": 0}, [blob], budget=wire.Budget(float("inf")))


def test_corrupted_payloads_raise_only_wire_errors():
    good = wire._array_bytes(np.arange(12.0).reshape(3, 4))
    rng = random.Random(0)
    for _ in range(2000):
        blob = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
        try:
            wire.decode({"$nd": 0}, [bytes(blob[:rng.randint(4, len(blob))])], budget=wire.Budget(float("inf")))
        except (wire.WireError, wire.TooLarge):
            pass


def test_the_budget_counts_a_raw_array_before_it_is_loaded():
    blob = _raw("|b1", (wire.MAX_VALUE_BYTES // 8 + 1,), b"\0" * (wire.MAX_VALUE_BYTES // 8 + 1))
    with pytest.raises(wire.TooLarge):  # as float64 it would pass the parent's cap
        wire.decode({"$nd": 0}, [blob], budget=wire.Budget(float("inf")))


@pytest.mark.parametrize("arr", [
    np.arange(12.0).reshape(3, 4),
    np.arange(12.0).reshape(3, 4).T,  # not contiguous: copied once, into the parts
    np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::-1],
    np.array(3.5),
    np.zeros((0, 5)),
    np.array([True, False, True]),
    np.arange(6, dtype=">i4"),
    np.array([1 + 2j, 3 - 1j]),
    np.array(["a", "bc"]),  # np.save's format: bytes, as before
])
def test_an_array_sent_from_its_own_memory_is_the_payload_a_copy_would_be(arr):
    copied, shared = [], []
    value = wire.encode([arr], shared, share=True)
    assert wire.encode([arr], copied) == value
    sent = b"".join(bytes(memoryview(part).cast("B")) for part in wire.pack({"value": value}, shared))
    assert sent == b"".join(bytes(part) for part in wire.pack({"value": value}, copied))
    chunks = iter([sent])
    buffer = bytearray()

    def read_exact(n):
        while len(buffer) < n:
            buffer.extend(next(chunks))
        out = bytes(buffer[:n])
        del buffer[:n]
        return out

    header, blobs = wire.read_frame(read_exact)
    (back,) = wire.decode(header["value"], blobs)
    assert back.dtype == arr.dtype and back.shape == arr.shape and np.array_equal(back, arr)


def test_an_array_encoded_from_its_own_memory_decodes_in_the_same_process():
    """An in-process session (the benchmark's pytest anchor) decodes what it encoded without the pipe between."""
    arr = np.arange(6.0).reshape(2, 3)
    blobs = []
    back = wire.decode(wire.encode([arr, {"k": arr.T}], blobs, share=True), blobs)
    assert np.array_equal(back[0], arr) and np.array_equal(back[1]["k"], arr.T)
    assert back[0] is not arr and back[0].flags.writeable
