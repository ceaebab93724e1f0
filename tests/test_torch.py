"""PyTorch solutions: stubs, the worker's tensor adapter, limits, the sandbox, and the missing-torch error.

Everything that runs a torch file needs torch installed (`pip install 'attnprep[torch]'`) and skips without it;
the framework detection, the stubs and the missing-torch error are tested either way.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from attnprep import catalogue, frameworks
from attnprep.grading import Candidate, rng_spec
from attnprep.runner import Worker
from attnprep.stubs import render_stub

TENSOR_SLUGS = [s for s in catalogue.slugs() if frameworks.has_tensors(s)]


def attnprep(home: Path, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "ATTNPREP_HOME": str(home)}
    return subprocess.run(["attnprep", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def needs_torch():
    return pytest.importorskip("torch")


# -- which framework a file is in ----------------------------------------------------------------------------

@pytest.mark.parametrize("source, expected", [
    ("# attnprep: softmax torch\nimport numpy as np\n", "torch"),
    ("# attnprep: softmax\nimport torch\n", "torch"),
    ("import torch.nn.functional as F\n", "torch"),
    ("from torch import nn\n", "torch"),
    ("def f(x):\n    import torch\n    return x\n", "torch"),
    ("# attnprep: softmax\nimport numpy as np\n", "numpy"),
    ("import torchvision_like_name_is_not_torch\n", "numpy"),
    ("x = 'import torch'\n", "numpy"),
    ("# attnprep: softmax numpy\nimport torch\n", "numpy"),
    # torch kept optional in a NumPy file: only an unguarded import makes a PyTorch file
    ("import numpy as np\ntry:\n    import torch  # my own tests\nexcept ImportError:\n    torch = None\n", "numpy"),
    ("try:\n    from torch import nn\nexcept Exception:\n    nn = None\n", "numpy"),
    ("try:\n    import torch\nexcept ImportError:\n    pass\nimport torch.nn.functional as F\n", "torch"),
    ("def f(:\nimport torch\n", "torch"),
])
def test_detect(source, expected):
    assert frameworks.detect(source) == expected


def test_first_line_with_framework_still_names_the_exercise(tmp_path):
    from attnprep import workspace

    path = tmp_path / "mine.py"
    assert workspace.infer_exercise(path, "# attnprep: mha torch\n", None).slug == "mha"


# -- stubs -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", TENSOR_SLUGS)
def test_torch_stub_of_every_tensor_exercise(slug):
    ex = catalogue.get(slug)
    stub = render_stub(ex, framework="torch")
    assert stub.splitlines()[0] == f"# attnprep: {slug} torch"
    assert "import torch" in stub and "import numpy" not in stub and "np." not in stub
    compile(stub, "stub.py", "exec")
    import ast

    defined = {n.name for n in ast.parse(stub).body if isinstance(n, ast.FunctionDef)}
    numpy_defined = {n.name for n in ast.parse(render_stub(ex)).body if isinstance(n, ast.FunctionDef)}
    assert defined == numpy_defined
    assert ex.torch_solution_path.is_file()


def test_numpy_stub_is_unchanged_by_the_torch_view():
    stub = render_stub(catalogue.get("softmax"))
    assert stub.splitlines()[0] == "# attnprep: softmax" and "import numpy as np" in stub and "torch" not in stub


def test_start_torch_through_the_cli(tmp_path, home):
    result = attnprep(home, "start", "causal", "--torch", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "causal.py").read_text()
    assert text.startswith("# attnprep: causal torch\n") and "import torch" in text
    # reset keeps the framework of the file it replaces
    assert attnprep(home, "reset", "causal").returncode == 0
    assert (tmp_path / "causal.py").read_text().startswith("# attnprep: causal torch\n")


def test_start_torch_refused_where_there_are_no_tensors(tmp_path, home):
    result = attnprep(home, "start", "kvcache", "--torch", "--dir", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.startswith("error:") and "hint:" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "kvcache.py").exists()


def test_show_and_solution_torch(home):
    shown = attnprep(home, "show", "sampling", "--torch")
    assert shown.returncode == 0 and "torch.Generator" in shown.stdout and "--torch" in shown.stdout
    solution = attnprep(home, "solution", "sampling", "--torch", "--yes")
    assert solution.returncode == 0 and "torch.multinomial" in solution.stdout
    plain = attnprep(home, "solution", "sampling", "--yes")
    assert plain.returncode == 0 and "torch" not in plain.stdout


# -- torch missing ---------------------------------------------------------------------------------------------

def test_missing_torch_is_one_error_line_and_exit_1(tmp_path, home):
    """The parent asks the import system for torch; None in sys.modules hides it, as if not installed."""
    path = tmp_path / "softmax.py"
    path.write_text("import torch\n\ndef softmax(z, axis=-1):\n    return torch.softmax(z, dim=axis)\n")
    code = ("import sys; sys.modules['torch'] = None\n"
            "from attnprep.cli import main\n"
            f"sys.argv = ['attnprep', 'check', {str(path)!r}]\n"
            "main()\n")
    env = {**os.environ, "ATTNPREP_HOME": str(home)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("error:") and "pip install 'attnprep[torch]'" in lines[0]
    assert lines[1].startswith("hint:") and len(lines) == 2
    assert result.stdout == ""


def test_missing_torch_in_batch_grading_is_an_error_report(monkeypatch):
    from attnprep.engine import grade

    monkeypatch.setattr(frameworks, "installed", lambda framework: framework == "numpy")
    report = grade(catalogue.get("softmax"), "import torch\n", "softmax.py")
    assert report.status == "error" and "pip install 'attnprep[torch]'" in report.message


# -- the worker's adapter --------------------------------------------------------------------------------------

PROBE = textwrap.dedent('''
    import torch

    SEEN = []

    def kinds(*args, **kwargs):
        def kind(v):
            if isinstance(v, torch.Tensor):
                return f"tensor:{str(v.dtype).replace('torch.', '')}:{tuple(v.shape)}"
            if isinstance(v, torch.Generator):
                return "generator"
            if isinstance(v, dict):
                return {k: kind(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [kind(x) for x in v]
            return type(v).__name__
        return [kind(a) for a in args], {k: kind(v) for k, v in kwargs.items()}

    def draws(rng=None):
        SEEN.append(id(rng))
        return torch.randint(0, 1000, (3,), generator=rng)

    def same_generator(rng):
        SEEN.append(id(rng))
        return len(set(SEEN[-2:]))

    def returns(kind):
        x = torch.arange(12, dtype=torch.float64).reshape(3, 4)
        if kind == "view":
            return x.T  # non-contiguous
        if kind == "item":
            return x.sum().item()
        if kind == "zero-d":
            return x.sum()
        if kind == "index":
            return torch.topk(x, 2, dim=-1).indices
        if kind == "tuple":
            return x.T, (x[0], {"w": x[1]})
        if kind == "grad":
            return x.requires_grad_(True) * 2
        if kind == "bfloat16":
            return x.to(torch.bfloat16)
        if kind == "float32":
            return x.float()
        if kind == "topk":
            return torch.topk(x, 2, dim=-1)
        if kind == "size":
            return x.shape

    def scale_in_place(q):
        q /= 2.0
        return q
''')


@pytest.fixture(scope="module")
def torch_worker():
    needs_torch()
    worker = Worker(cpu_seconds=60, framework="torch")
    worker.wait_ready(time.monotonic() + 60)
    reply = worker.request({"op": "load", "source": PROBE, "filename": "<probe>", "functions": []}, [],
                           time.monotonic() + 30)
    assert reply.header["kind"] == "loaded"
    yield Candidate(lambda header, blobs: worker.request(header, blobs, time.monotonic() + 30))
    worker.kill()


def test_arguments_become_tensors(torch_worker):
    reversed_view = np.arange(6.0)[::-1]  # a negative stride, which torch.from_numpy refuses
    args, kwargs = torch_worker.kinds(
        np.zeros((2, 3)), np.zeros(3, dtype=np.float32), np.arange(4, dtype=np.int32), np.array([True, False]),
        reversed_view, {"W": np.ones((2, 2)), "b": np.zeros(2)}, [np.ones(2), 3], 2.5, 7, None,
        rng=rng_spec(3), mask=np.eye(2, dtype=bool))
    assert args == ["tensor:float64:(2, 3)", "tensor:float32:(3,)", "tensor:int64:(4,)", "tensor:bool:(2,)",
                    "tensor:float64:(6,)", {"W": "tensor:float64:(2, 2)", "b": "tensor:float64:(2,)"},
                    ["tensor:float64:(2,)", "int"], "float", "int", "NoneType"]
    assert kwargs == {"rng": "generator", "mask": "tensor:bool:(2, 2)"}


def test_rng_is_a_seeded_generator_the_same_across_repeats(torch_worker):
    a = torch_worker.call("draws", rng=rng_spec(5))
    b = torch_worker.call("draws", rng=rng_spec(5))
    assert np.array_equal(a, b)  # the same seed, a fresh generator: the same draws
    repeated = torch_worker.repeat(3, "draws", rng=rng_spec(5))
    assert np.array_equal(repeated[0], a) and not np.array_equal(repeated[1], a)  # one generator, advancing
    assert torch_worker.repeat(2, "same_generator", rng_spec(1))[1] == 1  # the very same object
    assert torch_worker.call("draws", rng=None).shape == (3,)  # None stays None (torch's global generator)


@pytest.mark.parametrize("kind, check", [
    ("view", lambda v: isinstance(v, np.ndarray) and v.shape == (4, 3) and v.flags.c_contiguous
     and v[0, 1] == 4.0),
    ("item", lambda v: type(v) is float and v == 66.0),
    ("zero-d", lambda v: isinstance(v, np.floating) and float(v) == 66.0),
    ("index", lambda v: v.dtype == np.int64 and v.tolist() == [[3, 2], [3, 2], [3, 2]]),
    ("tuple", lambda v: isinstance(v, tuple) and v[0].shape == (4, 3) and isinstance(v[1][1]["w"], np.ndarray)),
    ("grad", lambda v: isinstance(v, np.ndarray) and v[2, 3] == 22.0),
    ("bfloat16", lambda v: v.dtype == np.float32 and v[1, 1] == 5.0),
    ("float32", lambda v: v.dtype == np.float32),
    ("topk", lambda v: isinstance(v, tuple) and v[0].tolist()[0] == [3.0, 2.0] and v[1].dtype == np.int64),
    ("size", lambda v: v == (3, 4)),
])
def test_results_come_back_as_numpy(torch_worker, kind, check):
    assert check(torch_worker.call("returns", kind))


def test_in_place_change_of_a_tensor_argument_is_seen(torch_worker):
    q = np.ones(4)
    value, args_after, _ = torch_worker.call_tracking_args("scale_in_place", q)
    assert np.array_equal(args_after[0], np.full(4, 0.5)) and np.array_equal(q, np.ones(4))


def test_worker_limits_per_framework():
    assert frameworks.limits("torch").memory_bytes >= 4 * 1024**3 > frameworks.limits("numpy").memory_bytes


# -- through the CLI -------------------------------------------------------------------------------------------

def _write(tmp_path: Path, slug: str, source: str) -> Path:
    path = tmp_path / f"{slug}.py"
    path.write_text(textwrap.dedent(source))
    return path


CAUSAL_RIGHT = '''
    import math

    import torch


    def causal_mask(T):
        return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


    def causal_attention(q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        weights = torch.softmax(scores.masked_fill(causal_mask(q.shape[0]), float("-inf")), dim=-1)
        return weights @ v, weights
'''


def test_check_correct_and_wrong_torch_files(tmp_path, home):
    needs_torch()
    right = _write(tmp_path, "causal", CAUSAL_RIGHT)
    result = attnprep(home, "check", str(right), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "pass" and "Traceback" not in result.stderr
    wrong_dir = tmp_path / "wrong"
    wrong_dir.mkdir()
    wrong = _write(wrong_dir, "causal", CAUSAL_RIGHT.replace("diagonal=1", "diagonal=0"))
    result = attnprep(home, "check", str(wrong), "--json")
    assert result.returncode == 1
    failed = {i["id"] for i in json.loads(result.stdout)["invariants"] if i["status"] == "fail"}
    assert "mask" in failed


def test_float32_and_bfloat16_torch_results_are_judged_and_told(tmp_path, home):
    needs_torch()
    f32 = _write(tmp_path, "causal", CAUSAL_RIGHT.replace(
        "        scores = q @ k.transpose",
        "        q, k, v = q.float(), k.float(), v.float()\n        scores = q @ k.transpose"))
    result = attnprep(home, "check", str(f32), "--json")
    report = json.loads(result.stdout)
    assert report["precision"] == "float32" and report["status"] == "pass", result.stdout
    bf16_dir = tmp_path / "bf16"
    bf16_dir.mkdir()
    bf16 = _write(bf16_dir, "causal", CAUSAL_RIGHT.replace(
        "        scores = q @ k.transpose",
        "        q, k, v = q.bfloat16(), k.bfloat16(), v.bfloat16()\n        scores = q @ k.transpose"))
    result = attnprep(home, "check", str(bf16))
    assert result.returncode == 1 and "bfloat16 results cannot reach" in result.stdout, result.stdout


def test_in_place_division_fails_input_unchanged(tmp_path, home):
    needs_torch()
    path = _write(tmp_path, "causal", CAUSAL_RIGHT.replace(
        "        scores = q @ k.transpose", "        q /= math.sqrt(q.shape[-1])\n        scores = q @ k.transpose")
        .replace(" / math.sqrt(q.shape[-1])\n        weights", "\n        weights"))
    result = attnprep(home, "check", str(path), "--json")
    assert result.returncode == 1
    by_id = {i["id"]: i for i in json.loads(result.stdout)["invariants"]}
    message = by_id["input-unchanged"]["message"]
    assert by_id["input-unchanged"]["status"] == "fail" and message.startswith("q ") and "modified in place" in message
    assert by_id["scale"]["status"] == "pass"


def test_the_parent_never_imports_torch(tmp_path, home):
    needs_torch()
    path = _write(tmp_path, "causal", CAUSAL_RIGHT)
    # main() ends with os._exit (no interpreter teardown): what the parent imported is written just before it.
    code = ("import os, sys\n"
            "from attnprep.cli import main\n"
            f"sys.argv = ['attnprep', 'check', {str(path)!r}, '--json']\n"
            "exit_now = os._exit\n"
            "def record(code):\n"
            "    sys.stderr.write(f'\\nTORCH={\"torch\" in sys.modules} EXIT={code}\\n')\n"
            "    sys.stderr.flush()\n"
            "    exit_now(code)\n"
            "os._exit = record\n"
            "main()\n")
    env = {**os.environ, "ATTNPREP_HOME": str(home)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "TORCH=False EXIT=0" in result.stderr, result.stderr


def test_torch_under_sandbox_required(tmp_path, home):
    needs_torch()
    from attnprep import sandbox

    if sandbox.probe() is not None:
        pytest.skip(f"no sandbox here: {sandbox.probe()}")
    path = _write(tmp_path, "causal", CAUSAL_RIGHT)
    result = attnprep(home, "check", str(path), "--sandbox", "required", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    # Inside the sandbox torch is there, and neither attnprep nor the packages torch does not need at import.
    (tmp_path / "p").mkdir()
    probe = _write(tmp_path / "p", "causal", CAUSAL_RIGHT.replace("    import torch\n", (
        "    import torch\n    import importlib.util\n"
        "    assert importlib.util.find_spec('attnprep') is None\n"
        "    assert importlib.util.find_spec('sympy') is None\n"), 1))
    result = attnprep(home, "check", str(probe), "--sandbox", "required", "--json")
    assert result.returncode == 0, result.stdout + result.stderr


def test_torch_import_does_not_eat_the_timeout(tmp_path, home):
    """torch's import (2-4 s) happens before the candidate's clock starts: a 5 s --timeout still grades it all."""
    needs_torch()
    path = _write(tmp_path, "softmax", '''
        import torch


        def softmax(z, axis=-1):
            e = torch.exp(z - z.amax(dim=axis, keepdim=True))
            return e / e.sum(dim=axis, keepdim=True)
    ''')
    result = attnprep(home, "check", str(path), "--timeout", "5", "--json")
    report = json.loads(result.stdout)
    assert report["status"] == "pass", report


def test_grade_a_folder_with_numpy_and_torch_files(tmp_path, home):
    """`grade` keeps NumPy workers booted ahead; a PyTorch file gets a PyTorch worker in its place."""
    needs_torch()
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.py").write_text(textwrap.dedent(CAUSAL_RIGHT))
    (folder / "bob.py").write_text(catalogue.get("causal").solution_path.read_text())
    (folder / "carol.py").write_text(textwrap.dedent(CAUSAL_RIGHT).replace("diagonal=1", "diagonal=0"))
    out = tmp_path / "out.json"
    result = attnprep(home, "grade", str(folder), "-e", "causal", "--sandbox", "auto", "--json", str(out),
                      timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    statuses = {Path(r["file"]).name: r["status"] for r in json.loads(out.read_text())["results"]}
    assert statuses == {"alice.py": "pass", "bob.py": "pass", "carol.py": "fail"}


def test_torch_the_worker_cannot_import_is_a_load_error(monkeypatch):
    """torch installed for attnprep but not reachable by the worker: the report says so, no invariant runs."""
    needs_torch()
    from attnprep import sandbox
    from attnprep.engine import grade

    monkeypatch.setitem(sandbox.EXPOSED_FOR, "torch", ("numpy",))
    monkeypatch.setattr(sandbox, "_layout_cache", {})
    report = grade(catalogue.get("softmax"), "import torch\n\ndef softmax(z, axis=-1):\n    return z\n", "softmax.py")
    assert report.status == "error" and "PyTorch could not be imported" in report.message
    assert not report.invariants


def test_a_torch_file_raising_value_error_is_not_named_for_an_assert():
    # A PyTorch file's refusals count as the mistake's only when they are not the reference's own: a file that
    # raises ValueError where it should was once named `assert-divisible` whenever it failed anything else.
    needs_torch()
    from attnprep import catalogue
    from attnprep.engine import grade

    source = (Path(__file__).parent / "corpus" / "mha" / "torch_wrong_additive_minus_1e4.py").read_text()
    named = {m["id"] for m in grade(catalogue.get("mha"), source, "wrong.py").mistakes}
    assert "assert-divisible" not in named
    asserting = source.replace('if D % n_heads != 0:\n        raise ValueError("n_heads must divide d_model")',
                               "assert D % n_heads == 0")
    assert asserting != source
    named = {m["id"] for m in grade(catalogue.get("mha"), asserting, "wrong.py").mistakes}
    assert "assert-divisible" in named
