"""Framing and value codec for the parent <-> worker pipe (no pickle, ever).

Both sides run this module; the worker gets its source through the pipe and
runs it with only NumPy and the standard library, so it imports nothing of
the package and names nothing after it. Arrays of plain numbers travel as
raw bytes behind a small binary header (dtype, shape), anything else as
`np.save` bytes read back with `allow_pickle=False`, so nothing the worker
sends can run code in the parent. The parent decodes every reply within a `Budget`: a
deadline, and caps on arrays, values and the float64 bytes it will hold.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import threading
import time
from typing import Any

import numpy as np

# One lock for every Python-AST parse in the judge's process. CPython 3.11 keeps the AST constructor's
# recursion depth in state shared by all threads, so two parses at once can fail with a spurious SystemError
# ("AST constructor recursion depth mismatch", CPython gh-106905). The judge parses in two places: np.load
# reads every array header with ast.literal_eval (below), and from-scratch reads the candidate's source.
# `grade --jobs N` grades in threads, so both happen at once; unguarded, a correct file could be failed on
# "an unreadable array payload".
PARSE_LOCK = threading.Lock()

# Caps on what one message may carry; a reply above them is refused, never read.
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_MESSAGE_BYTES = 256 * 1024 * 1024
# Caps on one decoded reply in the parent. Value bytes count every number as at
# least a float64, since the checks convert what they compare (a 512 MiB bool
# array would become 4 GiB): a few replies held at once stay within ~1 GiB.
MAX_VALUE_BYTES = 256 * 1024 * 1024
MAX_ARRAYS = 10_000
MAX_NODES = 1_000_000
MAX_DEPTH = 64

_HEAD = struct.Struct(">I")
_BLOB = struct.Struct(">Q")
# Bound at import: in the worker, a candidate that patches json or NumPy later
# must not be able to change how replies are written.
_dumps, _loads, _save, _load, _monotonic = json.dumps, json.loads, np.save, np.load, time.monotonic
_frombuffer, _contiguous, _empty, _pack = np.frombuffer, np.ascontiguousarray, np.empty, struct.pack
_read_magic, _read_header_1, _read_header_2 = (np.lib.format.read_magic, np.lib.format.read_array_header_1_0,
                                               np.lib.format.read_array_header_2_0)


class RngSpec:
    """Stands for `np.random.default_rng(seed)`, built fresh in the worker."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RngSpec) and other.seed == self.seed

    def __hash__(self) -> int:
        return hash(("rng", self.seed))

    def __repr__(self) -> str:
        return f"RngSpec(seed={self.seed})"


class Unsupported:
    """A returned value the codec cannot carry (a generator, an object array, ...)."""

    __slots__ = ("type_name", "detail")

    def __init__(self, type_name: str, detail: str = "") -> None:
        self.type_name, self.detail = str(type_name), str(detail)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unsupported) and (other.type_name, other.detail) == (self.type_name, self.detail)

    def __hash__(self) -> int:
        return hash((self.type_name, self.detail))

    def __repr__(self) -> str:
        return f"Unsupported({self.type_name!r}, {self.detail!r})"

    def __str__(self) -> str:
        return f"{self.type_name}{' (' + self.detail + ')' if self.detail else ''}"


class WireError(Exception):
    """The peer sent something that is not a well-formed message."""


class TooLarge(Exception):
    """A value is larger than a message may carry, or than the parent will hold."""


class DeadlineExceeded(Exception):
    """Decoding a reply ran past the call's deadline."""


