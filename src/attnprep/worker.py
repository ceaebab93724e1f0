"""The worker process: loads a candidate's file and runs the calls the parent sends.

Everything here runs beside untrusted code, so it trusts nothing it did not
capture before the candidate was loaded, and it never judges anything: it
only reports what the candidate's functions returned or raised.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

CANDIDATE_MODULE = "candidate"


def _limit_resources(memory_bytes: int, cpu_seconds: int) -> None:
    try:
        import resource
        import signal
    except ImportError:  # not POSIX: the parent's wall-clock limit still applies
        return
    for name, value in (("RLIMIT_AS", memory_bytes), ("RLIMIT_CPU", cpu_seconds),
                        ("RLIMIT_CORE", 0), ("RLIMIT_FSIZE", 64 * 1024 * 1024)):
        limit = getattr(resource, name, None)
        if limit is None or value <= 0:
            continue
        try:
            _, hard = resource.getrlimit(limit)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(limit, (value, hard))
        except (ValueError, OSError):
            pass
    # Writing past RLIMIT_FSIZE should fail with an error, not kill the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _candidate_line(tb, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _exception_reply(exc: BaseException, filename: str) -> dict:
    names = [cls.__name__ for cls in type(exc).__mro__]
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__
        text = "<unprintable>"
    return {"ok": False, "kind": "exception", "type": type(exc).__name__, "mro": names,
            "message": text[:500], "line": _candidate_line(exc.__traceback__, filename)}


def main(fd_in: int, fd_out: int) -> None:
    import numpy as np

    from attnprep import wire

    # Keep our own references: the candidate may patch modules after it loads.
    read, write_frame, pack, encode = os.read, wire.write_frame, wire.pack, wire.encode
    decode, read_frame, TooLarge, monotonic = wire.decode, wire.read_frame, wire.TooLarge, time.monotonic
    _exit = os._exit
    import tracemalloc

    trace_start, trace_peak, trace_stop, tracing = (tracemalloc.start, tracemalloc.get_traced_memory,
                                                    tracemalloc.stop, tracemalloc.is_tracing)

    def read_exact(n: int) -> bytes:
        chunks, need = [], n
        while need:
            chunk = read(fd_in, min(need, 1 << 20))
            if not chunk:
                _exit(0)  # the parent has gone: nothing left to do
            chunks.append(chunk)
            need -= len(chunk)
        return b"".join(chunks)

    def reply(header: dict, blobs: list[bytes] | None = None) -> None:
        write_frame(fd_out, pack(header, blobs or []))

    namespace: dict = {}
    filename = "<candidate>"
    np.seterr(all="ignore")  # the judge reads inf/nan from the results, not warnings
    reply({"ok": True, "kind": "ready", "pid": os.getpid()})
    while True:
        header, blobs = read_frame(read_exact)
        op = header.get("op")
        if op == "load":
            filename = header["filename"]
            import types

            module = types.ModuleType(CANDIDATE_MODULE)
            module.__file__ = filename
            sys.modules[CANDIDATE_MODULE] = module
            namespace = module.__dict__
            try:
                code = compile(header["source"], filename, "exec", dont_inherit=True)
            except SyntaxError as exc:
                reply({"ok": False, "kind": "syntax", "type": type(exc).__name__,
                       "message": str(exc.msg), "line": exc.lineno})
                continue
            except (ValueError, MemoryError, RecursionError) as exc:  # e.g. null bytes
                reply({"ok": False, "kind": "syntax", "type": type(exc).__name__,
                       "message": str(exc), "line": None})
                continue
            try:
                exec(code, namespace)
            except BaseException as exc:  # SystemExit and KeyboardInterrupt included
                reply({**_exception_reply(exc, filename), "kind": "import"})
                continue
            wanted = header.get("functions", [])
            missing = [n for n in wanted if not callable(namespace.get(n))]
            reply({"ok": True, "kind": "loaded", "missing": missing})
        elif op == "call":
            fn = namespace.get(header["fn"])
            args = decode(header.get("args", []), blobs, build_rng=True)
            kwargs = decode(header.get("kwargs", {}), blobs, build_rng=True)
            repeat, traced = header.get("repeat"), header.get("trace_memory")
            peak = None
            if traced:
                trace_start()
            started = monotonic()
            try:
                if repeat is None:
                    result = fn(*args, **kwargs)
                else:
                    result = [fn(*args, **kwargs) for _ in range(int(repeat))]
            except BaseException as exc:
                if traced and tracing():
                    trace_stop()
                reply(_exception_reply(exc, filename))
                continue
            elapsed = monotonic() - started
            if traced:
                # -1 tells the parent that the candidate switched tracing off.
                peak = trace_peak()[1] if tracing() else -1
                if tracing():
                    trace_stop()
            out_blobs: list[bytes] = []
            try:
                payload = {"ok": True, "kind": "result", "elapsed": elapsed, "peak_bytes": peak,
                           "result": encode(result, out_blobs)}
                if header.get("return_args"):
                    payload["args"] = encode(list(args), out_blobs)
                    payload["kwargs"] = encode(dict(kwargs), out_blobs)
            except TooLarge as exc:
                reply({"ok": False, "kind": "too-large", "message": str(exc)})
                continue
            except BaseException as exc:  # a hostile object broke the encoder
                reply({"ok": False, "kind": "unencodable", "type": type(exc).__name__,
                       "message": str(exc)[:300]})
                continue
            reply(payload, out_blobs)
        else:
            reply({"ok": False, "kind": "protocol", "message": f"unknown op {op!r}"})


if __name__ == "__main__":
    fd_in, fd_out, memory, cpu = (int(a) for a in sys.argv[1:5])
    _limit_resources(memory, cpu)
    main(fd_in, fd_out)
