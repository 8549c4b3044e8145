"""EverMemBench-S's block of the results: evidence access and answers per system and ladder scale.

A *system* is how the evidence reached the model: ``long-context`` (the whole corpus of the scale)
or ``rag:<retriever>`` (that retriever's top documents). Per system and scale:

- localization (``embs/localize``, A.5): R@1 over single-source queries, SR@10 over all, FR@10
  over multi-source queries, each with its n; ``unparsed`` answers (no integer) score 0 and are
  counted;
- QA (``embs/qa``): the rule check's mean (the 0–5 judge is read from the judge log by the report);
- the window rule (A.2): samples whose prompt was over the model's window are ``skipped_window``,
  never truncated. They are left out of every mean (the scale was not evaluated, Table 4's "–"),
  counted, and a scale's ``window`` says whether the model took it: ``fits``, ``partial`` or
  ``over``. Samples that failed otherwise score 0, as everywhere in eval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from eval.benchmarks.embs.tasks import LOCALIZE, QA, TASK_NAMES
from eval.scored import ScoredSample, mean_score
from generators.embs.spec import scale_sort_key

SKIPPED_WINDOW = "skipped_window"


def system_of(metadata: Mapping[str, Any]) -> str:
    """``long-context`` or ``rag:<retriever>``: how a sample's evidence reached the model."""
    retriever = metadata.get("retriever")
    return f"rag:{retriever}" if retriever else "long-context"


def window_status(evaluated: int, skipped: int) -> str:
    """``fits`` (every prompt was sent), ``over`` (none was: the scale exceeds the window) or ``partial``."""
    return "over" if evaluated == 0 and skipped else "partial" if skipped else "fits"


def embs_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The EMB-S block (module docstring): ``{"scales": [...], "systems": {system: {scale: cell}}}``.

    A cell holds ``window``, ``skipped_window``, and, for the tasks present, ``localize``
    (``r1``/``n_single``, ``sr10``/``n``, ``fr10``/``n_multi``, ``unparsed``, ``n_errors``) and ``qa``
    (``rule``, ``n``, ``n_errors``). Means are None over an empty subset.
    """
    samples = [s for s in scored if s.task in TASK_NAMES]
    if not samples:
        return None
    groups: dict[tuple[str, str], list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        groups[(system_of(sample.metadata), str(sample.metadata["scale"]))].append(sample)
    systems: dict[str, dict[str, Any]] = defaultdict(dict)
    for (system, scale), group in sorted(groups.items(), key=lambda kv: (kv[0][0], scale_sort_key(kv[0][1]))):
        skipped = [s for s in group if s.error_kind == SKIPPED_WINDOW]
        evaluated = [s for s in group if s.error_kind != SKIPPED_WINDOW]
        cell: dict[str, Any] = {"window": window_status(len(evaluated), len(skipped)), "skipped_window": len(skipped)}
        localize = [s for s in evaluated if s.task == LOCALIZE]
        if localize or any(s.task == LOCALIZE for s in skipped):
            cell["localize"] = localization_cell(localize)
        qa = [s for s in evaluated if s.task == QA]
        if qa or any(s.task == QA for s in skipped):
            cell["qa"] = {"rule": mean_score(_value(s) for s in qa), "n": len(qa),
                          "n_errors": sum(1 for s in qa if s.error_kind)}
        systems[system][scale] = cell
    scales = sorted({scale for _, scale in groups}, key=scale_sort_key)
    return {"k": 10, "scales": scales, "systems": dict(systems)}


def localization_cell(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """R@1 (single-source), SR@10 (all), FR@10 (multi-source) of evaluated localization samples (A.5).

    A sample that failed scores 0 in each metric that applies to it (its gold count says which).
    """
    single = [s for s in samples if int(s.metadata["n_refs"]) == 1]
    multi = [s for s in samples if int(s.metadata["n_refs"]) > 1]
    return {
        "r1": mean_score(_value(s, "r1") for s in single), "n_single": len(single),
        "sr10": mean_score(_value(s) for s in samples), "n": len(samples),
        "fr10": mean_score(_value(s, "fr10") for s in multi), "n_multi": len(multi),
        "unparsed": sum(1 for s in samples if not s.error_kind and not s.extra.get("parsed")),
        "n_errors": sum(1 for s in samples if s.error_kind),
    }


def _value(sample: ScoredSample, extra: str | None = None) -> float:
    """The sample's score (or secondary score ``extra``); 0 for a sample that failed."""
    if sample.error_kind:
        return 0.0
    return float(sample.extra.get(extra, 0.0)) if extra else float(sample.score or 0.0)
