"""Every benchmark builder, in the order the CLI lists them and the demo builds them.

Adding a benchmark adds one line here (its module's :class:`builders.base.Builder` record); the
``needlework build`` command, the demo and the contract tests pick it up from this table.
"""

from __future__ import annotations

from builders import embs, haystackcraft, needlebench, rulerv2, sequential_niah, world
from builders.base import Builder
from needlework.errors import SpecError

BUILDERS: tuple[Builder, ...] = (
    rulerv2.BUILDER,
    needlebench.BUILDER,
    world.BUILDER,
    haystackcraft.BUILDER,
    sequential_niah.BUILDER,
    embs.BUILDER,
)


def builder_named(name: str) -> Builder:
    """The builder whose id is ``name``; the error lists every registered id."""
    for builder in BUILDERS:
        if builder.id == name:
            return builder
    raise SpecError(f"no builder {name!r}; builders: {', '.join(b.id for b in BUILDERS)}")
