"""``needlework build demo``: every benchmark implemented so far, small, on its embedded default."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from builders import haystackcraft, needlebench, rulerv2, sequential_niah, world
from generators.rulerv2.spec import RulerOptions
from needlework.tokens import TokenCounter
from generators.world.spec import WorldSpec
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer

DEMO_LENGTHS = (4096, 8192, 16384)
DEMO_SAMPLES = 10
DEMO_WORLD = WorldSpec(docs=400, questions=100)
DEMO_NEEDLEBENCH_LENGTHS = (2000, 4000, 8000)
DEMO_NEEDLEBENCH_DEPTHS = (0.0, 25.0, 50.0, 75.0, 100.0)
DEMO_ATC_NEEDLES = (2, 4, 8, 16, 32, 64)
DEMO_REPEATS = 2
DEMO_HAYSTACKCRAFT = haystackcraft.HaystackCraftBuild(
    world_docs=400, world_questions=30, strategies=("bm25", "bm25+ppr"), sizes=(0, 2_000, 4_000, 8_000), top_k=200,
)
"""BM25 strategies only: the dense ones need the ``dense`` extra, which the base install leaves out."""
DEMO_SEQUENTIAL_NIAH = sequential_niah.SequentialNiahBuild(
    size=60, buckets=("8k-16k",), noise_samples=4, judge_train=80, judge_test=40, world_docs=400,
)
"""Every pipeline, language, noise type and judge set, in the shortest bucket."""


@dataclass(frozen=True)
class DemoReport:
    """Where each benchmark's demo release was written."""

    releases: dict[str, Path]


def build_demo(out: Path, *, seed: int = 0, tokenizer: str = DEFAULT_TOKENIZER, progress: bool = True) -> DemoReport:
    """Build one small release per benchmark under ``out/<benchmark>``, offline."""
    tokens: TokenCounter = load_tokenizer(tokenizer)
    out = Path(out)
    options = RulerOptions(lengths=DEMO_LENGTHS, samples=DEMO_SAMPLES, golden=True)
    spec = rulerv2.RulerV2Build(seed=seed, tokenizer=tokenizer, options=options)
    rulerv2.build(spec, out / "rulerv2", tokens=tokens, progress=progress)
    small = needlebench.NeedleBenchBuild(lengths=DEMO_NEEDLEBENCH_LENGTHS, depths=DEMO_NEEDLEBENCH_DEPTHS, repeats=DEMO_REPEATS,
                                         atc_needles=DEMO_ATC_NEEDLES, seed=seed, tokenizer=tokenizer)
    needlebench.build(small, out / "needlebench", tokens=tokens, progress=progress)
    world.build(world.WorldBuild(DEMO_WORLD, seed, tokenizer), out / "world", tokens=tokens, progress=progress)
    haystack = replace(DEMO_HAYSTACKCRAFT, seed=seed, tokenizer=tokenizer)
    haystackcraft.build(haystack, out / "haystackcraft", tokens=tokens, progress=progress)
    sequential = replace(DEMO_SEQUENTIAL_NIAH, seed=seed, tokenizer=tokenizer)
    sequential_niah.build(sequential, out / "sequential-niah", tokens=tokens, progress=progress)
    names = ("rulerv2", "needlebench", "world", "haystackcraft", "sequential-niah")
    return DemoReport({name: out / name for name in names})
