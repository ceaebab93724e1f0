"""Where a worker runs: inside bubblewrap when it can start there, else as a hardened plain process.

With bubblewrap (`bwrap`, Linux) the worker gets new user, pid, network, ipc,
uts and cgroup namespaces, no capabilities, and a file system of its own: a
read-only view of the Python interpreter, the system libraries and NumPy
(bound at a neutral path), private tmpfs /tmp, HOME and /dev/shm of capped
size, a fresh read-only /proc and a minimal /dev. Nothing of the package, its
exercise data (graders and references), the progress directory or the user's
files is visible. Where bwrap is missing or cannot start (macOS, Windows,
containers without user namespaces) the worker runs as a plain process with
hard limits, and `check` says so once on stderr.

Either way the worker announces nothing: it runs the base interpreter with
`-I -S` from a neutral temporary directory, NumPy is reached through a
neutral path, and its code arrives through the pipe (see worker.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import namedtuple
from pathlib import Path

from attnprep import ONE_BLAS_THREAD
from attnprep.errors import AttnprepError

MODES = ("auto", "required", "off")
MEMORY_LIMIT = 2 * 1024**3
# Within the sandbox's own user namespace this caps the worker's processes and threads (not for
# root, whom the kernel exempts; a cgroup then caps them where one can be had).
PROCESS_LIMIT = 64
TMPFS_BYTES = 64 * 1024 * 1024
SHM_BYTES = 16 * 1024 * 1024
# Top-level packages a candidate may import besides the standard library.
EXPOSED = ("numpy",)
# And for a PyTorch file (frameworks.detect), what `import torch` itself imports besides NumPy: the package with
# its vendored shared libraries, functorch and torchgen (imported by torch's own __init__) and typing_extensions
# (one file). sympy, networkx, jinja2, filelock and fsspec are imported only by torch.compile, export and the
# hub, which no exercise needs: left out, they stay out of the candidate's reach.
EXPOSED_FOR = {"numpy": EXPOSED, "torch": (*EXPOSED, "torch", "functorch", "torchgen", "typing_extensions")}
# Inside the sandbox: where the exposed packages, HOME and the working directory are.
SITE, HOME = "/site-packages", "/home/user"
# Variables the worker may inherit: enough to run NumPy the way the parent does, nothing about the user.
_ENV_KEEP = ("LANG", "LC_ALL", "SYSTEMROOT", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# A worker that measures memory: glibc maps every block of 128 KiB or more on its own and unmaps it when freed,
# instead of raising that threshold as it goes and keeping freed blocks in its heap. The peak the kernel reports
# is then what the call held at once, the same whether PyTorch or NumPy allocated it, and not what the
# allocator happened to keep (a (T, 64) strip solution in PyTorch peaked at 9 MiB with this, 15 to 21 without).
_MEASURE_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "131072"}
# Run as `python -I -S -c BOOT fd_in ...`: reads the worker's code (marshalled, see runner._sources) from fd_in
# and runs it.
BOOT = ("import os,sys,marshal\n"
        "def _r(n):\n"
        " b=b''\n"
        " while len(b)<n:\n"
        "  c=os.read(int(sys.argv[1]),n-len(b))\n"
        "  if not c:os._exit(0)\n"
        "  b+=c\n"
        " return b\n"
        "exec(marshal.loads(_r(int.from_bytes(_r(8),'big'))))\n")


class SandboxUnavailable(AttnprepError):
    """--sandbox required, and bubblewrap cannot run the worker here."""

    hint = ("install bubblewrap (`apt install bubblewrap`, `dnf install bubblewrap`), allow unprivileged user "
            "namespaces, or pass --sandbox off to grade without a sandbox")


class _State:
    def __init__(self) -> None:
        self.mode = "auto"
        self.broken: str | None = None  # why bwrap cannot run the worker here, once found out
        self.probed = self.guarded = self.noted = False
        self.lock = threading.Lock()


_state = _State()


def set_mode(mode: str) -> None:
    """auto: bwrap where it starts, else the fallback; required: bwrap or exit 2; off: never bwrap."""
    if mode not in MODES:
        raise ValueError(mode)
    _state.mode = mode


def mode() -> str:
    return _state.mode


def bwrap_path() -> str | None:
    """bwrap from ATTNPREP_BWRAP (a path; empty: none), else from PATH; Linux only."""
    if not sys.platform.startswith("linux"):
        return None
    chosen = os.environ.get("ATTNPREP_BWRAP")
    if chosen is not None:
        return chosen if chosen and os.access(chosen, os.X_OK) else None
    # shutil.which's search, without importing shutil (2 ms of a check's start, before its worker is spawned).
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        found = os.path.join(folder or os.curdir, "bwrap")
        if os.access(found, os.X_OK) and not os.path.isdir(found):
            return found
    return None


def unavailable_reason() -> str | None:
    """Why the next worker will not be sandboxed, or None if it will be tried in bwrap."""
    if _state.mode == "off":
        return "--sandbox off"
    if not sys.platform.startswith("linux"):
        return f"bubblewrap exists only on Linux, not on {sys.platform}"
    if _state.broken:
        return _state.broken
    if bwrap_path() is None:
        if os.environ.get("ATTNPREP_BWRAP") is not None:
            return f"ATTNPREP_BWRAP={os.environ['ATTNPREP_BWRAP']!r} is not an executable"
        return "bwrap (bubblewrap) is not installed"
    return None


def mark_broken(reason: str) -> None:
    """bwrap failed to start a worker: remember why, and never try it again in this process."""
    with _state.lock:
        if _state.broken is None:
            _state.broken = reason


def broken_reason() -> str | None:
    """Why bwrap failed to start a worker in this process (mark_broken), or None."""
    return _state.broken


def note_once() -> str | None:
    """The one-line notice that grading ran without a sandbox, the first time it applies; else None."""
    reason = unavailable_reason()
    with _state.lock:
        if reason is None or _state.noted:
            return None
        _state.noted = True
    return (f"grading without a sandbox ({reason}): your file runs as you, with your files in reach; "
            "see 'How grading is isolated' in the README")


def probe() -> str | None:
    """Start bwrap once with the worker's own layout (a few ms); why no sandbox is possible, or None."""
    reason = unavailable_reason()
    if reason is None and not _state.probed:
        layout = _layout()
        argv = _bwrap_argv(layout) + [layout.python, "-I", "-S", "-c", "pass"]
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, env=_env(True))
            if proc.returncode != 0:
                mark_broken(first_line(proc.stderr) or f"bwrap exited with code {proc.returncode}")
        except (OSError, subprocess.TimeoutExpired) as exc:
            mark_broken(f"bwrap could not be started: {exc}")
        _state.probed = True
        reason = unavailable_reason()
    return reason


