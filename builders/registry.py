"""Every benchmark builder, in the order the CLI lists them and the demo builds them.

The table holds what the command line needs without building anything: each benchmark's id, its
build spec (a light module, :mod:`builders.specs`) and the module that builds it, which is imported
only when a build runs (:meth:`Registered.builder`). So ``needlework build <id> --help`` reads the
options from the spec and never loads ``datasets``, the retrievers or the EMB-S stack.

Adding a benchmark adds one line here; the ``needlework build`` command, the demo and the contract
tests pick it up from this table.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from builders.options import spec_summary
from builders.specs.embs import EmbsBuild
from builders.specs.haystackcraft import HaystackCraftBuild
from builders.specs.needlebench import NeedleBenchBuild
from builders.specs.rulerv2 import RulerV2Build
from builders.specs.sequential_niah import SequentialNiahBuild
from builders.specs.world import WorldBuild
from generators.embs.spec import BENCHMARK as EMBS
from generators.haystackcraft.spec import BENCHMARK as HAYSTACKCRAFT
from generators.needlebench.spec import BENCHMARK as NEEDLEBENCH
from generators.rulerv2.spec import BENCHMARK as RULERV2
from generators.sequential_niah.spec import BENCHMARK as SEQUENTIAL_NIAH
from generators.world.spec import BENCHMARK as WORLD
from needlework.checks import require_one_of

if TYPE_CHECKING:
    from builders.base import Builder


@dataclass(frozen=True)
class Registered:
    """One benchmark as the registry lists it.

    Attributes:
        id: The benchmark's id (command name, demo folder, manifest ``benchmark``).
        spec: Its build-spec dataclass, whose fields are the command's options.
        module: The module whose ``BUILDER`` builds it (imported on first use).
    """

    id: str
    spec: type
    module: str

    @property
    def summary(self) -> str:
        """One line on what the builder builds (the first line of the spec's docstring)."""
        return spec_summary(self.spec, self.id)

    def builder(self) -> Builder:
        """The benchmark's :class:`builders.base.Builder`, importing its module (and its heavy libraries) now."""
        return importlib.import_module(self.module).BUILDER


REGISTERED: tuple[Registered, ...] = (
    Registered(RULERV2, RulerV2Build, "builders.rulerv2"),
    Registered(NEEDLEBENCH, NeedleBenchBuild, "builders.needlebench"),
    Registered(WORLD, WorldBuild, "builders.world"),
    Registered(HAYSTACKCRAFT, HaystackCraftBuild, "builders.haystackcraft"),
    Registered(SEQUENTIAL_NIAH, SequentialNiahBuild, "builders.sequential_niah"),
    Registered(EMBS, EmbsBuild, "builders.embs"),
)
IDS: tuple[str, ...] = tuple(r.id for r in REGISTERED)


def registered(name: str) -> Registered:
    """The registry entry whose id is ``name``; the error lists every registered id."""
    require_one_of("builder", name, IDS)
    return REGISTERED[IDS.index(name)]


def builder_named(name: str) -> Builder:
    """The builder whose id is ``name`` (its module imported now); the error lists every registered id."""
    return registered(name).builder()


def all_builders() -> tuple[Builder, ...]:
    """Every builder, in registry order (imports every builder module: for the demo and the contract tests)."""
    return tuple(r.builder() for r in REGISTERED)