class Budget:
    """What the parent will spend on decoding one reply: time, arrays, values and bytes."""

    __slots__ = ("deadline", "arrays", "nodes", "value_bytes", "used_blobs")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.arrays = self.nodes = self.value_bytes = 0
        self.used_blobs: set[int] = set()

    def node(self, count: int = 1) -> None:
        before, self.nodes = self.nodes, self.nodes + count
        if self.nodes > MAX_NODES:
            raise TooLarge(f"a value of more than {MAX_NODES:,} items")
        if (before >> 10 != self.nodes >> 10) and _monotonic() > self.deadline:
            raise DeadlineExceeded()

    def bytes(self, n: int) -> None:
        self.value_bytes += n
        if self.value_bytes > MAX_VALUE_BYTES:
            raise TooLarge(f"values of more than {MAX_VALUE_BYTES // 2**20} MiB once read as float64")

    def array(self, index: int, blob: bytes) -> None:
        """Admit one array before it is loaded: each payload once, within the caps and the deadline."""
        if index in self.used_blobs:
            raise WireError("an array payload referenced twice")
        self.used_blobs.add(index)
        self.arrays += 1
        if self.arrays > MAX_ARRAYS:
            raise TooLarge(f"more than {MAX_ARRAYS:,} arrays")
        shape, dtype = _npy_header(blob)
        size = 1
        for dim in shape:
            size *= int(dim)
        self.bytes(size * max(8, dtype.itemsize))
        if _monotonic() > self.deadline:
            raise DeadlineExceeded()


_PLAIN = (int, float, bool, str, type(None))


# The raw array format: magic, the dtype's str (one length byte, then ASCII), ndim (one byte), the shape
# (ndim big-endian uint64), zero bytes up to a multiple of 16, then the entries in C order. The padding puts the
# entries on an aligned address of the buffer a payload is read into, so the judge can use them where they lie.
# np.save's format costs two ast.literal_eval parses per array (np.load reads its header twice) and a BytesIO
# round trip: a check sends and reads hundreds of arrays, and the header parse was a tenth of mha's whole check.
_RAW_MAGIC = b"\x00ND1"
_RAW_DTYPE = re.compile(r"[<>|=][biufc][0-9]{1,2}")  # numbers only: no objects, strings, records or subarrays
_RAW_KINDS = frozenset("biufc")


_ALIGN = 16


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def _raw_header(blob: bytes) -> tuple[tuple, np.dtype, int]:
    """(shape, dtype, offset of the entries) of a raw-format payload, every field checked."""
    try:
        n = blob[4]
        text = blob[5:5 + n].decode("ascii")
        ndim = blob[5 + n]
        offset = _aligned(6 + n + 8 * ndim)
        shape = struct.unpack_from(f">{ndim}Q", blob, 6 + n)
    except (IndexError, UnicodeDecodeError, struct.error):
        raise WireError("unreadable array header") from None
    if not _RAW_DTYPE.fullmatch(text) or ndim > 64:
        raise WireError("unreadable array header")
    try:
        dtype = np.dtype(text)
    except TypeError:
        raise WireError(f"unreadable array dtype {text!r}") from None
    if dtype.kind not in _RAW_KINDS or dtype.itemsize == 0 or dtype.fields is not None or dtype.subdtype:
        raise WireError(f"unreadable array dtype {text!r}")
    size = 1
    for dim in shape:
        size *= dim
    if len(blob) - offset != size * dtype.itemsize:
        raise WireError("an array payload whose length does not match its shape")
    return tuple(shape), dtype, offset


