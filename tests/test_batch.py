"""`attnprep grade`: a class's submissions, each isolated; one bad file never stops the others."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from attnprep import catalogue

HOSTILE = Path(__file__).parent / "hostile"


def test_grade_a_folder(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(catalogue.get("softmax").solution_path.read_text())
    (folder / "ben.py").write_text((Path(__file__).parent / "corpus/softmax/wrong_global_max.py").read_text())
    (folder / "cy.py").write_text((HOSTILE / "loop_in_one_invariant.py").read_text())
    (folder / "dee.py").write_text((HOSTILE / "segfault.py").read_text())
    (folder / "notes.txt").write_text("not a submission")
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "attnprep", "grade", str(folder), "--exercise", "softmax",
                           "--jobs", "2", "--timeout", "4", "--json", str(tmp_path / "out.json"),
                           "--csv", str(tmp_path / "out.csv")], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr  # not every submission passed
    assert b"ana.py" in proc.stdout and b"Traceback" not in proc.stderr
    results = {Path(r["file"]).name: r for r in json.loads((tmp_path / "out.json").read_text())["results"]}
    assert sorted(results) == ["ana.py", "ben.py", "cy.py", "dee.py"]
    assert results["ana.py"]["status"] == "pass"
    assert results["ben.py"]["status"] == "fail"
    assert {i["id"]: i["status"] for i in results["cy.py"]["invariants"]}["axis"] == "timeout"
    assert results["dee.py"]["status"] in ("fail", "timeout")
    rows = list(csv.DictReader((tmp_path / "out.csv").open()))
    assert [Path(r["file"]).name for r in rows] == ["ana.py", "ben.py", "cy.py", "dee.py"]
    assert rows[1]["failed_invariants"] == "stable"
    assert not (tmp_path / "home" / "progress.json").exists()  # grading others records no progress


def test_grade_usage_errors(tmp_path):
    env = {**os.environ, "ATTNPREP_HOME": str(tmp_path)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "attnprep", "grade", *a], capture_output=True, env=env)  # noqa: E731
    assert run(str(tmp_path / "nope"), "-e", "softmax").returncode == 2
    assert run(str(tmp_path), "-e", "softmax").returncode == 2  # no .py files
    assert run(str(tmp_path), "-e", "sofmax").returncode == 2


# -- shards, merge, the warm pool, messages for teachers --------------------------------------------

import random  # noqa: E402
import re  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402

import pytest  # noqa: E402

from attnprep import batch  # noqa: E402
from attnprep.report import InvariantResult, Report  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"


def grade_cli(*args, home):
    env = {**os.environ, "ATTNPREP_HOME": str(home), "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "attnprep", "grade", *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """A class of 12 softmax submissions: correct, wrong, a syntax error, one that raises everywhere."""
    folder = tmp_path_factory.mktemp("class")
    from corpus import cases

    mine = [c for c in cases() if c.slug == "softmax" and not c.path.name.startswith("torch_")]  # torch: optional
    sources = [c.path for c in ([c for c in mine if c.passes][:4] + [c for c in mine if c.diagnosis][:4]
                                + [c for c in mine if not c.passes and not c.diagnosis][:2])]
    for i, src in enumerate(sources):
        (folder / f"student{i:02d}.py").write_text(src.read_text())
    (folder / "syntax.py").write_text("# attnprep: softmax\ndef softmax(z, axis=-1)\n    return z\n")
    (folder / "raiser.py").write_text("# attnprep: softmax\ndef softmax(z, axis=-1):\n    raise RuntimeError('no')\n")
    return folder


def _without_timings(value):
    """A report with every time taken out: two runs agree on everything else."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("elapsed_s",)}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _csv_without_time(path):
    return [{k: v for k, v in row.items() if k != "elapsed_s"} for row in csv.DictReader(path.open())]


def _junit_without_time(path):
    root = ET.parse(path).getroot()
    for el in root.iter():
        el.attrib.pop("time", None)
    return ET.tostring(root)


def _table_without_time(text):
    return [re.sub(r"\d+\.\d\ds", "T", line) for line in text.splitlines()]


