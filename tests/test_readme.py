"""Every command the README and the documentation (``docs/``) show still parses: its subcommand exists,
every flag is known, every value is accepted, and a build's options make a valid spec. Nothing is built
or run here (the two set-up commands at the top of the README are what CI runs).

The README stays a short entry: its first fenced block holds the two set-up commands ``.ci/run`` runs, it
is at most 150 lines, and its links into ``docs/`` resolve. Building the site is ``tests/test_docs.py``'s.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from builders.cli import main as needlework_main
from builders.options import spec_from_options
from builders.registry import REGISTERED
from eval.cli import main as eval_main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOCUMENTS = (README, *sorted(DOCS.rglob("*.md")))
"""The README and every documentation page."""
PROGRAMS = {"needlework": needlework_main, "python -m eval": eval_main}
SET_UP = (
    'python -m pip install . && needlework build demo --out demo-releases && needlework validate demo-releases/rulerv2',
    'python -m pip install ".[test]" && python -m pytest',
)
"""The README's two set-up commands, as ``.ci/run`` reads and runs them."""
README_MAX_LINES = 150


def shell_commands(path: Path) -> list[tuple[int, str]]:
    """The ``needlework`` and ``python -m eval`` commands of a Markdown file's shell blocks, with the line
    each starts on: continuations joined, comments and ``&&`` chains split off; an elided command
    (``...``) is left out. Fences may be indented (inside a list)."""
    commands: list[tuple[int, str]] = []
    fence, pending, start = None, "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip().startswith("```"):
            fence = line.strip()[3:].strip() if fence is None else None
            continue
        if fence not in ("bash", "sh", "shell", "console"):
            continue
        if not pending:
            start = number
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        for part in pending.split("&&"):
            command = part.split(" #", 1)[0].strip()
            if command.startswith(tuple(p + " " for p in PROGRAMS)) and "..." not in command:
                commands.append((start, command))
        pending = ""
    return commands


COMMANDS = [(f"{path.relative_to(ROOT).as_posix()}:{line}", command)
            for path in DOCUMENTS for line, command in shell_commands(path)]


def parse(command: str) -> tuple[click.Command, click.Context]:
    """Resolve ``command`` down to its leaf command and parse its arguments (click's own checks).

    The documents' commands give no group-level option, so each group's first argument names its
    subcommand.
    """
    program = next(p for p in PROGRAMS if command.startswith(p + " "))
    leaf: click.Command = PROGRAMS[program]
    args = shlex.split(command[len(program):])
    parent = click.Context(leaf, info_name=program)
    while isinstance(leaf, click.Group):
        name, *args = args
        found = leaf.get_command(parent, name)
        assert found is not None, f"{program}: no command {name!r}"
        parent, leaf = click.Context(found, info_name=name, parent=parent), found
    return leaf, leaf.make_context(leaf.name or "", args, parent=parent.parent)


def test_the_documents_show_commands_of_every_builder_and_of_eval():
    shown = {c.split()[2] for _, c in COMMANDS if c.startswith("needlework build ")}
    assert {b.id for b in REGISTERED} | {"demo"} <= shown
    assert any(c.startswith("python -m eval run ") for _, c in COMMANDS)


@pytest.mark.parametrize("builder", [b.id for b in REGISTERED])
def test_every_builder_has_a_page_that_shows_its_build(builder):
    page = DOCS / "benchmarks" / f"{builder}.md"
    assert page.is_file(), f"no documentation page {page.relative_to(ROOT)}"
    assert any(c.startswith(f"needlework build {builder} ") for _, c in shell_commands(page))


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[where for where, _ in COMMANDS])
def test_documented_command_parses(where, command):
    leaf, context = parse(command)
    builder = next((b for b in REGISTERED if command.startswith(f"needlework build {b.id} ")), None)
    if builder is not None:
        values = {k: v for k, v in context.params.items() if k not in ("out", "quiet")}
        spec_from_options(builder.spec, values)  # the spec's own validation accepts the values
    assert leaf.callback is not None


def test_the_readme_starts_with_the_two_set_up_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "```bash", "README.md must start with a fenced block (.ci/run reads it)"
    assert tuple(lines[1:3]) == SET_UP
    assert lines[3] == "```"


def test_the_readme_is_short_and_its_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t and not t.startswith("#")]
    assert targets, "the README links into docs/"
    for target in targets:
        assert (ROOT / target.split("#", 1)[0]).exists(), f"README.md links to a missing {target}"
