"""``needlework build demo``: every registered benchmark, small, on its embedded default (offline)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builders.registry import all_builders
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer


@dataclass(frozen=True)
class DemoReport:
    """Where each benchmark's demo release was written, by builder id."""

    releases: dict[str, Path]


def build_demo(out: Path, *, seed: int = 0, tokenizer: str = DEFAULT_TOKENIZER, progress: bool = True) -> DemoReport:
    """Build each builder's demo spec under ``out/<id>``, sharing one tokenizer, offline."""
    tokens = load_tokenizer(tokenizer)
    out = Path(out)
    releases = {}
    for builder in all_builders():
        releases[builder.id] = out / builder.id
        builder.build(builder.demo(seed, tokenizer), releases[builder.id], tokens=tokens, progress=progress)
    return DemoReport(releases)
