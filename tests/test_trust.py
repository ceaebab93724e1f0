"""Trust by construction: nothing unjudged is shown as passed, and a change in place in any call is caught."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from attnprep import catalogue
from attnprep.engine import grade, grader_module

SLUGS = [ex.slug for ex in catalogue.exercises()]


@pytest.fixture
def cli_env(tmp_path):
    return {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}


def _raising_file(slug: str) -> str:
    functions = grader_module(catalogue.get(slug)).FUNCTIONS
    body = "\n\n".join(f"def {fn}(*args, **kwargs):\n    raise RuntimeError('broken')" for fn in functions)
    return f"# attnprep: {slug}\n{body}\n"


@pytest.mark.parametrize("slug", SLUGS)
def test_a_file_whose_every_function_raises_passes_nothing(slug):
    report = grade(catalogue.get(slug), _raising_file(slug), f"{slug}.py")
    passed = [r.id for r in report.invariants if r.passed]
    assert report.status != "pass"
    assert passed == [], f"{slug}: shown as passed without any call returning: {passed}"


SOFTMAX_RAISES_ON_2D = """
import numpy as np

def softmax(z, axis=-1):
    if np.ndim(z) > 1:
        raise ValueError("only 1-D")
    e = np.exp(z - z.max())
    return e / e.sum()
"""


def test_not_judged_is_its_own_status_in_text_and_json(tmp_path, cli_env):
    path = tmp_path / "softmax.py"
    path.write_text(SOFTMAX_RAISES_ON_2D)
    run = subprocess.run([sys.executable, "-m", "attnprep", "check", str(path), "--json"],
                         capture_output=True, text=True, env=cli_env, timeout=60)
    data = json.loads(run.stdout)
    statuses = {i["id"]: i for i in data["invariants"]}
    judged_not = [i for i in data["invariants"] if i["status"] == "not-judged"]
    assert judged_not, statuses
    assert all(i["passed"] is False and i["message"] for i in judged_not)
    text = subprocess.run([sys.executable, "-m", "attnprep", "check", str(path)],
                          capture_output=True, text=True, env={**cli_env, "COLUMNS": "200"}, timeout=60).stdout
    assert "not judged" in text
    for inv in judged_not:
        line = next(ln for ln in text.splitlines() if f" {inv['id']} " in f" {ln} ")
        assert "✓" not in line and "·" in line


IN_PLACE_ONLY_FOR_1D = """
import numpy as np

def softmax(z, axis=-1):
    if z.ndim == 1:
        z -= z.max()          # in place, and only on this code path
        e = np.exp(z)
        return e / e.sum()
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""


def test_a_change_in_place_in_any_call_fails_input_unchanged():
    report = grade(catalogue.get("softmax"), IN_PLACE_ONLY_FOR_1D, "softmax.py")
    unchanged = next(r for r in report.invariants if r.id == "input-unchanged")
    assert unchanged.status == "fail"
    assert "softmax(z (" in unchanged.message and "modified in place" in unchanged.message
    assert "during the `" in unchanged.message


NOT_IMPLEMENTED_FOR_5D = """
import numpy as np

def attention(q, k, v, mask=None):
    if q.ndim > 4:
        raise NotImplementedError("up to 4-D")
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v
"""


def test_not_implemented_for_one_input_is_a_failure_with_that_input_not_a_stub():
    # A stub reads "not implemented yet"; a function that has returned results and refuses one input the
    # exercise includes fails there like any other call, and the evidence names the input.
    report = grade(catalogue.get("attention"), NOT_IMPLEMENTED_FOR_5D, "attention.py")
    batch = next(r for r in report.invariants if r.id == "batch-dims")
    assert batch.status == "fail"
    assert "not implemented yet" not in batch.message
    assert "NotImplementedError: up to 4-D" in batch.message and "(2, 1, 2, 3" in batch.message
    assert report.status == "fail"


