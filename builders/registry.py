"""Every benchmark builder, in the order the CLI lists them and the demo builds them.

The table holds what the command line needs without building anything: each benchmark's id, where
its build spec is (a light module, :mod:`builders.specs`, imported when the command is named) and the
module that builds it, which is imported only when a build runs (:meth:`Registered.builder`). So ``needlework build <id> --help`` reads the
options from the spec and never loads ``datasets``, the retrievers or the EMB-S stack.

Adding a benchmark adds one line here; the ``needlework build`` command, the demo and the contract
tests pick it up from this table.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from builders.options import spec_summary
from needlework.checks import require_one_of

if TYPE_CHECKING:
    from builders.base import Builder


@dataclass(frozen=True)
class Registered:
    """One benchmark as the registry lists it.

    Attributes:
        id: The benchmark's id (command name, demo folder, manifest ``benchmark``): its generator's
            ``BENCHMARK``, written out so that naming one benchmark imports no other's modules
            (tests/builders/test_registry.py checks that they are equal).
        spec_path: ``module:Class`` of its build-spec dataclass, whose fields are the command's options.
        module: The module whose ``BUILDER`` builds it (imported on first use).
    """

    id: str
    spec_path: str
    module: str

    @property
    def spec(self) -> type:
        """The build-spec dataclass (importing its light module now)."""
        module, _, name = self.spec_path.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def summary(self) -> str:
        """One line on what the builder builds (the first line of the spec's docstring)."""
        return spec_summary(self.spec, self.id)

    def builder(self) -> Builder:
        """The benchmark's :class:`builders.base.Builder`, importing its module (and its heavy libraries) now."""
        return importlib.import_module(self.module).BUILDER


REGISTERED: tuple[Registered, ...] = (
    Registered("rulerv2", "builders.specs.rulerv2:RulerV2Build", "builders.rulerv2"),
    Registered("needlebench", "builders.specs.needlebench:NeedleBenchBuild", "builders.needlebench"),
    Registered("world", "builders.specs.world:WorldBuild", "builders.world"),
    Registered("haystackcraft", "builders.specs.haystackcraft:HaystackCraftBuild", "builders.haystackcraft"),
    Registered("sequential-niah", "builders.specs.sequential_niah:SequentialNiahBuild", "builders.sequential_niah"),
    Registered("embs", "builders.specs.embs:EmbsBuild", "builders.embs"),
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