def require(probe_bwrap: bool = True) -> None:
    """For --sandbox required: raise SandboxUnavailable (exit 2) unless bwrap can run the worker here.

    Without `probe_bwrap`, only what is known without starting bwrap (not Linux, not installed, already
    failed); the first worker's start then tells the rest (runner.Worker raises the same error)."""
    if _state.mode != "required":
        return
    reason = probe() if probe_bwrap else unavailable_reason()
    if reason is not None:
        raise SandboxUnavailable(f"--sandbox required, but no sandbox is possible here: {reason}")


def first_line(data: bytes) -> str:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


# -- the file-system layout ---------------------------------------------------------

# python: the base interpreter (never a venv's, whose path may name the project); prefixes: read-only, the
# interpreter's installation; packages: (host dir, name under SITE); hidden: directories covered by an empty
# tmpfs inside what is bound. No dataclasses in this module: it is imported before `check` starts its worker.
_Layout = namedtuple("_Layout", "python prefixes packages hidden")


_layout_cache: dict[str, _Layout] = {}


def _real(path: str) -> str:
    return os.path.realpath(path)


def _under(path: str, roots: tuple[str, ...] | list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _find_package(name: str) -> str | None:
    """Where a top-level package (a folder) or module (one file, `name.py`) is, from sys.path (cheaper than the
    import machinery, and the same answer for a package installed as files)."""
    for entry in sys.path:
        where = os.path.join(entry or ".", name)
        if os.path.isfile(os.path.join(where, "__init__.py")) or os.path.isfile(where + ".py"):
            return _real(where if os.path.isdir(where) else where + ".py")
    import importlib.util  # an unusual installation: ask the import system

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec and spec.submodule_search_locations:
        return _real(list(spec.submodule_search_locations)[0])
    return _real(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def _layout(framework: str = "numpy") -> _Layout:
    """What the sandbox binds and hides for a file of this framework, worked out once per process."""
    if framework in _layout_cache:
        return _layout_cache[framework]
    import site

    python = _real(getattr(sys, "_base_executable", None) or sys.executable)
    prefixes = sorted({_real(sys.base_prefix), _real(sys.base_exec_prefix)})
    packages = []
    for name in EXPOSED_FOR.get(framework, EXPOSED):
        where = _find_package(name)
        if where is None:
            continue
        packages.append((where, os.path.basename(where)))
        libs = os.path.join(os.path.dirname(where), f"{name}.libs")  # vendored shared libraries of the wheel
        if os.path.isdir(libs):
            packages.append((_real(libs), f"{name}.libs"))
    bound = ["/usr", *prefixes]
    # Every site-packages of the bound interpreter (attnprep may be installed there, graders and all), the
    # package's own data, the progress directory and HOME, wherever they fall inside what is bound.
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    hidden = {_real(p) for p in site.getsitepackages(prefixes)}
    for root in ("/usr/lib", "/usr/local/lib", *(os.path.join(p, "lib") for p in prefixes)):
        for sub in (f"{version}/site-packages", f"{version}/dist-packages", "python3/dist-packages",
                    "python3/site-packages"):
            hidden.add(_real(os.path.join(root, sub)))
    hidden.update(_real(p) for p in _private_dirs())
    hidden_dirs = tuple(sorted(h for h in hidden if _under(h, bound) and os.path.isdir(h)))
    _layout_cache[framework] = _Layout(python, tuple(prefixes), tuple(packages), hidden_dirs)
    return _layout_cache[framework]


def _private_dirs() -> list[str]:
    """HOME, the progress directory (ATTNPREP_HOME, else under HOME or XDG_DATA_HOME) and the package's data."""
    found = [os.path.expanduser("~")]
    for var in ("ATTNPREP_HOME", "XDG_DATA_HOME", "LOCALAPPDATA"):
        if os.environ.get(var):
            found.append(os.path.expanduser(os.environ[var]))
    here = os.path.dirname(os.path.abspath(__file__))
    found.append(here)  # the package itself
    for root in (os.path.join(here, "_data"), os.path.dirname(os.path.dirname(here))):  # wheel, checkout
        found += [os.path.join(root, part) for part in ("exercises", "grader", "solutions")]
    return found


def _bwrap_argv(layout: _Layout) -> list[str]:
    bwrap = bwrap_path() or "bwrap"
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--hostname", "localhost"]
    # Private writable places first, so that binds below may land inside them.
    argv += ["--size", str(TMPFS_BYTES), "--tmpfs", "/tmp", "--size", str(TMPFS_BYTES), "--tmpfs", "/home",
             "--dir", HOME]
    argv += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    for etc in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime"):
        argv += ["--ro-bind-try", etc, etc]
    for prefix in layout.prefixes:
        if not _under(prefix, ["/usr"]):
            argv += ["--ro-bind", prefix, prefix]
    for hidden in layout.hidden:
        argv += ["--size", "4096", "--tmpfs", hidden, "--remount-ro", hidden]
    for host, name in layout.packages:
        argv += ["--ro-bind", host, f"{SITE}/{name}"]
    argv += ["--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev",
             "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
             "--remount-ro", "/", "--chdir", HOME]
    return argv


def _env(sandboxed: bool, home: str = HOME) -> dict[str, str]:
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    if sandboxed:
        path = "/usr/local/bin:/usr/bin:/bin"
    else:  # nothing on PATH that names the project (a venv's bin, a checkout)
        path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                               if p and "attnprep" not in p.lower())
    env.update(PATH=path, HOME=home, TMPDIR="/tmp" if sandboxed else home, **ONE_BLAS_THREAD)
    return env


def _guard_parent() -> None:
    """Without the sandbox, make attnprep itself non-dumpable (Linux).

    Processes of the same user, the candidate among them, can then neither read its /proc/PID/environ
    (where ATTNPREP_HOME is), fd/ (its stdout) or mem, nor ptrace it. Root is exempt: a candidate run by
    root still can (a documented limit). Set once; a later exec of attnprep starts dumpable again.
    """
    if _state.guarded or not sys.platform.startswith("linux"):
        return
    _state.guarded = True
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


# -- one worker's launch ------------------------------------------------------------

class Launch:
    """How to spawn one worker: its command line, environment and working directory."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, sandboxed: bool,
                 scratch: str | None = None) -> None:
        self.argv, self.env, self.cwd, self.sandboxed = argv, env, cwd, sandboxed
        self.scratch = scratch  # a temporary directory of the fallback, removed by cleanup()

    def cleanup(self) -> None:
        if self.scratch:
            import shutil

            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def launch(fd_in: int, fd_out: int, cpu_seconds: int, warm: bool = False, framework: str = "numpy",
           memory_bytes: int = MEMORY_LIMIT, zygote: bool = False) -> Launch:
    """The command that starts a worker reading fd_in and writing fd_out, sandboxed where possible.

    `framework` (frameworks.py): what the worker imports before it is ready, and what the sandbox exposes.
    `zygote`: a process that forks the workers instead (worker.zygote; fd_in is then its control socket)."""
    layout = _layout(framework)
    sandboxed = unavailable_reason() is None
    tail = [str(fd_in), str(fd_out), str(memory_bytes), str(cpu_seconds),
            str(PROCESS_LIMIT if sandboxed else 0), "-1" if zygote else "1" if warm else "0"]
    extra = _MEASURE_MALLOC if warm else {}
    if sandboxed:
        return Launch(_bwrap_argv(layout) + [layout.python, "-I", "-S", "-c", BOOT, *tail, SITE, framework],
                      {**_env(True), **extra}, "/", True)
    import tempfile

    _guard_parent()
    scratch = tempfile.mkdtemp()  # a neutral name: tmpXXXXXXXX
    site = os.path.join(scratch, "site-packages")
    os.mkdir(site)
    for host, name in layout.packages:
        try:
            os.symlink(host, os.path.join(site, name))
        except OSError:  # no symlinks (Windows without the privilege): the real path, name and all
            site = os.path.dirname(host)
            break
    python = layout.python if os.name == "posix" else sys.executable
    return Launch([python, "-I", "-S", "-c", BOOT, *tail, site, framework], {**_env(False, scratch), **extra},
                  scratch, False, scratch)


# -- cgroups: caps on the whole worker tree where a cgroup can be had ---------------------

CGROUP_ROOT = Path("/sys/fs/cgroup")
_cgroup_state: dict[str, object] = {"reason": None, "count": 0}


class Cgroup:
    """A child cgroup of our own: memory and process caps on everything the worker starts.

    cgroup v2: one directory, where our cgroup delegates the memory and pids controllers to children (a systemd
    unit with Delegate=yes, a container given its own cgroup) or as root. cgroup v1 (separate memory and pids
    hierarchies, as on older hosts and many containers): a directory in each, which root can make. The worker's
    processes are moved in by the parent when the worker is ready, before the candidate loads.
    """

    def __init__(self, path: Path, more: tuple[Path, ...] = (), version: int = 2) -> None:
        self.path, self.version = path, version
        self.paths = (path, *more)

    @classmethod
    def create(cls, memory_bytes: int = MEMORY_LIMIT, processes: int = PROCESS_LIMIT,
               root: Path = CGROUP_ROOT) -> Cgroup | None:
        """A fresh capped cgroup, or None (the reason is kept for cgroup_reason())."""
        if _cgroup_state["reason"] is not None:
            return None
        _cgroup_state["count"] = int(_cgroup_state["count"]) + 1
        # A neutral name: the candidate may read /proc/self/cgroup.
        name = f"job-{os.getpid()}-{_cgroup_state['count']}"
        try:
            base = _own_cgroup(root)
            if base is not None:
                group, reason = cls._create_v2(base / name, memory_bytes, processes)
            else:
                bases = _own_cgroups_v1(root)
                group, reason = (cls._create_v1(bases, name, memory_bytes, processes) if bases else
                                 (None, f"no cgroup v2 hierarchy at {root}, nor v1 memory and pids hierarchies"))
        except OSError as exc:
            group, reason = None, f"cannot create a cgroup: {exc.strerror or exc}"
        if group is None:
            _cgroup_state["reason"] = reason
        return group

    @classmethod
    def _create_v2(cls, child: Path, memory_bytes: int, processes: int) -> tuple[Cgroup | None, str | None]:
        child.mkdir()
        group = cls(child)
        if not ((child / "memory.max").exists() and (child / "pids.max").exists()):
            try:
                (child.parent / "cgroup.subtree_control").write_text("+memory +pids")
            except OSError:
                pass
        if (child / "memory.max").exists() and (child / "pids.max").exists():
            (child / "memory.max").write_text(str(memory_bytes))
            (child / "pids.max").write_text(str(processes))
            for optional, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                try:
                    (child / optional).write_text(value)
                except OSError:
                    pass
            return group, None
        group.remove()
        return None, f"the memory and pids controllers are not delegated to {child.parent}"

    @classmethod
    def _create_v1(cls, bases: dict[str, Path], name: str, memory_bytes: int,
                   processes: int) -> tuple[Cgroup | None, str | None]:
        memory, pids = bases["memory"] / name, bases["pids"] / name
        memory.mkdir()
        group = cls(memory, (pids,), version=1)
        try:
            pids.mkdir()
            (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
            (pids / "pids.max").write_text(str(processes))
        except OSError as exc:
            group.remove()
            return None, f"cannot cap a cgroup v1 of our own: {exc.strerror or exc}"
        try:  # memory and swap together: no way around the cap through swap
            (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        except OSError:
            pass
        return group, None

    def add(self, pid: int) -> bool:
        done = True
        for path in self.paths:
            try:
                (path / "cgroup.procs").write_text(str(pid))
            except OSError:
                done = False
        return done

    def peak(self) -> int | None:
        """memory.peak: the most the tree has used since it joined (cgroup v2, Linux 5.19+). None on v1, whose
        max_usage_in_bytes also counts the page cache the worker's first reads bring in (torch's libraries)."""
        if self.version != 2:
            return None
        try:
            return int((self.path / "memory.peak").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.paths:
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL everything in the cgroup, setsid escapees included (cgroup.kill, Linux 5.14+; else one by one,
        and the pids cap stops the tree from growing faster than that)."""
        import signal

        if self.version == 2:
            try:
                (self.path / "cgroup.kill").write_text("1")
                return
            except OSError:
                pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def remove(self) -> None:
        import time

        for path in self.paths:
            for _ in range(200):  # a cgroup can go once its last process is gone
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    self.kill()
                    time.sleep(0.005)


def _own_cgroup(root: Path) -> Path | None:
    if not (root / "cgroup.controllers").exists():
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return root / line[3:].lstrip("/")
    return None


def _own_cgroups_v1(root: Path) -> dict[str, Path] | None:
    """Our cgroup in the v1 memory and pids hierarchies (mounted at ROOT/memory and ROOT/pids), or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    found: dict[str, Path] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(","):
            if controller in ("memory", "pids") and (root / controller / "cgroup.procs").exists():
                found[controller] = root / controller / parts[2].lstrip("/")
    return found if len(found) == 2 else None


def cgroup_reason() -> str | None:
    """Why workers get no cgroup caps here (None until a cgroup was tried, or when they do)."""
    return _cgroup_state["reason"]  # type: ignore[return-value]
