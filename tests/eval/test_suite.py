"""``python -m eval suite``: a suite file's entries run as ``eval run`` runs them, counted first, judged where the
benchmark has a judge, reported once, refused in one line when the file is wrong, and resumed after a kill.

The runs go to the scripted OpenAI-compatible stub on loopback (:mod:`tests.support.openai_stub`), which answers
every row of the small RULERv2 release from its references; the second release is a copy of the first under
another folder name, so it has its own run directory. The judged entries use a toy benchmark with a 0-5 rubric
registered for one test, as :mod:`tests.eval.test_judge` does.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import eval.benchmarks as registry
import eval.judge
import eval.results
from eval.benchmark import Benchmark
from eval.cli import main
from eval.count import count_run
from eval.store import RunDirectory, is_done
from eval.suite_file import SuiteError, load_suite
from eval.suite_run import RunOptions, check_entries, count_plans, plan_suite
from tests.support.releases import (  # noqa: F401 - eval_release and release_rows are fixtures
    CONFIGS,
    MODEL,
    ROWS_PER_CONFIG,
    eval_release,
    make_script,
    read_json,
    release_rows,
    stub_server,
    write_test_release,
)
from tests.support.signals import with_default_signals
from tests.support.toy_task import TOY_ROWS, TOY_SCHEMA, EchoTask, ScaleRubric

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "suites"


@pytest.fixture(scope="module")
def releases(eval_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the small RULERv2 release twice: ``rulerv2`` and ``rulerv2-copy`` (its own run directories)."""
    folder = tmp_path_factory.mktemp("suite-releases")
    shutil.copytree(eval_release, folder / "rulerv2")
    shutil.copytree(eval_release, folder / "rulerv2-copy")
    return folder


