"""The worker process: loads a candidate's file and runs the calls the parent sends.

This file is not imported in the worker. The parent sends its source, and the
codec's, through the pipe before the first frame; a tiny bootstrap runs it as
`__main__` from source named `<string>`, so the candidate finds nothing named
after the package in sys.modules, its call stack or its paths. Everything here
runs beside untrusted code, so it trusts nothing it did not capture before the
candidate was loaded, and it never judges anything: it only reports what the
candidate's functions returned or raised.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import traceback

CANDIDATE_MODULE = "candidate"
FILE_LIMIT = 64 * 1024 * 1024


_PENDING = bytearray()  # read from the parent's pipe, not yet taken
_READ_AHEAD = 1 << 16


def read_exact(fd: int, n: int) -> bytes | bytearray:
    """n bytes from fd; the parent having gone is the end of the worker. A short read takes what the pipe
    holds and keeps the rest (one read for a request's lengths, header and small arrays); a large one goes
    straight into its own buffer."""
    if len(_PENDING) >= n:
        out = bytes(_PENDING[:n])
        del _PENDING[:n]
        return out
    out = bytearray(n)
    view = memoryview(out)
    have = len(_PENDING)
    view[:have] = _PENDING
    _PENDING.clear()
    while have < n:
        if n - have < _READ_AHEAD:
            chunk = os.read(fd, _READ_AHEAD)
            got = min(len(chunk), n - have)
            view[have:have + got] = chunk[:got]
            _PENDING.extend(chunk[got:])
        else:
            chunk = os.read(fd, min(n - have, 1 << 20))
            got = len(chunk)
            view[have:have + got] = chunk
        if not got:
            os._exit(0)
        have += got
    return out


def read_chunk(fd: int) -> bytes:
    """One length-prefixed chunk of the start-up bundle (8-byte big-endian length)."""
    return read_exact(fd, int.from_bytes(read_exact(fd, 8), "big"))


def limit_resources(memory_bytes: int, cpu_seconds: int, processes: int) -> None:
    """Hard limits (soft = hard), set before the candidate exists, so it cannot raise them again."""
    try:
        import resource
        import signal
    except ImportError:  # not POSIX: the parent's wall-clock limit still applies
        return
    for name, value in (("RLIMIT_AS", memory_bytes), ("RLIMIT_CPU", cpu_seconds), ("RLIMIT_CORE", 0),
                        ("RLIMIT_FSIZE", FILE_LIMIT), ("RLIMIT_NPROC", processes)):
        limit = getattr(resource, name, None)
        if limit is None or value < 0 or (value == 0 and name not in ("RLIMIT_CORE",)):
            continue
        try:
            _, hard = resource.getrlimit(limit)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass
    # Writing past RLIMIT_FSIZE should fail with an error, not kill the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def warm_up(np) -> None:
    """Touch what a first matmul, exp and rng cost, so a memory measurement sees only the candidate's share."""
    w = np.ones((64, 64))
    np.exp(w @ w).sum()
    np.random.default_rng(0).normal(size=(64, 64))


class TorchAdapter:
    """The PyTorch view of a call: NumPy arguments in as CPU tensors, tensors in the results out as NumPy.

    Float arrays keep their dtype (the judge sends float64, so tensors are float64, the reference's precision),
    integer arrays become int64 (what gather, one_hot and bincount want), bool arrays bool. An array that is not
    C-contiguous is copied first (negative strides, which torch.from_numpy refuses). Dicts,
    lists and tuples are converted item by item. An rng (an RngSpec) becomes a fresh `torch.Generator` seeded
    with its seed, one per argument, the same object for every call of a repeated call.
    """

    def __init__(self, torch, np, spec_type) -> None:
        self.torch, self.np, self.spec_type = torch, np, spec_type
        # Bound now: the candidate may patch torch after it loads.
        self.tensor_type, self.generator_type = torch.Tensor, torch.Generator
        self.from_numpy, self.make_generator = torch.from_numpy, torch.Generator
        self.bfloat16, self.float32 = torch.bfloat16, torch.float32
        self.seeds: dict[int, object] = {}  # id(generator) -> the RngSpec it stands for
        self.saw_bfloat16 = False  # a result held bfloat16 (sent as float32): the parent tells the learner

    def to_torch(self, value, depth: int = 0):
        np = self.np
        if depth > 64:
            return value
        if isinstance(value, np.ndarray):
            # The decoded arguments are this worker's own arrays, used for nothing else: a C-contiguous one is
            # shared with its tensor, not copied (a flash `memory` measurement counts every copy).
            kind = value.dtype.kind
            if kind in "iu" and value.dtype != np.int64:
                arr = value.astype(np.int64, order="C")
            elif kind in "biufc":
                arr = value
            else:
                return value
            if not (arr.flags.c_contiguous and arr.flags.writeable):
                arr = np.array(arr, order="C")  # negative strides, a read-only buffer: a copy of its own
            return self.from_numpy(arr)
        if isinstance(value, np.generic):  # numbers stay numbers, as Python's own
            return value.item()
        if isinstance(value, self.spec_type):
            gen = self.make_generator()
            gen.manual_seed(value.seed)
            self.seeds[id(gen)] = value
            return gen
        if type(value) is list:
            return [self.to_torch(v, depth + 1) for v in value]
        if type(value) is tuple:
            return tuple(self.to_torch(v, depth + 1) for v in value)
        if type(value) is dict:
            return {k: self.to_torch(v, depth + 1) for k, v in value.items()}
        return value

    def to_numpy(self, value, depth: int = 0):
        """Tensors as contiguous NumPy arrays (0-d ones as NumPy numbers), recursively; the rest as it is."""
        np = self.np
        if depth > 64:
            return value
        if isinstance(value, self.tensor_type):
            t = self.tensor_type.detach(value).cpu()
            if t.dtype == self.bfloat16:  # NumPy has no bfloat16: float32 holds every bfloat16 exactly
                t = t.to(self.float32)
                self.saw_bfloat16 = True
            if t.is_conj():
                t = t.resolve_conj()
            if t.is_neg():
                t = t.resolve_neg()
            arr = t.numpy()
            if not arr.flags.c_contiguous:
                arr = np.array(arr, order="C")  # a copy only where the tensor is not contiguous
            return arr[()] if arr.ndim == 0 else arr
        if isinstance(value, self.generator_type):
            return self.seeds.get(id(value), value)
        # Subclasses too: torch.Size, the (values, indices) of torch.topk and torch.sort, an OrderedDict.
        if isinstance(value, list):
            return [self.to_numpy(v, depth + 1) for v in value]
        if isinstance(value, tuple):
            return tuple(self.to_numpy(v, depth + 1) for v in tuple.__iter__(value))
        if isinstance(value, dict):
            return {k: self.to_numpy(v, depth + 1) for k, v in dict.items(value)}
        return value


def load_torch(np, spec_type):
    """Import torch (before the candidate exists and before the worker is ready) and warm it up."""
    import torch

    torch.set_num_threads(1)  # the judge runs several workers on a few cores; one thread each is fair and steady
    # What a first call of the usual operations costs (kernels set up, buffers, the allocator's own state) is
    # paid here, before the worker is ready, so a memory measurement sees only the candidate's share.
    for dtype in (torch.float64, torch.float32):
        a = torch.ones((64, 64), dtype=dtype)
        s = (a @ a.transpose(-2, -1)) / 8.0
        s = s.masked_fill(torch.triu(torch.ones(64, 64, dtype=torch.bool), diagonal=1), float("-inf"))
        m = torch.maximum(torch.full((64,), float("-inf"), dtype=dtype), s.amax(dim=1))
        p = torch.exp(s - m[:, None])
        out = torch.zeros(64, 64, dtype=dtype)
        out[:32] = (p @ a)[:32] / p.sum(dim=1, keepdim=True)[:32]
        torch.cat([out, torch.softmax(s, dim=-1)], dim=0).max(dim=-1)
        torch.where(s > 0, s, torch.zeros_like(s)).sqrt().log1p().sort(dim=-1)
        torch.topk(s, 4, dim=-1)
        torch.arange(64).reshape(8, 8).to(dtype).cumsum(0)
    torch.multinomial(torch.ones(8), 1, generator=torch.Generator().manual_seed(0))
    np.asarray(torch.ones(3).numpy())
    return TorchAdapter(torch, np, spec_type)


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


def load_framework(framework: str, np, wire) -> tuple[TorchAdapter | None, dict]:
    """The framework's adapter (None for NumPy) and the worker's `ready` header, which says if torch failed."""
    adapter, ready = None, {"ok": True, "kind": "ready"}
    if framework == "torch":
        try:
            adapter = load_torch(np, wire.RngSpec)
        except BaseException as exc:  # noqa: BLE001 - torch missing or broken here: said once, to every load
            ready["framework_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    return adapter, ready


def main(fd_in: int, fd_out: int, wire, framework: str = "numpy",
         loaded: tuple[TorchAdapter | None, dict] | None = None) -> None:
    """Serve one file's requests. `loaded`: what load_framework gave a zygote before it forked this worker."""
    import random as py_random
    import types

    import numpy as np

    adapter, ready = loaded if loaded is not None else load_framework(framework, np, wire)

    # Keep our own references: the candidate may patch modules after it loads.
    write_frame, pack, encode = wire.write_frame, wire.pack, wire.encode
    decode, read_frame, TooLarge, monotonic = wire.decode, wire.read_frame, wire.TooLarge, time.monotonic
    import tracemalloc

    trace_start, trace_peak, trace_stop, tracing = (tracemalloc.start, tracemalloc.get_traced_memory,
                                                    tracemalloc.stop, tracemalloc.is_tracing)

    def read(n: int) -> bytes:
        return read_exact(fd_in, n)

    def reply(header: dict, blobs: list[bytes] | None = None) -> None:
        write_frame(fd_out, pack(header, blobs or []))

    namespace: dict = {}
    filename = "<candidate>"
    last_load = None
    np.seterr(all="ignore")  # the judge reads inf/nan from the results, not warnings
    reply(ready)
    while True:
        header, blobs = read_frame(read)
        op = header.get("op")
        kept = None
        if op == "reload" and last_load is not None:  # the same file imported afresh: module-level state anew
            header, op = last_load, "load"
            kept = (namespace, sys.modules.get(CANDIDATE_MODULE))  # what later calls use if it fails this time
        if op == "load":
            last_load = header
            filename = header["filename"]
            if "framework_error" in ready:
                reply({"ok": False, "kind": "import", "type": "ImportError", "mro": ["ImportError", "Exception"],
                       "message": f"PyTorch could not be imported: {ready['framework_error']}", "line": None})
                continue
            # As `python FILE` would show it: the worker's own command line (-c, pipe numbers) tells a file that it
            # is being graded, and one could behave only then.
            sys.argv = [filename]
            sys.orig_argv = [sys.executable or "python", filename]
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
                if kept is not None:
                    namespace, sys.modules[CANDIDATE_MODULE] = kept
                reply({**_exception_reply(exc, filename), "kind": "import"})
                continue
            wanted = header.get("functions", [])
            missing = [n for n in wanted if not callable(namespace.get(n))]
            if missing and kept is not None:
                namespace, sys.modules[CANDIDATE_MODULE] = kept
            reply({"ok": True, "kind": "loaded", "missing": missing})
        elif op == "call":
            fn = namespace.get(header["fn"])
            args = decode(header.get("args", []), blobs, build_rng=adapter is None)
            kwargs = decode(header.get("kwargs", {}), blobs, build_rng=adapter is None)
            if adapter is not None:
                adapter.seeds.clear()  # the generators of this call only
                args, kwargs = adapter.to_torch(args), adapter.to_torch(kwargs)
            repeat, traced = header.get("repeat"), header.get("trace_memory")
            # Further calls made before any result is read back (Candidate.in_a_row). An argument {"$prev": i,
            # "index": [...]} is the live object an earlier call returned (a cache fed back as it was returned).
            then = []
            for extra in header.get("then") or []:
                raw = extra.get("args", [])
                prev = {i: a for i, a in enumerate(raw) if isinstance(a, dict) and "$prev" in a}
                more_args = decode([None if i in prev else a for i, a in enumerate(raw)], blobs,
                                   build_rng=adapter is None)
                more_kwargs = decode(extra.get("kwargs", {}), blobs, build_rng=adapter is None)
                if adapter is not None:
                    more_args, more_kwargs = adapter.to_torch(more_args), adapter.to_torch(more_kwargs)
                then.append((namespace.get(extra.get("fn")), more_args, more_kwargs, prev))
            peak = None
            if header.get("global_seed") is not None:  # Candidate.repeat_global_seed: is np.random's state used?
                np.random.seed(int(header["global_seed"]))
                py_random.seed(int(header["global_seed"]))
            if traced:
                trace_start()
            started = monotonic()
            try:
                if repeat is None:
                    result = fn(*args, **kwargs)
                else:
                    result = [fn(*args, **kwargs) for _ in range(int(repeat))]
                if then:
                    results = [result]
                    for more, more_args, more_kwargs, prev in then:
                        for i, ref in prev.items():
                            value = results[int(ref["$prev"])]
                            for step in ref.get("index", []):
                                value = value[int(step)]
                            more_args[i] = value
                        results.append(more(*more_args, **more_kwargs))
                    result = results
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
                bfloat16 = False
                if adapter is not None:  # the judge compares arrays, and the arguments as the call left them
                    adapter.saw_bfloat16 = False
                    result = adapter.to_numpy(result)
                    bfloat16 = adapter.saw_bfloat16
                    args, kwargs = adapter.to_numpy(args), adapter.to_numpy(kwargs)
                payload = {"ok": True, "kind": "result", "elapsed": elapsed, "peak_bytes": peak,
                           "result": encode(result, out_blobs, share=True)}
                if bfloat16:
                    payload["bfloat16"] = True
                if header.get("return_args"):
                    # Arguments the call left as they came are not sent back: the same encoding, blob for blob,
                    # as the request's (its arguments' blobs come first). The judge then compares nothing, and
                    # neither side decodes them (a third of the wire's work in most checks).
                    mine: list[bytes] = []
                    after = [encode(list(args), mine), encode(dict(kwargs), mine)]
                    if after == [header.get("args", []), header.get("kwargs", {})] and mine == blobs[:len(mine)]:
                        payload["args_unchanged"] = True
                    else:
                        payload["args"] = encode(list(args), out_blobs, share=True)
                        payload["kwargs"] = encode(dict(kwargs), out_blobs, share=True)
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


# -- the zygote: one booted process that forks a fresh worker per file (grade) ------------------------------

ZYGOTE = -1  # the `warm` argument that makes start() a zygote
_WIPED = ("/tmp", "/home/user", "/dev/shm")  # the sandbox's writable places, emptied before each fork


def _wipe(top: str) -> None:
    """Remove everything under `top` (a private tmpfs of the sandbox), so a file finds nothing the last left."""
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                os.chmod(entry.path, 0o700)  # a folder the last file made unreadable
                _wipe(entry.path)
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def _clear_ipc(libc) -> None:
    """Remove the System V shared memory, semaphores and message queues of the sandbox's ipc namespace: they
    outlive the processes that made them (POSIX shared memory lives in /dev/shm, emptied by _wipe)."""
    if libc is None:
        return
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}", "rb") as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            try:
                ident = int(row.split()[1])
            except (IndexError, ValueError):
                continue
            if kind == "sem":
                libc.semctl(ident, 0, 0)  # IPC_RMID
            else:
                getattr(libc, f"{kind}ctl")(ident, 0, None)  # IPC_RMID


def _close_all_but(keep: set[int]) -> None:
    try:
        open_fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = list(range(3, 1024))
    for fd in open_fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _recv_exact(sock, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def zygote(sock_fd: int, wire, memory: int, cpu: int, processes: int, framework: str = "numpy") -> None:
    """Serve the parent's control socket: b"F" with four fds (requests in, replies out, stdout, stderr) forks a
    worker on them and answers its pid; b"W" + pid + milliseconds answers its exit code once it has ended
    (or a sentinel). Only the parent talks to this process; the files it forks for run in its children.

    A PyTorch zygote imports torch (and warms it up) once, before it is ready. Forking after that is safe
    because nothing here ever starts torch's thread pools: load_torch sets one thread, and the warm-up's
    work runs on this thread alone, so a child inherits no pool whose threads the fork would leave behind."""
    import gc
    import random as py_random
    import signal
    import socket
    import tracemalloc  # noqa: F401 - what each forked worker would import, imported once
    import types  # noqa: F401

    import numpy as np
    import numpy.random  # noqa: F401 - lazy in NumPy 2: each forked worker seeds it, and would import it (12 ms)

    loaded = load_framework(framework, np, wire)
    warm_up(np)  # a first matmul, exp and draw: paid once here, not in every worker forked
    libc = None
    try:  # non-dumpable: a forked file may signal this process, but can neither ptrace it nor read its memory
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # What is loaded now is shared with every worker forked, page for page, until one writes to it: the collector
    # would write to every object it visits (and copy its page), so it leaves these alone from here on.
    gc.freeze()
    sock = socket.socket(fileno=sock_fd)
    wire.write_frame(sock_fd, wire.pack({"ok": True, "kind": "ready"}, []))
    ended: dict[int, int] = {}  # exit codes of children reaped before the parent asked
    no_code = -(1 << 62)
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 1, 4)
        if not msg:
            os._exit(0)
        if msg == b"F" and len(fds) == 4:
            while True:  # reap what has ended since the last fork
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if not pid:
                    break
                ended[pid] = os.waitstatus_to_exitcode(status)
            for top in _WIPED:
                _wipe(top)
            _clear_ipc(libc)
            pid = os.fork()
            if pid == 0:
                try:
                    os.dup2(fds[2], 1)
                    os.dup2(fds[3], 2)
                    _close_all_but({fds[0], fds[1]})
                    limit_resources(memory, cpu, processes)
                    np.random.seed()  # as a freshly started worker would be: not the zygote's state, shared by all
                    py_random.seed()
                    main(fds[0], fds[1], wire, framework, loaded)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
            sock.sendall(pid.to_bytes(8, "big", signed=True))
        elif msg == b"W":
            raw = _recv_exact(sock, 16)
            pid, wait_ms = int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big")
            code = ended.pop(pid, None)
            give_up = time.monotonic() + wait_ms / 1000
            while code is None:
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    code = no_code
                    break
                if done:
                    code = os.waitstatus_to_exitcode(status)
                elif time.monotonic() >= give_up:
                    code = no_code
                else:
                    time.sleep(0.002)
            sock.sendall(int(code).to_bytes(8, "big", signed=True))
        else:
            for fd in fds:
                os.close(fd)
            os._exit(3)  # not the parent's protocol


def start(argv: list[str]) -> None:
    """argv: fd_in fd_out memory_bytes cpu_seconds processes warm site [framework]. The codec's source comes
    next on fd_in. warm == ZYGOTE: fd_in is a control socket, and this process forks workers (zygote())."""
    import types

    fd_in, fd_out, memory, cpu, processes, warm = (int(a) for a in argv[:6])
    sys.path.insert(0, argv[6])  # where NumPy (and torch, for a PyTorch file) is, under a neutral name
    framework = argv[7] if len(argv) > 7 else "numpy"
    wire = types.ModuleType("wire")
    exec(marshal.loads(read_chunk(fd_in)), wire.__dict__)
    if warm == ZYGOTE:
        zygote(fd_in, wire, memory, cpu, processes, framework)
        return
    limit_resources(memory, cpu, processes)
    if warm:
        import numpy

        warm_up(numpy)
    main(fd_in, fd_out, wire, framework)


if __name__ == "__main__":
    start(sys.argv[1:])
