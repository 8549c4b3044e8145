"""Fixtures of the builder tests: the demo, built once through the CLI."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli import main


@dataclass(frozen=True)
class Demo:
    """Where ``needlework build demo`` wrote its releases, and what it printed."""

    folder: Path
    output: str


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> Demo:
    """Every registered builder's demo release, built once per session by ``needlework build demo``."""
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(main, ["build", "demo", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return Demo(out, result.output)
