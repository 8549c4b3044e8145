"""The arrows of DESIGN.md, read from the source: which package may import which, and no cycles.

``generators -> needlework``; ``builders -> generators, needlework`` (EMB-S's real-source LLM stages call a
model through ``needlework.backends``, the layer both use); ``eval -> generators,
needlework`` (and ``builders.retrieval`` only, for dynamic NIAH and RAG); ``needlework`` imports no
layer above it. No files form a circle through any import (inside functions and under ``TYPE_CHECKING``
included), and no benchmark module of eval imports eval's commands or run loop. The graph is read with ``ast`` from every module of
the packages, so a new file is checked the moment it exists.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("needlework", "generators", "builders", "eval", "cards")
ALLOWED: dict[str, tuple[str, ...]] = {
    "needlework": (),
    "generators": ("needlework",),
    # builders never import eval: EMB-S's real-source LLM stages (spec evermembench-s §2, §3) call a model
    # through needlework.backends, as eval's runs and judge do.
    "builders": ("generators", "needlework", "cards"),
    "eval": ("generators", "needlework", "builders.retrieval"),
    "cards": (),
}
"""Package -> the other packages (or subpackages) it may import."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is, and whether it runs when the module loads."""

    source: str
    target: str
    line: int
    module_level: bool


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved against ``module``)."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> list[Import]:
    module = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = {id(node) for node in tree.body}
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = resolve(module, path, node)
            # "from pkg import module" names a module when pkg is a package of ours.
            targets = [f"{base}.{alias.name}" if (ROOT / Path(*base.split("."), alias.name)).exists()
                       or (ROOT / Path(*base.split("."), f"{alias.name}.py")).exists() else base for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in PACKAGES:
                found.append(Import(module, target, node.lineno, id(node) in top))
    return found


def all_imports() -> list[Import]:
    return [i for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")) for i in imports_of(path)]


IMPORTS = all_imports()


def allowed(source: str, target: str) -> bool:
    package = source.split(".")[0]
    if target.split(".")[0] == package:
        return True
    return any(target == a or target.startswith(a + ".") for a in ALLOWED[package])


def test_the_graph_was_read():
    sources = {i.source for i in IMPORTS}
    assert {"builders.cli", "eval.runner", "generators.budget"} <= sources
    assert len(IMPORTS) > 300


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_design_allows(package):
    wrong = [f"{i.source}:{i.line} imports {i.target}" for i in IMPORTS
             if i.source.split(".")[0] == package and not allowed(i.source, i.target)]
    assert wrong == [], "\n".join(wrong)


def test_no_two_modules_import_each_other():
    edges = defaultdict(set)
    for i in IMPORTS:
        if i.source != i.target:
            edges[i.source].add(i.target)
    pairs = sorted({tuple(sorted((a, b))) for a, targets in edges.items() for b in targets if a in edges.get(b, ())})
    assert pairs == [], pairs


def test_no_file_circles():
    """No circle of files of any length through any import, those inside functions and under ``TYPE_CHECKING``
    included (a package's ``__init__`` counts as the package). Issue 42: ten files of eval were one circle because a
    benchmark module imported the runner and the report inside a function."""
    graph = defaultdict(set)
    for i in IMPORTS:
        if i.source != i.target and not i.source.startswith(i.target + "."):
            graph[i.source].add(i.target)
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == [], cycles


RUN_LAYER = ("eval.runner", "eval.report", "eval.cli", "eval.judge", "eval.judge_accuracy")
"""eval's commands and the run loop: they import the benchmarks (the registry), never the other way."""


def test_no_benchmark_module_imports_the_run_layer():
    """A benchmark declares what eval needs (:class:`eval.benchmark.Benchmark`); commands that run it live above."""
    wrong = [f"{i.source}:{i.line} imports {i.target}" for i in IMPORTS if i.source.startswith("eval.benchmarks")
             and any(i.target == m or i.target.startswith(m + ".") for m in RUN_LAYER)]
    assert wrong == [], "\n".join(wrong)


def test_the_checker_catches_a_forbidden_arrow(tmp_path):
    """The rules are not vacuous: a generator importing a builder is refused."""
    assert not allowed("generators.budget", "builders.release")
    assert not allowed("needlework.tokens", "generators.budget")
    assert not allowed("eval.runner", "builders.release")
    assert allowed("eval.agentic", "builders.retrieval.bm25")
    assert allowed("builders.rulerv2", "generators.rulerv2.spec")
    assert not allowed("builders.embs_llm", "eval.runner")
