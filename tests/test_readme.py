"""Every command the README shows still parses: its subcommand exists, every flag is known, every value
is accepted, and a build's options make a valid spec. Nothing is built or run here (the two set-up
commands at the top of the README are what CI runs)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click
import pytest

from builders.cli import main as needlework_main
from builders.options import spec_from_options
from builders.registry import REGISTERED
from eval.cli import main as eval_main

README = Path(__file__).resolve().parents[1] / "README.md"
PROGRAMS = {"needlework": needlework_main, "python -m eval": eval_main}


def readme_commands() -> list[str]:
    """The ``needlework`` and ``python -m eval`` commands of the README's shell blocks, continuations
    joined, comments and ``&&`` chains split off; an elided command (``...``) is left out."""
    commands: list[str] = []
    fence, pending = None, ""
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = line.strip()[3:] if fence is None else None
            continue
        if fence not in ("bash", "sh"):
            continue
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        for part in pending.split("&&"):
            command = part.split(" #", 1)[0].strip()
            if command.startswith(tuple(p + " " for p in PROGRAMS)) and "..." not in command:
                commands.append(command)
        pending = ""
    return commands


COMMANDS = readme_commands()


def parse(command: str) -> tuple[click.Command, click.Context]:
    """Resolve ``command`` down to its leaf command and parse its arguments (click's own checks).

    The README's commands give no group-level option, so each group's first argument names its
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


def test_the_readme_shows_commands_of_every_builder_and_of_eval():
    shown = {c.split()[2] for c in COMMANDS if c.startswith("needlework build ")}
    assert {b.id for b in REGISTERED} | {"demo"} <= shown
    assert any(c.startswith("python -m eval run ") for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_parses(command):
    leaf, context = parse(command)
    builder = next((b for b in REGISTERED if command.startswith(f"needlework build {b.id} ")), None)
    if builder is not None:
        values = {k: v for k, v in context.params.items() if k not in ("out", "quiet")}
        spec_from_options(builder.spec, values)  # the spec's own validation accepts the values
    assert leaf.callback is not None
