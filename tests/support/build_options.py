"""What ``needlework build <benchmark> ...`` makes of its options, without building anything."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner

from builders.cli import build_command, main
from builders.options import spec_from_options
from builders.registry import registered


def build_spec(benchmark: str, *args: str) -> Any:
    """The spec ``needlework build <benchmark> --out ... <args>`` builds, read as the command line reads it."""
    entry = registered(benchmark)
    params = build_command(entry).make_context(benchmark, ["--out", "unused", *args]).params
    return spec_from_options(entry.spec, {k: v for k, v in params.items() if k not in ("out", "quiet")})


def build_error(benchmark: str, *args: str) -> str:
    """The one line ``needlework build <benchmark>`` shows for options it refuses while reading them (exit 2)."""
    result = CliRunner().invoke(main, ["build", benchmark, "--out", "/nonexistent/needlework-unused", "--quiet", *args])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1, lines
    return lines[0]
