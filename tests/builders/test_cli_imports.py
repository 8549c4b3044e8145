"""The command lines answer at once: ``--help`` and ``--version`` of ``needlework`` (every subcommand) and of
``python -m eval`` import none of the heavy stacks (the modules are measured, not the time; the time is
``benchmarks/timings.py``'s)."""

from __future__ import annotations

import json
import subprocess
import sys

from builders.registry import IDS

HEAVY = ("datasets", "torch", "sknetwork", "pandas", "polars", "pyarrow", "scipy", "bm25s", "numpy",
         "sentence_transformers", "faiss", "ray", "vllm", "tiktoken", "tokenizers")
"""Top-level packages a ``--help`` must not load (the issue names datasets, torch, sknetwork, pandas and polars;
the rest cost tenths of a second each too)."""

NEEDLEWORK_ARGS = [["--help"], ["--version"], ["build", "--help"], *[["build", i, "--help"] for i in (*IDS, "demo")],
                   ["validate", "--help"], ["push", "--help"], ["info", "--help"]]
EVAL_ARGS = [["--help"], ["--version"], ["run", "--help"], ["score", "--help"], ["report", "--help"]]

# Runs each command line in-process as its script does (click exits after --help), recording the heavy
# packages loaded after each; one interpreter for all, so the check costs one start-up.
SCRIPT = """
import json, sys
from builders.cli import main as needlework
from eval.cli import main as evaluate
heavy = {heavy!r}
seen = {{}}
for program, main, runs in (("needlework", needlework, {needlework!r}), ("python -m eval", evaluate, {evaluate!r})):
    for args in runs:
        try:
            main(args, prog_name=program)
        except SystemExit as exit:
            assert exit.code in (0, None), (program, args, exit.code)
        seen[" ".join([program, *args])] = sorted(m for m in heavy if m in sys.modules)
print(json.dumps(seen))
"""


def test_help_and_version_import_no_heavy_library():
    script = SCRIPT.format(heavy=HEAVY, needlework=NEEDLEWORK_ARGS, evaluate=EVAL_ARGS)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(seen) == len(NEEDLEWORK_ARGS) + len(EVAL_ARGS)
    loaded = {command: modules for command, modules in seen.items() if modules}
    assert loaded == {}, f"--help loaded heavy libraries: {loaded}"

