"""MkDocs hook: the ``needlework`` command as the CLI reference documents it.

``needlework build`` makes one subcommand per registered benchmark only when it is named (so ``--help``
imports no other benchmark's spec); its ``commands`` dict holds ``demo`` alone. mkdocs-click documents a
group's ``commands`` when there are any, so it would show ``demo`` and nothing else. :data:`needlework` is
the same command tree with every subcommand the groups list, each made by the group itself
(``get_command``), so the reference is generated from the real options and cannot drift from them.

The reference pages name this module as ``needlework_docs_cli`` (a hook is loaded under its file path,
which is no module name).
"""

from __future__ import annotations

import sys

import click

from builders.cli import main


def listed(group: click.Group, ctx: click.Context) -> click.Group:
    """A plain :class:`click.Group` holding every subcommand ``group`` lists, nested groups included."""
    commands: dict[str, click.Command] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None:
            continue
        if isinstance(command, click.Group):
            command = listed(command, click.Context(command, info_name=name, parent=ctx))
        commands[name] = command
    return click.Group(name=group.name, commands=commands, params=group.params, help=group.help,
                       short_help=group.short_help, epilog=group.epilog, callback=group.callback)


needlework = listed(main, click.Context(main, info_name="needlework"))
sys.modules.setdefault("needlework_docs_cli", sys.modules[__name__])