RAISES_FOR_ONE_SHAPE = """
import numpy as np

def softmax(z, axis=-1):
    if z.ndim == 3:
        raise ValueError("no 3-D")
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""


def test_an_exception_no_check_put_into_words_names_the_call_that_raised_it():
    report = grade(catalogue.get("softmax"), RAISES_FOR_ONE_SHAPE, "softmax.py")
    raised = [r for r in report.invariants if r.message and "ValueError: no 3-D" in r.message]
    assert raised, [r.message for r in report.invariants]
    assert all("softmax(z (" in r.message for r in raised)


def test_a_key_added_to_a_dict_argument_is_a_change():
    from attnprep.grading import changed_in_place

    before = {"w": np.ones(3)}
    assert "added" in changed_in_place(before, {"w": np.ones(3), "eps": 1e-6}, "params")
    assert changed_in_place(before, {"w": np.ones(3)}, "params") is None
    assert "removed" in changed_in_place(before, {}, "params")
    assert "went from" in changed_in_place(before, {"w": np.zeros(3)}, "params")


def test_summary_counts_groups_apart():
    from attnprep.report import InvariantResult, Report

    rep = Report("softmax", "f.py", "fail", invariants=[
        InvariantResult("a", "", "pass"), InvariantResult("b", "", "fail"), InvariantResult("c", "", "not-judged"),
        InvariantResult("d", "", "error")])
    assert rep.summary() == "1 passed, 2 failed, 1 not judged"
    assert rep.failed_ids == ["b", "d"]
    assert Report.status_of(rep.invariants) == "fail"


def test_workers_started_from_many_threads_at_once_each_get_their_sources_once(monkeypatch):
    """A cold start is slow to read the worker's sources: threads that start their first workers together must
    not each add them to the shared bundle (a worker sent them twice took the extra copy for a frame and hung)."""
    import threading
    import time
    from pathlib import Path

    from attnprep import runner

    monkeypatch.setattr(runner, "_bundle", [])
    read = Path.read_bytes

    def slow_read(self):
        time.sleep(0.05)  # widen the window a cold disk opens
        return read(self)

    monkeypatch.setattr(Path, "read_bytes", slow_read)
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(len(runner._sources()))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [2] * 8


CHANGES_ARGUMENTS_WHEN_ASKED = """
import numpy as np

def touch(a, items, params, how="none"):
    if how == "entry":
        a[0, 0] += 1e-12
    elif how == "view":
        a.shape = (a.size,)
    elif how == "list":
        items.append(0)
    elif how == "key":
        params.setdefault("eps", 1e-6)
    return float(a.sum())
"""


@pytest.mark.parametrize("how", ["none", "entry", "view", "list", "key"])
def test_the_worker_sends_arguments_back_unless_they_came_back_as_they_went(how):
    # The worker leaves out arguments whose encoding is the request's, blob for blob; any change at all (one
    # entry by one ulp, a shape, an item, a key) sends them back for the judge to compare.
    import time

    from attnprep import wire
    from attnprep.grading import CURRENT_TALLY, Candidate, Tally
    from attnprep.runner import Worker

    worker = Worker(cpu_seconds=60)
    try:
        worker.wait_ready(time.monotonic() + 60)
        sent = []

        def send(header, blobs):
            reply = worker.request(header, blobs, time.monotonic() + 30)
            sent.append(reply.args is wire.ARGS_UNCHANGED)
            return reply

        loaded = send({"op": "load", "source": CHANGES_ARGUMENTS_WHEN_ASKED, "filename": "touch.py",
                       "functions": ["touch"]}, [])
        assert loaded.header["kind"] == "loaded"
        a, items, params = np.arange(6.0).reshape(2, 3), [np.ones(2)], {"w": np.ones(2)}
        cand = Candidate(send, {"touch": ["a", "items", "params", "how"]})
        tally = Tally()
        token = CURRENT_TALLY.set(tally)
        try:
            reply = cand.reply("touch", a, items, params, how=how)
        finally:
            CURRENT_TALLY.reset(token)
    finally:
        worker.kill()
    assert sent[-1] is (how == "none")
    assert reply.args is not wire.ARGS_UNCHANGED  # the checks always get the arguments as the call left them
    assert len(reply.args) == 3 and reply.kwargs == {"how": how}
    assert (reply.args[0] is a) is (how == "none")
    assert (tally.changed == []) is (how == "none")