def test_two_shards_merged_give_exactly_the_one_machine_result(klass, tmp_path):
    whole = grade_cli(str(klass), "-e", "softmax", "--json", str(tmp_path / "all.json"), "--csv",
                      str(tmp_path / "all.csv"), "--junit", str(tmp_path / "all.xml"), home=tmp_path)
    assert whole.returncode == 1
    for k in (1, 2):
        shard = grade_cli(str(klass), "-e", "softmax", "--shard", f"{k}/2", "--json", str(tmp_path / f"s{k}.json"),
                          home=tmp_path)
        assert shard.returncode in (0, 1) and f"shard {k}/2" in shard.stderr
    parts = [json.loads((tmp_path / f"s{k}.json").read_text()) for k in (1, 2)]
    names = [{Path(r["file"]).name for r in p["results"]} for p in parts]
    assert not names[0] & names[1] and names[0] | names[1] == {p.name for p in klass.glob("*.py")}
    assert all(names)  # with 12 files, neither shard is empty
    # The shards in either order on the command line.
    merged = grade_cli("--merge", str(tmp_path / "s2.json"), str(tmp_path / "s1.json"), "--json",
                       str(tmp_path / "m.json"), "--csv", str(tmp_path / "m.csv"), "--junit", str(tmp_path / "m.xml"),
                       home=tmp_path)
    assert merged.returncode == whole.returncode
    assert _without_timings(json.loads((tmp_path / "m.json").read_text())) == \
        _without_timings(json.loads((tmp_path / "all.json").read_text()))
    assert _csv_without_time(tmp_path / "m.csv") == _csv_without_time(tmp_path / "all.csv")
    assert _junit_without_time(tmp_path / "m.xml") == _junit_without_time(tmp_path / "all.xml")
    assert _table_without_time(merged.stdout) == _table_without_time(whole.stdout)


def test_shards_are_disjoint_cover_everything_and_ignore_file_order():
    names = [f"student{i:03d}.py" for i in range(200)]
    for n in (1, 2, 3, 7):
        by_order = {name: batch.shard_of(name, n) for name in names}
        shuffled = names[:]
        random.Random(n).shuffle(shuffled)
        assert {name: batch.shard_of(name, n) for name in shuffled} == by_order
        assert set(by_order.values()) <= set(range(1, n + 1))
        counts = [list(by_order.values()).count(k) for k in range(1, n + 1)]
        assert sum(counts) == len(names) and min(counts) > 0
    assert batch.shard_of("ana.py", 4) == batch.shard_of("ana.py", 4)  # no per-process hash seed


def test_merge_refuses_what_is_not_one_grading(klass, tmp_path):
    for k in (1, 2, 3):
        grade_cli(str(klass), "-e", "softmax", "--shard", f"{k}/3", "--json", str(tmp_path / f"s{k}.json"),
                  home=tmp_path)
    missing = grade_cli("--merge", str(tmp_path / "s1.json"), str(tmp_path / "s3.json"), home=tmp_path)
    assert missing.returncode == 2 and "shard 2/3 is missing" in missing.stderr
    twice = grade_cli("--merge", str(tmp_path / "s1.json"), str(tmp_path / "s1.json"), str(tmp_path / "s2.json"),
                      home=tmp_path)
    assert twice.returncode == 2 and "both shard 1/3" in twice.stderr
    other = json.loads((tmp_path / "s2.json").read_text())
    other["seed"] = 5
    (tmp_path / "other.json").write_text(json.dumps(other))
    mixed = grade_cli("--merge", str(tmp_path / "s1.json"), str(tmp_path / "other.json"), str(tmp_path / "s3.json"),
                      home=tmp_path)
    assert mixed.returncode == 2 and "seed" in mixed.stderr
    (tmp_path / "junk.json").write_text("{}")
    junk = grade_cli("--merge", str(tmp_path / "junk.json"), home=tmp_path)
    assert junk.returncode == 2 and "not the JSON of `attnprep grade --json`" in junk.stderr
    assert grade_cli(str(klass), "-e", "softmax", "--shard", "0/3", home=tmp_path).returncode == 2
    assert grade_cli(str(klass), "-e", "softmax", "--shard", "two", home=tmp_path).returncode == 2