def _load_array(blob: bytes | bytearray, in_place: bool = False) -> np.ndarray:
    """A payload as a fresh, writable array (as np.load would give it).

    in_place: a bytearray payload that nothing else will read becomes the array's own memory, when its entries
    are aligned, instead of being copied (the judge's side: a (1,024, 1,024) result copied to fresh pages cost
    as much as the call). The worker keeps its request's payloads to tell whether a call changed its arguments,
    so it always copies."""
    if blob[:4] == _RAW_MAGIC:
        shape, dtype, offset = _raw_header(blob)
        count = len(blob) - offset
        if not count:
            return _empty(shape, dtype=dtype)
        arr = _frombuffer(blob, dtype=dtype, count=count // dtype.itemsize, offset=offset).reshape(shape)
        if in_place and type(blob) is bytearray and arr.flags.aligned:
            return arr
        return arr.copy()
    try:
        with PARSE_LOCK:  # np.load parses the header with ast.literal_eval
            return _load(io.BytesIO(blob), allow_pickle=False)
    except Exception as exc:  # noqa: BLE001 - malformed or pickled payloads are refused
        raise WireError(f"unreadable array payload: {exc}") from None


def _npy_header(blob: bytes) -> tuple[tuple, np.dtype]:
    if blob[:4] == _RAW_MAGIC:
        shape, dtype, _ = _raw_header(blob)
        return shape, dtype
    handle = io.BytesIO(blob)
    try:
        with PARSE_LOCK:  # the header is read with ast.literal_eval, as in np.load
            major, _ = _read_magic(handle)
            shape, _, dtype = (_read_header_1 if major == 1 else _read_header_2)(handle)
    except Exception as exc:  # noqa: BLE001 - any failure is a malformed payload
        raise WireError(f"unreadable array header: {exc}") from None
    if dtype.hasobject:
        raise WireError("an array payload of Python objects")
    return tuple(shape), dtype


def _array_bytes(arr: np.ndarray) -> bytes:
    text = arr.dtype.str
    if arr.dtype.kind in _RAW_KINDS and _RAW_DTYPE.fullmatch(text) and arr.ndim <= 64:
        head = _RAW_MAGIC + bytes([len(text)]) + text.encode() + bytes([arr.ndim]) + _pack(
            f">{arr.ndim}Q", *arr.shape)
        start = _aligned(len(head))
        out = bytearray(start + arr.nbytes)  # one copy of the entries, straight into the payload
        out[:len(head)] = head
        if arr.size:
            _frombuffer(out, dtype=arr.dtype, offset=start).reshape(arr.shape)[...] = arr
        return out
    buf = io.BytesIO()  # strings, records, datetimes: np.save's format, read back without pickle
    _save(buf, arr, allow_pickle=False)
    return buf.getvalue()


class ArrayParts:
    """An array's payload as its header and the array's own memory: pack() sends the two as they are, so a large
    array goes to the pipe without first being copied into a payload of its own (an (1,031, 1,031) result: 8.5 MB
    copied, and as many fresh pages touched, for each call). Only for writing: a payload read back is bytes."""

    __slots__ = ("head", "body")

    def __init__(self, head: bytes, body: memoryview) -> None:
        self.head, self.body = head, body

    def __len__(self) -> int:
        return len(self.head) + self.body.nbytes


def _array_parts(arr: np.ndarray) -> ArrayParts | bytes:
    """The payload _array_bytes would give, as ArrayParts where the raw format applies."""
    text = arr.dtype.str
    if not (arr.dtype.kind in _RAW_KINDS and _RAW_DTYPE.fullmatch(text) and arr.ndim <= 64):
        return _array_bytes(arr)
    head = _RAW_MAGIC + bytes([len(text)]) + text.encode() + bytes([arr.ndim]) + _pack(f">{arr.ndim}Q", *arr.shape)
    head += bytes(_aligned(len(head)) - len(head))
    body = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    return ArrayParts(head, memoryview(body))


def _value_bytes(arr: np.ndarray) -> int:
    return int(arr.size) * max(8, arr.dtype.itemsize)


# A nested list of plain numbers inside a returned value travels as one array above this many numbers, as the
# judge would read it (np.asarray): a (1,024, 1,024) result built from lists must not cost a million JSON items.
LIST_AS_ARRAY = 4096
_SCALARS = (int, float, bool)


def _plain_number_nest(value: list | tuple) -> np.ndarray | None:
    """`value` as an array if it is a rectangular nest of Python numbers with more than LIST_AS_ARRAY of them."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        for v in item:
            if type(v) in _SCALARS:
                count += 1
            elif type(v) in (list, tuple):
                stack.append(v)
            else:
                return None  # arrays, objects: kept as they are (a check may expect a list of arrays)
    if count <= LIST_AS_ARRAY:
        return None
    try:
        arr = np.array(value)
    except (ValueError, TypeError, OverflowError):
        return None  # ragged
    return arr if arr.dtype.kind in "biuf" else None


def encode(value: Any, blobs: list[bytes], limit: int = MAX_MESSAGE_BYTES, depth: int = 0,
           share: bool = False) -> Any:
    """Turn a value into JSON-able data, appending array payloads to `blobs`. `share`: arrays go in as ArrayParts
    (their own memory, to be written before anything changes them), not as copies."""
    if depth > MAX_DEPTH:
        return {"$unsupported": "nesting", "detail": f"nested more than {MAX_DEPTH} levels"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) is int or type(value) is float:
        return value
    if isinstance(value, np.ndarray):
        # Call the base-class method: an ndarray subclass may override `view`.
        arr = np.ndarray.view(value, np.ndarray)
        if arr.dtype.hasobject:
            return {"$unsupported": "ndarray", "detail": "an array of Python objects (dtype=object)"}
        if arr.nbytes > limit or _value_bytes(arr) > MAX_VALUE_BYTES:
            raise TooLarge(f"an array of {arr.size:,} entries of {arr.dtype} (shape {arr.shape})")
        blobs.append(_array_parts(arr) if share else _array_bytes(arr))
        return {"$nd": len(blobs) - 1}
    if isinstance(value, np.generic):
        if isinstance(value, np.object_):
            return {"$unsupported": type(value).__name__}
        kind = value.dtype.kind
        if kind in "biu":  # plain JSON is far cheaper than an np.save blob per scalar
            return {"$npscalar": int(value), "dtype": value.dtype.str}
        if kind == "f" and value.dtype.itemsize <= 8:
            return {"$npscalar": float(value), "dtype": value.dtype.str}
        blobs.append(_array_bytes(np.asarray(value)))
        return {"$np": len(blobs) - 1}
    if isinstance(value, RngSpec):
        return {"$rng": int(value.seed)}
    if isinstance(value, (int, float)):  # bool/int/float subclasses: keep the plain value
        return float(value) if isinstance(value, float) else int(value)
    if isinstance(value, (list, tuple)):
        if depth >= 1 and type(value) in (list, tuple):  # inside a returned tuple or list, never the value itself
            arr = _plain_number_nest(value)
            if arr is not None:
                return encode(arr, blobs, limit, depth, share)
        items = [encode(v, blobs, limit, depth + 1, share) for v in value]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        pairs = []
        for k, v in dict.items(value):
            if not isinstance(k, str):
                return {"$unsupported": "dict", "detail": "with non-string keys"}
            pairs.append([str(k), encode(v, blobs, limit, depth + 1, share)])
        return {"$dict": pairs}
    return {"$unsupported": type(value).__name__}


def decode(data: Any, blobs: list[bytes], build_rng: bool = False, budget: Budget | None = None,
           depth: int = 0) -> Any:
    """Inverse of `encode`; arrays are loaded with allow_pickle=False.

    With a `budget` (the parent's side), every value counts against its caps and deadline, so a reply
    can neither run past the call's time nor make the parent hold more than it allows.
    """
    if budget is not None:
        budget.node()
        if depth > MAX_DEPTH + 2:
            raise WireError(f"a value nested more than {MAX_DEPTH} levels")
    if isinstance(data, list):
        if budget is None:
            return [decode(v, blobs, build_rng, budget, depth + 1) for v in data]
        # Plain numbers (a .tolist() result) are taken as they are: counted in one go, not one call each.
        budget.node(len(data))
        plain = sum(1 for v in data if type(v) in _PLAIN)
        budget.bytes(8 * plain)
        return [v if type(v) in _PLAIN else decode(v, blobs, build_rng, budget, depth + 1) for v in data]
    if not isinstance(data, dict):
        if budget is not None and isinstance(data, (int, float)):
            budget.bytes(8)
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        raise WireError(f"unexpected {type(data).__name__} in a value")
    if "$nd" in data or "$np" in data:
        index = data.get("$nd", data.get("$np"))
        if type(index) is not int or not 0 <= index < len(blobs):
            raise WireError("array reference out of range")
        blob = blobs[index]
        if type(blob) is ArrayParts:  # encoded in this process and never sent (an in-process session)
            blob = blob.head + blob.body.tobytes()
        if budget is not None:
            budget.array(index, blob)
        arr = _load_array(blob, in_place=budget is not None)
        return arr[()] if "$np" in data else arr
    if "$npscalar" in data:
        try:
            dtype = np.dtype(str(data.get("dtype")))
        except TypeError:
            raise WireError("bad scalar dtype") from None
        raw = data["$npscalar"]
        if dtype.kind not in "biuf" or isinstance(raw, (dict, list, str)) or raw is None:
            raise WireError("bad scalar")
        if budget is not None:
            budget.bytes(8)
        try:
            return dtype.type(raw)
        except (OverflowError, ValueError, TypeError):
            raise WireError("bad scalar value") from None
    if "$tuple" in data:
        items = data["$tuple"]
        if not isinstance(items, list):
            raise WireError("bad tuple")
        return tuple(decode(v, blobs, build_rng, budget, depth + 1) for v in items)
    if "$dict" in data:
        pairs = data["$dict"]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise WireError("bad dict")
        return {str(k): decode(v, blobs, build_rng, budget, depth + 1) for k, v in pairs}
    if "$rng" in data:
        seed = data["$rng"]
        if type(seed) is not int:
            raise WireError("bad rng seed")
        return np.random.default_rng(seed) if build_rng else RngSpec(seed)
    if "$unsupported" in data:
        return Unsupported(str(data["$unsupported"])[:100], str(data.get("detail", ""))[:300])
    raise WireError(f"unknown tag in {sorted(str(k) for k in data)[:5]}")


# Reply.args and .kwargs when the worker found a call's arguments as they were sent ("args_unchanged").
ARGS_UNCHANGED = object()


def pack(header: dict, blobs: list[bytes]) -> list[bytes]:
    """One frame, as the parts write_frame sends: header length, JSON header (with the blob count), then each
    blob after its length. Not joined: a large array is not copied once more into one bytes object."""
    head = _dumps({**header, "$blobs": len(blobs)}).encode()
    parts = [_HEAD.pack(len(head)), head]
    for blob in blobs:
        if type(blob) is ArrayParts:
            parts += [_BLOB.pack(len(blob)), blob.head, blob.body]
        else:
            parts += [_BLOB.pack(len(blob)), blob]
    return parts


_IOV_MAX = 512  # parts per writev, well below the platform's IOV_MAX (1,024 on Linux)
_writev = getattr(os, "writev", None)


def write_frame(fd: int, frame: bytes | list[bytes]) -> None:
    """Write a frame (bytes, or pack's parts) in full; one system call for the parts where the OS allows."""
    parts = [frame] if isinstance(frame, (bytes, bytearray)) else frame
    views = [memoryview(p).cast("B") for p in parts if len(p)]
    i = 0
    while i < len(views):
        if _writev is None or i == len(views) - 1:
            written = os.write(fd, views[i])
        else:
            written = _writev(fd, views[i:i + _IOV_MAX])
        while written:  # skip what went out; a part cut short keeps its tail
            if written >= len(views[i]):
                written -= len(views[i])
                i += 1
            else:
                views[i] = views[i][written:]
                written = 0


def read_frame(read_exact) -> tuple[dict, list[bytes]]:
    """Read one frame with `read_exact(n) -> bytes`, enforcing the size caps."""
    (n,) = _HEAD.unpack(read_exact(_HEAD.size))
    if n > MAX_HEADER_BYTES:
        raise WireError(f"header of {n} bytes is over the limit")
    raw = read_exact(n)
    # A header of more than MAX_NODES commas holds more than MAX_NODES items, which decoding would refuse anyway:
    # refused before parsing it (3 ms for 6 MB, against half a second for json.loads of 3 million numbers).
    if raw.count(b",") >= MAX_NODES:
        raise TooLarge(f"a value of more than {MAX_NODES:,} items")
    try:
        header = _loads(raw)
    except (ValueError, RecursionError, MemoryError) as exc:  # RecursionError: a deeply nested header
        raise WireError(f"header is not readable JSON: {type(exc).__name__}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    count = header.pop("$blobs", 0)
    if type(count) is not int or count < 0 or count > MAX_ARRAYS:
        raise WireError("bad blob count")
    blobs, total = [], n
    for _ in range(count):
        (size,) = _BLOB.unpack(read_exact(_BLOB.size))
        total += size
        if total > MAX_MESSAGE_BYTES:
            raise WireError(f"message over {MAX_MESSAGE_BYTES:,} bytes")
        blobs.append(read_exact(size))
    return header, blobs
