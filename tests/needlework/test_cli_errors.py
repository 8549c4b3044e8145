"""Usage errors of both commands are one ``error:`` line with exit 2 (issue 41): :class:`needlework.cliutil.OneLineErrors`.

click printed a bad option value, a missing option or argument and an unknown command as three lines (the usage, a
hint, then ``Error: ...``), while every other error of both commands is one ``error:`` line.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from builders.cli import main as needlework
from eval.cli import main as evaluate


@pytest.mark.parametrize(("command", "args", "says"), [
    (needlework, ["frobnicate"], "error: No such command 'frobnicate'. (see: needlework --help)"),
    (needlework, ["build", "nosuchbench", "--out", "x"], "error: No such command 'nosuchbench'. (see: needlework build --help)"),
    (needlework, ["build", "rulerv2", "--tasks", "mk_niah_basic"],
     "error: Missing option '--out'. (see: needlework build rulerv2 --help)"),
    (needlework, ["build", "rulerv2", "--out", "x", "--seed", "abc"],
     "error: Invalid value for '--seed': 'abc' is not a valid integer. (see: needlework build rulerv2 --help)"),
    (needlework, ["build", "world", "--out", "x", "--no-such-option"],
     "error: No such option '--no-such-option'. (see: needlework build world --help)"),
    (needlework, ["push", "release-folder"], "error: Missing argument 'REPO_ID'. (see: needlework push --help)"),
    (evaluate, ["run", "--dataset", "x"], "error: Missing option '--config'. (see: eval run --help)"),
    (evaluate, ["count", "--dataset", "d", "--config", "c", "--price-input", "-1"],
     "error: Invalid value for '--price-input': -1.0 is not in the range x>=0.0. (see: eval count --help)"),
    (evaluate, ["report"], "error: Missing argument 'RUN_DIRS...'. (see: eval report --help)"),
    (evaluate, ["judge", "run-dir", "--model", "m", "--gen-kwargs", "temperature"],
     "error: Invalid value for --gen-kwargs: expected name=value, got 'temperature' (see: eval judge --help)"),
])
def test_a_usage_error_is_one_error_line_naming_the_help(command, args, says):
    result = CliRunner().invoke(command, args, prog_name="eval" if command is evaluate else "needlework")
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [says]


def test_a_group_without_a_subcommand_still_shows_its_help_and_help_and_version_exit_0():
    result = CliRunner().invoke(needlework, ["build"], prog_name="needlework")
    assert result.exit_code == 2 and result.output.startswith("Usage: needlework build [OPTIONS] COMMAND")
    for args in (["--help"], ["build", "rulerv2", "--help"], ["--version"]):
        result = CliRunner().invoke(needlework, args, prog_name="needlework")
        assert result.exit_code == 0 and "error" not in result.output.lower().split("\n")[0], result.output


def test_an_error_raised_while_a_progress_bar_is_open_starts_a_line_of_its_own():
    """Issue 41: a dense model that could not be loaded printed its error into the open "embed documents" bar,
    ``0/60 [00:00<?, ?doc/s]error: dense model ...``."""
    import sys

    import click
    from tqdm import tqdm

    from needlework.cliutil import domain_errors
    from needlework.errors import SpecError

    @click.command()
    @domain_errors
    def embed() -> None:
        outer = tqdm(total=3, desc="rank ladder", file=sys.stderr)
        inner = tqdm(total=60, desc="embed documents", file=sys.stderr, position=1)
        outer.update(1)
        inner.refresh()
        raise SpecError("dense model 'acme/nope': cannot load it")

    result = CliRunner().invoke(embed, [])
    assert result.exit_code == 2
    assert "\nerror: dense model 'acme/nope': cannot load it\n" in result.output, repr(result.output)
    assert result.output.rstrip("\n").splitlines()[-1] == "error: dense model 'acme/nope': cannot load it"
