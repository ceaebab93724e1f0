"""Framing and value codec for the parent <-> worker pipe (no pickle, ever).

Both sides import this module; the worker runs it with only NumPy and the
standard library. Arrays travel as `np.save` bytes and are read back with
`allow_pickle=False`, so nothing the worker sends can run code in the parent.
"""

from __future__ import annotations

import io
import json
import os
import struct
import threading
from dataclasses import dataclass
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
MAX_MESSAGE_BYTES = 512 * 1024 * 1024

_HEAD = struct.Struct(">I")
_BLOB = struct.Struct(">Q")
# Bound at import: in the worker, a candidate that patches json or NumPy later
# must not be able to change how replies are written.
_dumps, _loads, _save, _load = json.dumps, json.loads, np.save, np.load


@dataclass(frozen=True)
class RngSpec:
    """Stands for `np.random.default_rng(seed)`, built fresh in the worker."""

    seed: int


@dataclass(frozen=True)
class Unsupported:
    """A returned value the codec cannot carry (a generator, an object array, ...)."""

    type_name: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.type_name}{' (' + self.detail + ')' if self.detail else ''}"


class WireError(Exception):
    """The peer sent something that is not a well-formed message."""


class TooLarge(Exception):
    """A value is larger than a message may carry."""


def _array_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    _save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def encode(value: Any, blobs: list[bytes], limit: int = MAX_MESSAGE_BYTES, depth: int = 0) -> Any:
    """Turn a value into JSON-able data, appending array payloads to `blobs`."""
    if depth > 64:
        return {"$unsupported": "nesting", "detail": "nested more than 64 levels"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) is int or type(value) is float:
        return value
    if isinstance(value, np.ndarray):
        # Call the base-class method: an ndarray subclass may override `view`.
        arr = np.ndarray.view(value, np.ndarray)
        if arr.dtype.hasobject:
            return {"$unsupported": "ndarray", "detail": "an array of Python objects (dtype=object)"}
        if arr.nbytes > limit:
            raise TooLarge(f"an array of {arr.nbytes:,} bytes (shape {arr.shape})")
        blobs.append(_array_bytes(arr))
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
        items = [encode(v, blobs, limit, depth + 1) for v in value]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        pairs = []
        for k, v in dict.items(value):
            if not isinstance(k, str):
                return {"$unsupported": "dict", "detail": "with non-string keys"}
            pairs.append([str(k), encode(v, blobs, limit, depth + 1)])
        return {"$dict": pairs}
    return {"$unsupported": type(value).__name__}


def decode(data: Any, blobs: list[bytes], build_rng: bool = False) -> Any:
    """Inverse of `encode`; arrays are loaded with allow_pickle=False."""
    if isinstance(data, list):
        return [decode(v, blobs, build_rng) for v in data]
    if not isinstance(data, dict):
        return data
    if "$nd" in data or "$np" in data:
        index = data.get("$nd", data.get("$np"))
        if not isinstance(index, int) or not 0 <= index < len(blobs):
            raise WireError("array reference out of range")
        try:
            with PARSE_LOCK:  # np.load parses the header with ast.literal_eval
                arr = _load(io.BytesIO(blobs[index]), allow_pickle=False)
        except Exception as exc:  # malformed or pickled payloads are refused
            raise WireError(f"unreadable array payload: {exc}") from None
        return arr[()] if "$np" in data else arr
    if "$npscalar" in data:
        dtype = np.dtype(str(data.get("dtype")))
        if dtype.kind not in "biuf" or isinstance(data["$npscalar"], (dict, list, str)):
            raise WireError("bad scalar")
        return dtype.type(data["$npscalar"])
    if "$tuple" in data:
        return tuple(decode(v, blobs, build_rng) for v in data["$tuple"])
    if "$dict" in data:
        return {str(k): decode(v, blobs, build_rng) for k, v in data["$dict"]}
    if "$rng" in data:
        return np.random.default_rng(int(data["$rng"])) if build_rng else RngSpec(int(data["$rng"]))
    if "$unsupported" in data:
        return Unsupported(str(data["$unsupported"]), str(data.get("detail", "")))
    raise WireError(f"unknown tag in {sorted(data)}")


def pack(header: dict, blobs: list[bytes]) -> bytes:
    """One frame: header length, JSON header (with the blob count), then each blob."""
    head = _dumps({**header, "$blobs": len(blobs)}).encode()
    parts = [_HEAD.pack(len(head)), head]
    for blob in blobs:
        parts += [_BLOB.pack(len(blob)), blob]
    return b"".join(parts)


def write_frame(fd: int, frame: bytes) -> None:
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frame(read_exact) -> tuple[dict, list[bytes]]:
    """Read one frame with `read_exact(n) -> bytes`, enforcing the size caps."""
    (n,) = _HEAD.unpack(read_exact(_HEAD.size))
    if n > MAX_HEADER_BYTES:
        raise WireError(f"header of {n} bytes is over the limit")
    try:
        header = _loads(read_exact(n))
    except ValueError as exc:
        raise WireError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    count = header.pop("$blobs", 0)
    if not isinstance(count, int) or count < 0 or count > 100_000:
        raise WireError("bad blob count")
    blobs, total = [], n
    for _ in range(count):
        (size,) = _BLOB.unpack(read_exact(_BLOB.size))
        total += size
        if total > MAX_MESSAGE_BYTES:
            raise WireError(f"message over {MAX_MESSAGE_BYTES:,} bytes")
        blobs.append(read_exact(size))
    return header, blobs