def test_an_empty_shard_still_merges(tmp_path):
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "ana.py").write_text(catalogue.get("softmax").solution_path.read_text())
    mine = batch.shard_of("ana.py", 2)
    for k in (1, 2):
        proc = grade_cli(str(folder), "-e", "softmax", "--shard", f"{k}/2", "--json", str(tmp_path / f"s{k}.json"),
                         home=tmp_path)
        assert proc.returncode == 0
    assert json.loads((tmp_path / f"s{3 - mine}.json").read_text())["results"] == []
    merged = grade_cli("--merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), home=tmp_path)
    assert merged.returncode == 0 and "1 pass of 1 files" in merged.stdout


def test_teacher_messages_table_and_csv(klass, tmp_path):
    proc = grade_cli(str(klass), "-e", "softmax", "--csv", str(tmp_path / "c.csv"), home=tmp_path)
    rows = {Path(r["file"]).name: r for r in csv.DictReader((tmp_path / "c.csv").open())}
    lines = {line.split("│")[1].strip(): line for line in proc.stdout.splitlines() if line.startswith("│")}
    # An error shows its message, not 0/0.
    assert "SyntaxError" in lines["syntax.py"] and "0/0" not in lines["syntax.py"]
    assert rows["syntax.py"]["status"] == "error" and "SyntaxError" in rows["syntax.py"]["message"]
    # Not judged is not failed: it has its own column.
    raiser = rows["raiser.py"]
    assert raiser["not_judged"] and not set(raiser["not_judged"].split()) & set(raiser["failed_invariants"].split())
    # The named mistakes, in the table and the CSV.
    named = {n: r["mistakes"] for n, r in rows.items() if r["mistakes"]}
    assert named and all(m.split()[0] in lines[n] for n, m in named.items())


def test_empty_or_missing_folder_advises_a_teacher(tmp_path):
    for folder in (tmp_path / "nope", tmp_path):
        proc = grade_cli(str(folder), "-e", "softmax", home=tmp_path / "home")
        assert proc.returncode == 2
        assert "attnprep start" not in proc.stderr and "student" in proc.stderr, proc.stderr
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "softmax.py").write_text("x = 1\n")
    nested = grade_cli(str(tmp_path), "-e", "softmax", home=tmp_path / "home")
    assert nested.returncode == 2 and "subfolders" in nested.stderr
    no_exercise = grade_cli(str(tmp_path), home=tmp_path / "home")
    assert no_exercise.returncode == 2 and "--exercise" in no_exercise.stderr


def test_not_judged_and_skipped_are_never_listed_as_failed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per row
    report = Report("softmax", "ana.py", "timeout", invariants=[
        InvariantResult("shape", "d", "pass"), InvariantResult("stable", "d", "not-judged", "not judged: x"),
        InvariantResult("axis", "d", "skipped", "no time"), InvariantResult("sum-to-one", "d", "fail", "row 0")],
        mistakes=[{"id": "global-max", "message": "m"}])
    b = batch.Batch("softmax", 0, 10.0, [report])
    batch.print_table(b)
    row = next(line for line in capsys.readouterr().out.splitlines() if "ana.py" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[3] == "sum-to-one" and cells[4] == "stable, axis" and cells[5] == "global-max"
    batch.write_csv(tmp_path / "c.csv", [report])
    (row,) = csv.DictReader((tmp_path / "c.csv").open())
    assert (row["failed_invariants"], row["not_judged"], row["mistakes"]) == ("sum-to-one", "stable axis",
                                                                              "global-max")


class FakeWorker:
    started = 0

    def __init__(self):
        FakeWorker.started += 1
        self.killed = False

    def kill(self):
        self.killed = True


def test_warm_pool_hands_out_each_worker_once_and_keeps_spares_booting():
    FakeWorker.started = 0
    pool = batch.WarmPool(2, FakeWorker)
    assert FakeWorker.started == 2
    taken = [pool.take() for _ in range(5)]
    assert len({id(w) for w in taken}) == 5 and FakeWorker.started == 7  # a replacement per worker taken
    spares = list(pool._ready)
    pool.close()
    assert all(w.killed for w in spares)  # the spares it still held
    assert pool.take() is not None and FakeWorker.started == 8  # closed: no more spares, still a worker
    assert not any(w.killed for w in taken)  # never a worker it handed out
    FakeWorker.started = 0
    limited = batch.WarmPool(2, FakeWorker, limit=3)
    assert [limited.take() is not None for _ in range(3)] == [True] * 3
    assert FakeWorker.started == 3 and not limited._ready  # no spare boots after the last file


def test_warm_workers_grade_as_cold_ones(klass):
    ex = catalogue.get("softmax")
    files = sorted(klass.glob("*.py"))[:4] + [klass / "syntax.py"]
    warm = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, warm=True)
    cold = batch.grade_all(ex, files, jobs=2, timeout=10, seed=3, warm=False)
    assert [_without_timings(r.to_dict()) for r in warm] == [_without_timings(r.to_dict()) for r in cold]


