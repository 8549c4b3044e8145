"""How long a user and a contributor wait: ``--help`` of every command, the demo, every README default build and
the suite, each timed as whole processes (CPU and wall), the median of ``--repeats`` runs. Run by hand, quiet.

Every run starts from an empty ``$NEEDLEWORK_CACHE`` of its own: builds cache retrieval indexes and rankings
there, and a run that found the previous run's would time a different (warm) build.

CPU is the stable figure on a shared machine (user + system time of the process and every process it waited
for, from ``os.wait4``); wall is what a person waits. Runs of one item follow each other; items run in the
order given. Output: one JSON line per run as it ends (``--log``), then a Markdown table of medians for the
issue note.

Run it from the checkout whose code is to be timed, with that checkout's environment active: the commands are
looked up on ``PATH`` (``needlework``) and ``python`` is this interpreter. To time an older commit, check it out
in a worktree, install it in its own virtual environment, and run this file from there with ``--cwd``.

Usage::

    python benchmarks/timings.py                                   # every --help and the demo, 3 runs each
    python benchmarks/timings.py --only builds --repeats 1         # every README default build, once
    python benchmarks/timings.py --only suite --log suite.jsonl    # the README's test command
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import click

BUILDER_IDS = ("rulerv2", "needlebench", "world", "haystackcraft", "sequential-niah", "embs")
"""The README's default builds, one per benchmark (``needlework build <id> --out <folder>``)."""
HELP_COMMANDS = (
    "needlework --help", "needlework --version", "needlework build --help",
    *(f"needlework build {i} --help" for i in (*BUILDER_IDS, "demo")),
    "needlework validate --help", "needlework push --help", "needlework info --help",
    "{python} -m eval --help", "{python} -m eval run --help",
)
SUITE_COMMAND = "{python} -m pytest -q -p no:cacheprovider"
"""The README's test command (``addopts`` adds the parallel run); no cache provider, so no run reorders the next."""
KINDS = ("help", "demo", "builds", "suite")


@dataclass(frozen=True)
class Run:
    """One timed process."""

    kind: str
    command: str
    cpu_s: float
    wall_s: float
    exit_code: int
    passed: int | None = None


def timed(kind: str, command: str, cwd: Path, env: dict[str, str]) -> Run:
    """Run ``command`` (shell words) to the end; its CPU (it and its waited-for descendants) and wall time."""
    begin = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(shlex.split(command), cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - begin
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read().decode("utf-8", "replace")
    passed = re.search(r"(\d+) passed", text) if kind == "suite" else None
    if process.returncode != 0:
        click.echo(f"{command}: exit {process.returncode}\n{text[-2000:]}", err=True)
    return Run(kind, command, round(usage.ru_utime + usage.ru_stime, 3), round(wall, 3), process.returncode,
               int(passed.group(1)) if passed else None)


def commands(kind: str, out: Path) -> list[str]:
    """The command lines of one kind of item (build outputs go under ``out``)."""
    python = shlex.quote(sys.executable)
    if kind == "help":
        return [c.format(python=python) for c in HELP_COMMANDS]
    if kind == "demo":
        return [f"needlework build demo --out {out / 'demo'} --quiet"]
    if kind == "builds":
        return [f"needlework build {i} --out {out / i} --quiet" for i in BUILDER_IDS]
    return [SUITE_COMMAND.format(python=python)]


def table(runs: list[Run]) -> str:
    """Markdown: per command, median CPU and wall over its runs (and tests passed for the suite)."""
    lines = ["| command | runs | CPU s (median) | wall s (median) | exit | tests passed |", "|---|---:|---:|---:|---|---:|"]
    by_command: dict[str, list[Run]] = {}
    for run in runs:
        by_command.setdefault(run.command, []).append(run)
    for command, group in by_command.items():
        shown = command.replace(sys.executable, "python")
        shown = re.sub(r"--out \S+", "--out DIR", shown)
        passed = ", ".join(str(r.passed) for r in group if r.passed is not None) or ""
        exits = ",".join(sorted({str(r.exit_code) for r in group}))
        lines.append(f"| `{shown}` | {len(group)} | {statistics.median(r.cpu_s for r in group):.2f} | "
                     f"{statistics.median(r.wall_s for r in group):.2f} | {exits} | {passed} |")
    return "\n".join(lines)


@click.command()
@click.option("--only", default=",".join(KINDS[:2]), show_default=True,
              help=f"Comma-separated kinds to time, in order: {', '.join(KINDS)}.")
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True, help="Runs of each command.")
@click.option("--cwd", type=click.Path(path_type=Path, file_okay=False), default=Path("."), show_default=True,
              help="Checkout to run in (the suite reads its tests and pyproject.toml).")
@click.option("--log", type=click.Path(path_type=Path, dir_okay=False), default=None, help="Also append each run as JSON.")
def main(only: str, repeats: int, cwd: Path, log: Path | None) -> None:
    """Time the commands a user and a contributor wait for; print a Markdown table of medians."""
    kinds = [k.strip() for k in only.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise click.BadParameter(f"unknown kind(s) {', '.join(unknown)}; kinds: {', '.join(KINDS)}", param_hint="--only")
    if shutil.which("needlework") is None:
        raise click.UsageError("needlework is not on PATH: activate the environment of the checkout to time")
    env = dict(os.environ)
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="needlework-timings-") as scratch:
        for kind in kinds:
            for command_template in commands(kind, Path(scratch) / "out"):
                for _ in range(repeats):
                    out, cache = Path(scratch) / "out", Path(scratch) / "cache"
                    for folder in (out, cache):
                        shutil.rmtree(folder, ignore_errors=True)
                        folder.mkdir(parents=True)
                    run = timed(kind, command_template, cwd.resolve(), {**env, "NEEDLEWORK_CACHE": str(cache)})
                    runs.append(run)
                    click.echo(json.dumps(asdict(run)), err=True)
                    if log is not None:
                        with log.open("a", encoding="utf-8") as handle:
                            handle.write(json.dumps(asdict(run)) + "\n")
    click.echo(table(runs))


if __name__ == "__main__":
    main()
