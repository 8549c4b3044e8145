"""aggregate_scores writes each registered benchmark's summary under its id, from its own samples only."""

from __future__ import annotations

from typing import Any

import eval.results
from eval.benchmark import Benchmark
from eval.benchmarks import BENCHMARK_OF_TASK, BENCHMARKS, get_task
from eval.benchmarks.embs.summary import embs_summary
from eval.benchmarks.haystackcraft.summary import haystackcraft_summary
from eval.benchmarks.needlebench.summary import needlebench_summary
from eval.benchmarks.sequential_niah.summary import sequential_niah_summary
from eval.results import aggregate_scores
from eval.scored import ScoredSample


def sample(key: str, task: str, metadata: dict[str, Any], score: float | None = 1.0, error: str | None = None,
           **extra: float) -> ScoredSample:
    return ScoredSample(key, task.split("/")[1], task, metadata, score, error, extra)


def mixed_samples() -> list[ScoredSample]:
    """Two samples of each benchmark (one right, one wrong) and one missing sample."""
    ruler = {"length": 4096, "depth": 50, "domain": "mk_niah", "level": "basic"}
    needle = {"length": 1000, "depth": 50, "lang": "en", "needle_count": 1, "question_type": "retrieval",
              "n_tokens": 1000}
    static = {"strategy": "bm25", "retriever": "bm25", "ppr": False, "ordering": "descending", "size": 8000,
              "hops": 2, "qid": "q1", "source": "musique"}
    ordered = {"length_bucket": "8k-16k", "needle_count": 3, "pipeline": "synthetic-temporal", "lang": "en",
               "ordered": True, "variant": "original", "original_id": "o1", "qid": "q-o1", "n_tokens": 9000}
    embs = {"scale": "64K", "tier": "domain", "domain": "law", "kind": "single", "track": "none", "lang": "en",
            "regime": "long-context", "retriever": "", "qid": "q1", "n_refs": 1, "context_tokens": 64000}
    return [
        sample("r1", "rulerv2/mk_niah_basic", ruler), sample("r2", "rulerv2/mk_niah_basic", ruler, 0.0),
        sample("n1", "needlebench/s-rt", needle), sample("n2", "needlebench/s-rt", {**needle, "lang": "zh"}, 0.0),
        sample("h1", "haystackcraft/static", static, 1.0, em=1.0),
        sample("h2", "haystackcraft/static", {**static, "qid": "q2"}, 0.5, em=0.0),
        sample("s1", "sequential-niah/ordered", ordered),
        sample("s2", "sequential-niah/ordered", {**ordered, "original_id": "o2", "qid": "q-o2"}, 0.0, "timeout"),
        sample("missing", "sequential-niah/ordered", {**ordered, "original_id": "o3"}, None),
        sample("e1", "embs/localize", embs, 1.0, r1=1.0, parsed=1.0),
        sample("e2", "embs/localize", {**embs, "scale": "128K", "qid": "q2"}, 0.0, "skipped_window"),
    ]


def test_each_benchmark_block_is_written_under_its_id():
    scored = mixed_samples()
    scores = aggregate_scores(scored, "metric")
    with_summary = [b.id for b in BENCHMARKS if b.summarize is not None]
    assert with_summary == ["needlebench", "haystackcraft", "sequential-niah", "embs"]
    assert [key for key in scores if key in {b.id for b in BENCHMARKS}] == with_summary  # RULERv2 has no block
    counted = [s for s in scored if s.score is not None or s.error_kind]
    assert scores["needlebench"] == needlebench_summary(counted)
    assert scores["haystackcraft"] == haystackcraft_summary(counted)
    assert scores["sequential-niah"] == sequential_niah_summary(counted)
    assert scores["sequential-niah"]["overall"] == {"accuracy": 0.5, "n": 2, "n_errors": 1}
    assert scores["embs"] == embs_summary(counted)
    assert scores["embs"]["systems"]["long-context"] == {
        "64K": {"window": "fits", "skipped_window": 0, "localize": {"r1": 1.0, "n_single": 1, "sr10": 1.0, "n": 1,
                                                                    "fr10": None, "n_multi": 0, "unparsed": 0, "n_errors": 0}},
        "128K": {"window": "over", "skipped_window": 1, "localize": {"r1": None, "n_single": 0, "sr10": None, "n": 0,
                                                                     "fr10": None, "n_multi": 0, "unparsed": 0, "n_errors": 0}},
    }
    assert scores["overall"]["n"] == 10


def test_no_block_for_a_benchmark_without_samples():
    ruler_only = [s for s in mixed_samples() if s.task.startswith("rulerv2/")]
    scores = aggregate_scores(ruler_only, "metric")
    assert not {b.id for b in BENCHMARKS} & set(scores)


def test_a_summary_sees_only_its_own_counted_samples(monkeypatch):
    """The aggregation loops over the registry: a new benchmark's summary is called with its samples alone."""
    seen: list[list[str]] = []

    def summarize(samples):
        seen.append([s.key for s in samples])
        return {"n": len(samples)}

    toy = Benchmark(id="toy", tasks={"toy/echo": lambda options: get_task("rulerv2/mk_niah_basic", options)},
                    task_for_row=lambda row: "toy/echo", summarize=summarize)
    monkeypatch.setattr(eval.results, "BENCHMARKS", (*BENCHMARKS, toy))
    monkeypatch.setitem(BENCHMARK_OF_TASK, "toy/echo", toy)
    scored = [*mixed_samples(), sample("t1", "toy/echo", {}), sample("t2", "toy/echo", {}, None),
              sample("t3", "toy/echo", {}, 0.0, "bad_request")]
    scores = aggregate_scores(scored, "metric")
    assert seen == [["t1", "t3"]] and scores["toy"] == {"n": 2}
    assert list(scores)[-1] == "toy"  # blocks follow the registry order