def test_judge_processes_grade_as_threads_of_one_process_do(klass):
    ex = catalogue.get("softmax")
    files = sorted(klass.glob("*.py"))
    processes = batch.grade_all(ex, files, jobs=2, timeout=10, seed=5, processes=True)
    threads = batch.grade_all(ex, files, jobs=2, timeout=10, seed=5, processes=False)
    assert [_without_timings(r.to_dict()) for r in processes] == [_without_timings(r.to_dict()) for r in threads]
    assert [r.file for r in processes] == [str(f) for f in files]  # in the order given, whoever finished first


def test_a_judge_process_that_dies_costs_only_the_file_it_was_grading(klass, tmp_path, monkeypatch):
    # Unsandboxed, a worker's parent is its judge: a file that kills it takes that one file down, not the class.
    from attnprep import sandbox

    monkeypatch.setattr(sandbox._state, "mode", "off")
    killer = tmp_path / "killer.py"
    killer.write_text("# attnprep: softmax\nimport os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    files = sorted(klass.glob("student0*.py"))[:4]
    files.insert(2, killer)
    reports = batch.grade_all(catalogue.get("softmax"), files, jobs=2, timeout=10, seed=0, processes=True)
    assert reports[2].status == "error" and "judge process ended" in reports[2].message
    alone = batch.grade_all(catalogue.get("softmax"), files[:2] + files[3:], jobs=1, timeout=10, seed=0)
    assert [_without_timings(r.to_dict()) for r in reports[:2] + reports[3:]] == \
           [_without_timings(r.to_dict()) for r in alone]


def test_one_judge_boots_torch_for_a_few_pytorch_files_and_every_file_is_taken_once(tmp_path):
    # Judges take files in turns, as their threads would. Every judge booting torch (1.5 s of CPU each) for a
    # handful of PyTorch files in a NumPy class cost more than it saved; a PyTorch class keeps every judge busy.
    from attnprep import judges

    def folder(kinds: str) -> list[Path]:
        paths = []
        for i, kind in enumerate(kinds):
            path = tmp_path / kinds / f"s{i:03d}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text("import torch\n" if kind == "t" else "import numpy as np\n")
            paths.append(path)
        return paths

    def deal(paths: list[Path], jobs: int) -> list[set[str]]:
        todo = judges.FileQueue(paths)
        booted = [todo.judge() for _ in range(jobs)]
        taken, open_judges = [], list(range(jobs))
        while open_judges:
            for j in list(open_judges):
                item = todo.take(booted[j])
                if item is None:
                    open_judges.remove(j)
                else:
                    taken.append(item[0])
        assert sorted(taken) == list(range(len(paths)))
        return booted

    few = deal(folder("n" * 15 + "t" * 7 + "n" * 40 + "t" * 3), jobs=2)
    assert sum("torch" in b for b in few) == 1 and all("numpy" in b for b in few)
    assert all("torch" in b for b in deal(folder("t" * 40), jobs=2))
    assert all("torch" in b for b in deal(folder("t" * 30 + "n" * 2), jobs=3))
