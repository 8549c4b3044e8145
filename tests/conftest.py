"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli import main as needlework_main
from builders.sources.icews import TemporalGraph, read_icews
from needlework.tokenizers import load_tokenizer

SHARED_DATA_VARIABLE = "NEEDLEWORK_SHARED_DATA"
# Set by CI, where a missing slice is a broken checkout rather than a reason to skip.
REQUIRE_VARIABLE = "NEEDLEWORK_REQUIRE_SHARED_DATA"


def shared_data_path() -> Path:
    """Where the shared data folder should be: ``$NEEDLEWORK_SHARED_DATA`` or ``../shared/data``.

    The default is the ``shared/data`` folder that sits beside the repository checkout, as on the
    developers' machines and in CI.
    """
    default = Path(__file__).resolve().parents[2] / "shared" / "data"
    return Path(os.environ.get(SHARED_DATA_VARIABLE, default))


def _missing(reason: str) -> None:
    if os.environ.get(REQUIRE_VARIABLE):
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE} is set)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder; tests that need it skip, with the reason, when it is absent."""
    path = shared_data_path()
    if not path.is_dir():
        _missing(f"shared data folder not found at {path}; set {SHARED_DATA_VARIABLE} to the shared/data folder")
    return path


@pytest.fixture(scope="session")
def shared_file(shared_data: Path) -> Callable[[str], Path]:
    """A function from a path relative to the shared data folder to the file, skipping if absent."""

    def find(relative: str) -> Path:
        path = shared_data / relative
        if not path.is_file():
            _missing(f"shared data file not found: {path} ({SHARED_DATA_VARIABLE}={shared_data})")
        return path

    return find


@pytest.fixture(scope="session")
def qwen():
    """The default tokenizer (Qwen2.5), exact and offline."""
    return load_tokenizer("qwen2.5")


@pytest.fixture(scope="session")
def cl100k():
    """GPT-4's cl100k_base tokenizer, offline."""
    return load_tokenizer("cl100k_base")


@pytest.fixture(scope="session")
def icews(shared_data: Path) -> TemporalGraph:
    """The ICEWS14 temporal knowledge graph slice, read once (Sequential-NIAH's real-temporal source)."""
    folder = shared_data / "tkg_icews14"
    if not (folder / "train.txt").is_file():
        _missing(f"ICEWS14 slice not found at {folder}")
    return read_icews(folder)


@dataclass(frozen=True)
class Demo:
    """Where ``needlework build demo`` wrote its releases, and what it printed."""

    folder: Path
    output: str


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> Demo:
    """Every registered builder's demo release, built once per session by ``needlework build demo``
    (the builder tests check it; the eval tests run on it, as a new user would)."""
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(needlework_main, ["build", "demo", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return Demo(out, result.output)
