"""Sequential-NIAH's block of the results: accuracy by group (Figure 5) and the noise analysis (Table 5).

The block is computed by :func:`sequential_niah_summary` from scored samples (a sample's score is
1 for a correct answer, 0 otherwise; a sample that ended in an error counts 0):

- ``overall`` and ``by`` (``length_bucket``, ``needle_count``, ``pipeline``, ``lang``): accuracy
  over the original rows (``variant == "original"``; an original that appears in several configs
  counts once, the first);
- ``noise``: the paper's Table 5 over the original rows that have noisy variants in the run. For
  each noise type ``T`` (the ``variant`` before its ``/``: ``tiny-movement/1`` is type
  ``tiny-movement``, shown TM; SM, RO and SN likewise):

      Acc._T  = mean correctness over those originals and all their T variants
      Cons._T = share of those originals whose correctness equals that of every T variant

  ``Ref.`` is the accuracy of the originals alone; ``All`` pools every type (Acc. over originals
  and all variants; Cons.: the same correctness in every variant of every type). The paper's
  Table 5 bears this reading out: its ``All`` Acc. is the sample-weighted mean of Ref. and the
  per-type variant accuracies;
- ``judge_accuracy``: when the run is a judge's run over labelled candidates (``judge-test``), the
  judge's accuracy in the layouts of Tables 4 and 6 (:mod:`eval.benchmarks.sequential_niah.judge_accuracy`).

It is the benchmark's ``summarize``, written into the results' ``scores`` under the benchmark's id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from eval.benchmarks.sequential_niah.judge_accuracy import judge_accuracy_summary
from eval.benchmarks.sequential_niah.task import TASK_NAMES
from eval.scored import ScoredSample
from generators.sequential_niah.spec import LANGS, LENGTH_BUCKETS, PIPELINES

ORIGINAL = "original"
NOISE_LABELS: dict[str, str] = {"tiny-movement": "TM", "significant-movement": "SM", "reorder": "RO",
                                "semantic-noise": "SN"}
"""Noise type (the variant's prefix) -> the paper's column name, in Table 5 order."""
GROUP_COLUMNS: dict[str, str] = {"length_bucket": "(a) length", "needle_count": "(b) number of needles",
                                 "pipeline": "(c) needle pipeline", "lang": "(d) language"}
"""Metadata column -> Figure 5 panel."""


def is_correct(sample: ScoredSample) -> bool:
    """Whether a sample counts as a correct answer: no error and a score of at least 0.5."""
    return not sample.error_kind and float(sample.score or 0.0) >= 0.5


def _accuracy(values: Sequence[bool]) -> dict[str, Any]:
    return {"accuracy": round(sum(values) / len(values), 6) if values else None, "n": len(values)}


def noise_type(variant: str) -> str:
    """The noise type of a variant: ``tiny-movement/1`` -> ``tiny-movement``."""
    return variant.split("/", 1)[0]


def type_order(name: str) -> tuple[int, str]:
    """Sort key of a noise type: Table 5's order (:data:`NOISE_LABELS`), unknown ones last by name."""
    order = list(NOISE_LABELS)
    return (order.index(name) if name in order else len(order), name)


def group_order(column: str, value: str) -> tuple[int, float, str]:
    """Sort key of a group value of ``column``: the spec's order for buckets, pipelines and languages, else numeric."""
    known = {"length_bucket": [b.name for b in LENGTH_BUCKETS], "pipeline": list(PIPELINES), "lang": list(LANGS)}
    if column in known:
        return (known[column].index(value) if value in known[column] else len(known[column]), 0.0, value)
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def noise_analysis(originals: Mapping[str, bool], variants: Sequence[tuple[str, str, bool]]) -> dict[str, Any] | None:
    """Table 5 from the originals' correctness and the variants' (original id, variant, correctness).

    Returns:
        ``{"ref", "n_originals", "types", "by_type": {type: {"label", "acc", "cons", "n_originals",
        "n_variants"}}, "all": {...}, "orphan_variants"}`` (fractions in [0, 1]), or None when no
        variant has its original in the run.
    """
    by_original: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    orphans = 0
    for original_id, variant, correct in variants:
        if original_id in originals:
            by_original[original_id][noise_type(variant)].append(correct)
        else:
            orphans += 1
    if not by_original:
        return None
    types = sorted({t for groups in by_original.values() for t in groups}, key=type_order)

    def block(selected: Sequence[str]) -> dict[str, Any]:
        rows = [(originals[o], [v for t in selected for v in by_original[o].get(t, [])]) for o in sorted(by_original)]
        rows = [(c, vs) for c, vs in rows if vs]
        values = [v for c, vs in rows for v in (c, *vs)]
        consistent = sum(all(v == c for v in vs) for c, vs in rows)
        return {"acc": round(sum(values) / len(values), 6), "cons": round(consistent / len(rows), 6),
                "n_originals": len(rows), "n_variants": len(values) - len(rows)}

    ref = [originals[o] for o in sorted(by_original)]
    return {"ref": round(sum(ref) / len(ref), 6), "n_originals": len(ref), "types": types,
            "by_type": {t: {"label": NOISE_LABELS.get(t, t), **block([t])} for t in types},
            "all": block(types), "orphan_variants": orphans}


def sequential_niah_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The Sequential-NIAH block (module docstring) from scored samples, with ``judge_accuracy`` (Tables 4
    and 6, :func:`eval.benchmarks.sequential_niah.judge_accuracy.judge_accuracy_summary`) when the run
    judged labelled candidates; None without either kind of sample."""
    block = sample_summary(scored) or {}
    judged = judge_accuracy_summary(scored)
    if judged:
        block["judge_accuracy"] = judged
    return block or None


def sample_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """Accuracy by group and Table 5 (module docstring) from scored samples; None without Sequential-NIAH samples.

    Samples need the task's metadata (``variant``, ``original_id``, ``length_bucket``,
    ``needle_count``, ``pipeline``, ``lang``); samples with neither a score nor an error
    (missing) are left out.
    """
    samples = [s for s in scored if s.task in TASK_NAMES and (s.score is not None or s.error_kind)]
    if not samples:
        return None
    originals: dict[str, ScoredSample] = {}
    variants: list[tuple[str, str, bool]] = []
    for sample in samples:
        variant = str(sample.metadata.get("variant") or ORIGINAL)
        original_id = str(sample.metadata["original_id"])
        if variant == ORIGINAL:
            originals.setdefault(original_id, sample)
        else:
            variants.append((original_id, variant, is_correct(sample)))
    by: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for sample in originals.values():
        for column in GROUP_COLUMNS:
            if sample.metadata.get(column) is not None:
                by[column][str(sample.metadata[column])].append(is_correct(sample))
    groups = {column: sorted(by[column], key=lambda v, c=column: group_order(c, v)) for column in GROUP_COLUMNS
              if column in by}
    return {
        "overall": {**_accuracy([is_correct(s) for s in originals.values()]),
                    "n_errors": sum(1 for s in originals.values() if s.error_kind)},
        "by": {column: {value: _accuracy(by[column][value]) for value in values} for column, values in groups.items()},
        "noise": noise_analysis({o: is_correct(s) for o, s in originals.items()}, variants),
    }