SUITE = """\
description: two tiny releases
defaults:
  generation: {temperature: 0}
entries:
  - name: first
    dataset: releases/rulerv2
    configs: [mk_niah_basic]
    lengths: [1ki]
  - name: second
    dataset: releases/rulerv2-copy
    configs: mk_niah_basic,mv_niah_basic
"""
EXPECTED = {"rulerv2": ROWS_PER_CONFIG // 2, "rulerv2-copy": 2 * ROWS_PER_CONFIG}
"""Samples per release: the first entry keeps the 1,024-token rows of one config, the second runs both configs."""


@pytest.fixture()
def workdir(releases: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with ``releases/`` in it, made the current one (suite paths are relative to it)."""
    (tmp_path / "releases").symlink_to(releases, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_suite(folder: Path, text: str = SUITE, name: str = "tiny.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def suite_args(path: Path, base_url: str, *more: str) -> list[str]:
    return ["suite", str(path), "--model", MODEL, "--base-url", base_url, "--concurrency", "4", "--timeout", "5",
            "--max-retries", "2", "--no-progress", *more]


def invoke(args: Sequence[str]) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def done_keys(run_dir: Path) -> Counter:
    """How often each key has a finished record in the run's samples (1 each: nothing lost or duplicated)."""
    raw = (run_dir / "samples.jsonl").read_bytes()
    assert raw.endswith(b"\n"), "samples.jsonl ends with a torn line"
    import json

    return Counter(record["key"] for record in map(json.loads, raw.splitlines()) if is_done(record))


def expected_keys(run_dir: Path) -> set[str]:
    return {entry["key"] for entry in RunDirectory(run_dir).read_run()["expected"]}


# --- a whole suite ------------------------------------------------------------------------------------------------


def test_a_suite_runs_each_entry_into_eval_runs_run_directory_and_writes_one_report(workdir, release_rows):
    path = write_suite(workdir)
    with stub_server(make_script(release_rows)) as server:
        result = invoke(suite_args(path, server.base_url))
        assert result.exit_code == 0, result.output
        again = invoke(suite_args(path, server.base_url))
    assert again.exit_code == 0, again.output

    for release, samples in EXPECTED.items():
        run_dir = workdir / "eval-runs" / release / MODEL  # eval run's default, relative to the working directory
        results = read_json(run_dir / "results.json")
        assert results["counts"] == {"expected": samples, "answered": samples, "errors": {}, "missing": 0}
        assert results["scores"]["overall"]["score"] == 1.0
        assert done_keys(run_dir) == Counter({key: 1 for key in expected_keys(run_dir)})
    assert read_json(workdir / "eval-runs/rulerv2" / MODEL / "results.json")["run"]["select"] == {"lengths": [1024]}

    report = workdir / "eval-runs" / "reports" / "tiny" / MODEL
    text = (report / "report.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in report.iterdir() if p.suffix in (".md", ".html")) == ["report.html", "report.md"]
    assert text.count("eval-runs/rulerv2/") >= 1 and "eval-runs/rulerv2-copy/" in text  # one report, both runs
    total = sum(EXPECTED.values())
    assert f"{total} new samples, 0 already done" in result.output
    assert f"0 new samples, {total} already done" in again.output  # re-run: nothing to do
    assert re.search(rf"^total\s+{total}\s+{total}\s", again.output, re.MULTILINE), again.output  # the preflight saw them done


def test_the_preflight_counts_what_eval_count_counts(workdir, release_rows):
    suite = load_suite(write_suite(workdir))
    options = RunOptions(model=MODEL, base_url="http://127.0.0.1:9/v1", max_model_len=1500)
    plans = count_plans(suite, plan_suite(suite, options), options)
    for plan in plans:
        _, counts = count_run(plan.spec)  # eval count's own function, over the same spec
        assert plan.count is not None and plan.count.configs == tuple(counts)
    first, second = (plan.count for plan in plans)
    assert first.samples == EXPECTED["rulerv2"] and second.samples == EXPECTED["rulerv2-copy"]
    assert first.over_window == 0  # 1,024-token rows fit 1,500 with their reserve
    over = sum(1 for rows in release_rows.values() for row in rows if row["target_tokens"] == 2048)
    assert second.over_window == over

    result = invoke(["suite", str(suite.path), "--model", MODEL, "--dry-run", "--max-model-len", "1500",
                     "--price-input", "1", "--price-output", "2"])
    assert result.exit_code == 0, result.output
    cost = sum(c.cost_usd(1.0, 2.0) for plan in plans for c in plan.count.configs)
    prompt = sum(plan.count.total("prompt_tokens") for plan in plans)
    assert re.search(rf"^total\s+{first.samples + second.samples}\s+0\s+{prompt:,}\s.*\s{over}\s+{cost:.2f}$",
                     result.output, re.MULTILINE), result.output
    eval_count = invoke(["count", "--dataset", "releases/rulerv2-copy", "--config", "mk_niah_basic,mv_niah_basic"])
    assert f"{second.total('prompt_tokens'):,}" in eval_count.output
    assert not (workdir / "eval-runs").exists()  # a dry run writes nothing


def test_each_entry_is_the_eval_run_command_its_dry_run_prints(workdir, release_rows):
    path = write_suite(workdir)
    with stub_server(make_script(release_rows)) as server:
        dry = invoke(suite_args(path, server.base_url, "--dry-run"))
        commands = re.findall(r"^  entries\[\d\]: (python -m eval run .*)$", dry.output, re.MULTILINE)
        assert len(commands) == 2, dry.output
        for command in commands:
            ran = invoke(shlex.split(command)[3:] + ["--no-progress"])
            assert ran.exit_code == 0, ran.output
        before = {r: (workdir / "eval-runs" / r / MODEL / "samples.jsonl").read_bytes() for r in EXPECTED}
        suite = invoke(suite_args(path, server.base_url))
    assert suite.exit_code == 0, suite.output
    assert f"0 new samples, {sum(EXPECTED.values())} already done" in suite.output
    assert before == {r: (workdir / "eval-runs" / r / MODEL / "samples.jsonl").read_bytes() for r in EXPECTED}


def test_an_entry_stopped_by_its_failures_does_not_stop_the_others(workdir, release_rows):
    path = write_suite(workdir, SUITE.replace("    lengths: [1ki]\n", "").replace("mk_niah_basic,mv_niah_basic", "mv_niah_basic"))
    faults = {row["id"]: ["500"] for row in release_rows["mk_niah_basic"]}  # every sample of the first entry fails
    with stub_server(make_script(release_rows, faults)) as server:
        result = invoke(suite_args(path, server.base_url, "--max-retries", "0"))
    assert result.exit_code == 3, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("error: 1 of 2 entries stopped: entries[0] (first): every one of the 12 samples failed")
    assert last.endswith("re-run the same command to resume")
    first = read_json(workdir / "eval-runs/rulerv2" / MODEL / "results.json")
    second = read_json(workdir / "eval-runs/rulerv2-copy" / MODEL / "results.json")
    assert first["counts"]["answered"] == 0 and first["stopped"]
    assert second["counts"] == {"expected": ROWS_PER_CONFIG, "answered": ROWS_PER_CONFIG, "errors": {}, "missing": 0}
    text = (workdir / "eval-runs/reports/tiny" / MODEL / "report.md").read_text(encoding="utf-8")
    assert "eval-runs/rulerv2/" in text and "eval-runs/rulerv2-copy/" in text  # the report is written anyway


def test_an_unreachable_model_stops_the_suite_before_anything_is_written(workdir):
    result = invoke(suite_args(write_suite(workdir), "http://127.0.0.1:9/v1"))
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()[-1:]
    assert line.startswith("error: entries[0] (first): ")
    assert not list((workdir / "eval-runs").rglob("samples.jsonl"))


# --- a bad suite file ---------------------------------------------------------------------------------------------


BAD = [
    ("entries:\n  - dataset: releases/rulerv2\n    configs: 3\n", "entries[0].configs",
     "expected a list of names or a comma-separated string, got 3"),
    (SUITE + "  - dataset: releases/rulerv2\n    config: [mk_niah_basic]\n", "entries[2].config",
     "unknown field; did you mean 'configs'?"),
    (SUITE + "  - configs: [mk_niah_basic]\n", "entries[2].dataset", "missing"),
    (SUITE.replace("lengths: [1ki]", "lengths: [1q]"), "entries[0].lengths", "1q"),
    (SUITE.replace("generation: {temperature: 0}", "generation: {max_tokens: 0}"), "defaults.generation",
     "max_tokens=0: expected a whole number of tokens >= 1"),
    (SUITE.replace("generation: {temperature: 0}", "dataset: x"), "defaults.dataset", "set it in each entry"),
    (SUITE + "    judge: {base_url: http://127.0.0.1:9/v1}\n", "entries[1].judge.model", "missing"),
    (SUITE + "    generation: {model: other}\n", "entries[1].generation", "may not set model"),
    (SUITE + "    reasoning: required\n    thinking_end: ''\n", "entries[1].reasoning", "needs a thinking_end"),
    (SUITE + "    name: first\n", "entries[1].name", "'first' is entries[0]'s name too"),
    ("entries: [\n", "line 2, column 1", "not valid YAML"),
    ("entries: []\n", "entries", "expected a non-empty list"),
    # what needs the release, checked before any request
    (SUITE.replace("configs: [mk_niah_basic]", "configs: [mk_niah_basic, nope]"), "entries[0].configs",
     "no config 'nope'"),
    (SUITE.replace("lengths: [1ki]", "lengths: [3ki]"), "entries[0].lengths", "no test row of mk_niah_basic has that"),
    (SUITE.replace("releases/rulerv2-copy", "releases/rulerv2-cpy"), "entries[1].dataset", "no such release folder"),
    (SUITE.replace("releases/rulerv2-copy", "releases/rulerv2"), "entries[1].run_dir",
     "is entries[0]'s run directory too"),
    (SUITE + "    revision: main\n", "entries[1].revision", "--revision applies to Hub datasets"),
]


@pytest.mark.parametrize(("text", "where", "message"), BAD, ids=[where for _, where, _ in BAD])
def test_a_bad_suite_file_is_one_line_naming_file_entry_and_field(workdir, release_rows, text, where, message):
    path = write_suite(workdir, text, "bad.yaml")
    script = make_script(release_rows)
    with stub_server(script) as server:
        result = invoke(suite_args(path, server.base_url))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {path}: {where}: "), lines[0]
    assert message in lines[0]
    assert not script.attempts  # nothing was asked
    assert not (workdir / "eval-runs").exists()


def test_a_missing_suite_file_is_one_line(tmp_path):
    result = invoke(["suite", str(tmp_path / "none.yaml"), "--model", MODEL, "--dry-run"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {tmp_path / 'none.yaml'}: cannot read the suite file")


# --- judges -------------------------------------------------------------------------------------------------------

TOY = Benchmark(id="toy", tasks={"toy/echo": lambda options: EchoTask("toy/echo", options)},
                task_for_row=lambda row: "toy/echo", judge=ScaleRubric())


@pytest.fixture()
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Benchmark:
    monkeypatch.setitem(registry.BY_ID, TOY.id, TOY)
    monkeypatch.setitem(registry.TASKS, "toy/echo", TOY.tasks["toy/echo"])
    monkeypatch.setitem(registry.BENCHMARK_OF_TASK, "toy/echo", TOY)
    for module in (eval.results, eval.judge):
        monkeypatch.setattr(module, "BENCHMARKS", (*registry.BENCHMARKS, TOY))
    return TOY


def test_entries_whose_benchmark_has_a_judge_are_judged_once(workdir, release_rows, toy_registered):
    write_test_release(workdir / "toy", {"benchmark": "toy", "tokenizer": {"name": "qwen2.5"}}, TOY_SCHEMA,
                       {"test": TOY_ROWS})
    path = write_suite(workdir, SUITE + "  - name: toy\n    dataset: toy\n    configs: [test]\n"
                                        "    judge: {model: '{model}', generation: {max_tokens: 4}}\n")
    script = make_script(release_rows, default="4", keep_payloads=True)  # toy answers and verdicts: "4"
    with stub_server(script) as server:
        result = invoke(suite_args(path, server.base_url))
        assert result.exit_code == 0, result.output
        asked = len(script.payloads)
        again = invoke(suite_args(path, server.base_url))
        assert again.exit_code == 0, again.output
        assert len(script.payloads) == asked  # verdicts and samples resume: nothing asked twice
    assert f"[2] toy: judged by {MODEL} at {server.base_url}" in result.output
    verdicts = RunDirectory(workdir / "eval-runs/toy" / MODEL).latest_judgements()
    assert sorted(v["verdict"] for v in verdicts.values()) == [4, 4, 4, 4]
    judge_payloads = [p for p in script.payloads if p["messages"][0]["content"].endswith("Grade 0-5.")]
    assert len(judge_payloads) == 4 and all(p["max_tokens"] == 4 for p in judge_payloads)
    assert not (workdir / "eval-runs/rulerv2" / MODEL / "judge.jsonl").exists()  # RULERv2 has no judge

    unjudged = invoke(suite_args(path, server.base_url, "--no-judge", "--dry-run"))
    assert "[2] toy: not judged: no judge model" in unjudged.output


# --- killed and re-run --------------------------------------------------------------------------------------------

HANG_S = 0.1


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_suite_resumes_with_nothing_lost_or_duplicated(workdir, release_rows, stop):
    path = write_suite(workdir)
    faults = {row["id"]: ["hang"] for rows in release_rows.values() for row in rows}
    samples = [workdir / "eval-runs" / release / MODEL / "samples.jsonl" for release in EXPECTED]
    total = sum(EXPECTED.values())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with stub_server(make_script(release_rows, faults, hang_s=HANG_S)) as server:
        command = [sys.executable, "-m", "eval", *suite_args(path, server.base_url)]
        command[command.index("--concurrency") + 1] = "1"
        proc = subprocess.Popen(with_default_signals(command), cwd=workdir, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        give_up = time.monotonic() + 120
        while proc.poll() is None and lines(samples[1]) < 3 and time.monotonic() < give_up:
            time.sleep(0.01)  # into the second entry, the first one finished
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(stop)
        _, stderr = proc.communicate(timeout=60)
        if stop == signal.SIGINT:
            assert proc.returncode == 130, stderr
            assert stderr.strip().splitlines()[-1] == ("error: interrupted during entries[1] (second); re-run the same "
                                                       "command to resume")
        else:
            assert proc.returncode == -signal.SIGKILL
        before = [lines(s) for s in samples]
        assert before[0] == EXPECTED["rulerv2"] and 0 < before[1] < EXPECTED["rulerv2-copy"]
        rerun = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=180)
    assert rerun.returncode == 0, rerun.stderr
    new, done = map(int, re.search(r"^(\d+) new samples, (\d+) already done$", rerun.stdout, re.MULTILINE).groups())
    assert new + done == total and done >= sum(before) - 1  # SIGKILL may tear the last line, which is cut and asked again
    for release in EXPECTED:
        run_dir = workdir / "eval-runs" / release / MODEL
        assert done_keys(run_dir) == Counter({key: 1 for key in expected_keys(run_dir)})
        assert read_json(run_dir / "results.json")["complete"] is True
    assert (workdir / "eval-runs/reports/tiny" / MODEL / "report.html").is_file()


# --- the shipped suites -------------------------------------------------------------------------------------------


BENCHMARKS = ("rulerv2", "needlebench", "haystackcraft", "sequential-niah", "embs")


@pytest.mark.parametrize(("name", "folder"), [("demo.yaml", "demo-releases/{}"), ("paper.yaml", "releases/{}-paper")])
def test_the_shipped_suites_parse_and_validate(name, folder):
    """Both files check without their releases (those are checked when the suite runs, before any request)."""
    suite = load_suite(SHIPPED / name)
    specs = check_entries(suite, RunOptions(model="some/model", base_url="http://127.0.0.1:8000/v1"))
    assert len(specs) == len(suite.entries)
    assert {entry.dataset for entry in suite.entries} == {folder.format(b) for b in BENCHMARKS}
    assert suite.description


def header_commands(path: Path) -> list[str]:
    """The ``needlework`` and ``python -m eval`` commands of a suite file's comments, continuations joined."""
    commands, pending = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.removeprefix("#").strip() if line.startswith("#") else ""
        if pending or text.startswith(("needlework ", "python -m eval ")):
            pending += text.split(" # ", 1)[0].strip()
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            commands.append(pending)
            pending = ""
    return commands


@pytest.mark.parametrize("name", ["demo.yaml", "paper.yaml"])
def test_the_commands_in_a_shipped_suite_parse_and_build_its_releases(name):
    """The build and run commands in each file's header parse as the documentation's do (tests/test_readme.py), and
    the builds write the releases the entries read."""
    from builders.options import spec_from_options
    from builders.registry import REGISTERED
    from tests.test_readme import parse

    suite = load_suite(SHIPPED / name)
    commands = header_commands(SHIPPED / name)
    outs = set()
    for command in commands:
        _, context = parse(command)
        builder = next((b for b in REGISTERED if command.startswith(f"needlework build {b.id} ")), None)
        if builder is not None:
            spec_from_options(builder.spec, {k: v for k, v in context.params.items() if k not in ("out", "quiet")})
        if command.startswith("needlework build "):
            outs.add(str(context.params["out"]))
    assert any(c.startswith(f"python -m eval suite suites/{name} ") for c in commands)
    releases = {str(Path(entry.dataset)) for entry in suite.entries}
    assert releases <= outs | {f"{out}/{b.id}" for out in outs for b in REGISTERED}, (releases, outs)


def test_the_demo_suite_runs_on_the_demo_releases(demo, tmp_path, monkeypatch):
    """suites/demo.yaml against ``needlework build demo``: every entry's configs and rows exist, they fit an 8K
    window by the releases' own count, and the whole suite runs (a stub answers everything) into one report."""
    (tmp_path / "demo-releases").symlink_to(demo.folder, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    suite = load_suite(SHIPPED / "demo.yaml")
    options = RunOptions(model="smollm2", base_url="http://127.0.0.1:9/v1", max_model_len=8192)
    plans = count_plans(suite, plan_suite(suite, options), options)
    assert {Path(p.release.dataset).name for p in plans} == {"rulerv2", "needlebench", "haystackcraft",
                                                             "sequential-niah", "embs"}
    assert all(p.count.over_window == 0 and p.count.samples > 0 for p in plans)
    assert sum(p.count.samples for p in plans) <= 30  # a few minutes for SmolLM2 on two cores
    from tests.support.openai_stub import Script

    with stub_server(Script(answers={}, default="The correct answer is 1.")) as server:
        result = invoke(["suite", str(SHIPPED / "demo.yaml"), "--model", "smollm2", "--base-url", server.base_url,
                         "--no-progress"])
    assert result.exit_code == 0, result.output
    report = tmp_path / "eval-runs/reports/demo/smollm2/report.md"
    text = report.read_text(encoding="utf-8")
    for plan in plans:
        assert read_json(plan.run_dir / "results.json")["complete"] is True
    assert text.count("\n### smollm2") == len(plans)  # one report: a summary per run
    judged = [p for p in plans if p.judged_benchmark]
    assert {Path(p.release.dataset).name for p in judged} == {"sequential-niah", "embs"}
    assert all(RunDirectory(p.run_dir).has_judgements() for p in judged)


def test_suite_help_loads_no_heavy_library():
    script = ("import sys\nfrom eval.cli import main\n"
              "try:\n    main(['suite', '--help'], prog_name='python -m eval')\nexcept SystemExit as exit:\n"
              "    assert exit.code in (0, None)\n"
              "heavy = ('datasets', 'torch', 'pandas', 'polars', 'pyarrow', 'scipy', 'numpy', 'tokenizers', 'tiktoken')\n"
              "print(sorted(m for m in heavy if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_load_suite_errors_are_suite_errors(tmp_path):
    with pytest.raises(SuiteError) as caught:
        load_suite(write_suite(tmp_path, "entries:\n  - {dataset: x, configs: [a], limit: 0}\n"))
    assert caught.value.where == "entries[0].limit"
    assert str(caught.value).endswith("expected a whole number >= 1, got 0")
