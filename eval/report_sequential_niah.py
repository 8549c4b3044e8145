"""Sequential-NIAH in the report: accuracy by group (Figure 5) and the noise analysis (Table 5).

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
  per-type variant accuracies.

A run's block is ``scores.sequential_niah`` of ``results.json`` when the harness wrote one, else
it is computed from the run directory's ``run.json`` and ``samples.jsonl`` (:func:`scored_samples`).
When the run directory holds LLM-judge verdicts (``judge.jsonl``, from
:func:`eval.tasks.sequential_niah.judge_run`), a ``judge`` block adds the judge's accuracy on the
originals and its agreement with the rule scorer.

Wiring into :func:`eval.report.write_report`, as HaystackCraft is: draw
:func:`sequential_niah_plots` into the output folder, then append
:func:`sequential_niah_section` (runs, ``{view: file name}``) to the Markdown.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.report_needlebench import points
from eval.report_runs import Run, markdown_table
from eval.store import RunDirectory
from eval.tasks.sequential_niah import TASK_NAMES, read_verdicts
from generators.sequential_niah.spec import LANGS, LENGTH_BUCKETS, PIPELINES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from eval.results import ScoredSample

ORIGINAL = "original"
NOISE_LABELS: dict[str, str] = {"tiny-movement": "TM", "significant-movement": "SM", "reorder": "RO",
                                "semantic-noise": "SN"}
"""Noise type (the variant's prefix) -> the paper's column name, in Table 5 order."""
GROUP_COLUMNS: dict[str, str] = {"length_bucket": "(a) length", "needle_count": "(b) number of needles",
                                 "pipeline": "(c) needle pipeline", "lang": "(d) language"}
"""Metadata column -> Figure 5 panel."""
GROUPS_PLOT = "sequential_niah_groups.png"


# Summary -----------------------------------------------------------------------------------------------


def _correct(sample: ScoredSample) -> bool:
    return not sample.error_kind and float(sample.score or 0.0) >= 0.5


def _accuracy(values: Sequence[bool]) -> dict[str, Any]:
    return {"accuracy": round(sum(values) / len(values), 6) if values else None, "n": len(values)}


def noise_type(variant: str) -> str:
    """The noise type of a variant: ``tiny-movement/1`` -> ``tiny-movement``."""
    return variant.split("/", 1)[0]


def _type_order(name: str) -> tuple[int, str]:
    order = list(NOISE_LABELS)
    return (order.index(name) if name in order else len(order), name)


def _group_order(column: str, value: str) -> tuple[int, float, str]:
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
    types = sorted({t for groups in by_original.values() for t in groups}, key=_type_order)

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
    """The Sequential-NIAH block (module docstring) from scored samples; None without such samples.

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
            variants.append((original_id, variant, _correct(sample)))
    by: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for sample in originals.values():
        for column in GROUP_COLUMNS:
            if sample.metadata.get(column) is not None:
                by[column][str(sample.metadata[column])].append(_correct(sample))
    groups = {column: sorted(by[column], key=lambda v, c=column: _group_order(c, v)) for column in GROUP_COLUMNS
              if column in by}
    return {
        "overall": {**_accuracy([_correct(s) for s in originals.values()]),
                    "n_errors": sum(1 for s in originals.values() if s.error_kind)},
        "by": {column: {value: _accuracy(by[column][value]) for value in values} for column, values in groups.items()},
        "noise": noise_analysis({o: _correct(s) for o, s in originals.items()}, variants),
    }


def scored_samples(run_dir: Path, *, judge: bool = False) -> list[ScoredSample]:
    """A run's samples scored from ``run.json`` and ``samples.jsonl`` (as ``python -m eval score`` does).

    With ``judge=True`` the Sequential-NIAH samples take the LLM judge's verdicts from
    ``judge.jsonl`` instead (1 for correct, 0 for incorrect or unreadable; no verdict: missing).
    """
    from dataclasses import replace

    from eval.results import score_samples
    from eval.store import RunDirectory
    from eval.tasks import TaskOptions

    directory = RunDirectory(run_dir)
    saved = directory.read_run()
    scored = score_samples(saved["expected"], directory.latest_samples(), TaskOptions(**saved["run"]["task_options"]))
    if not judge:
        return scored
    verdicts = read_verdicts(Path(run_dir))
    judged = []
    for sample in scored:
        if sample.task in TASK_NAMES and not sample.error_kind:
            verdict = verdicts.get(sample.key)
            sample = replace(sample, score=None if verdict is None or verdict.error else float(bool(verdict.correct)))
        judged.append(sample)
    return judged


def judge_block(rule: Sequence[ScoredSample], judged: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The judge's accuracy on the original rows and its agreement with the rule scorer there."""
    by_key = {s.key: s for s in rule}
    pairs = [(by_key[s.key], s) for s in judged if s.task in TASK_NAMES and s.score is not None and not s.error_kind
             and str(s.metadata.get("variant") or ORIGINAL) == ORIGINAL]
    if not pairs:
        return None
    return {"accuracy": round(sum(_correct(j) for _, j in pairs) / len(pairs), 6),
            "agreement": round(sum(_correct(r) == _correct(j) for r, j in pairs) / len(pairs), 6), "n": len(pairs)}


def summary(run: Run) -> Mapping[str, Any]:
    """The run's Sequential-NIAH block: ``scores.sequential_niah``, else computed from its samples;
    with a ``judge`` block when the run directory holds judge verdicts. Empty for other runs."""
    tasks = (run.scores.get("by") or {}).get("task") or {}
    if not any(task in TASK_NAMES for task in tasks):
        return {}
    directory = RunDirectory(run.directory)
    if not directory.is_run():
        return dict(run.scores.get("sequential_niah") or {})
    return _computed(str(directory.path.resolve()), directory.stamp(),
                     json.dumps(run.scores.get("sequential_niah"), sort_keys=True))


@lru_cache(maxsize=8)
def _computed(directory: str, _stamps: tuple[tuple[int, int], ...], saved: str) -> dict[str, Any]:
    """The block of a run directory, cached while its files are unchanged (the section and the plot share it)."""
    block = dict(json.loads(saved) or {})
    rule: list[ScoredSample] | None = None
    if not block:
        rule = scored_samples(Path(directory))
        block = dict(sequential_niah_summary(rule) or {})
    if block and RunDirectory(directory).has_judgements():
        rule = rule if rule is not None else scored_samples(Path(directory))
        block["judge"] = judge_block(rule, scored_samples(Path(directory), judge=True))
    return block


# Markdown -------------------------------------------------------------------------------------------------


def sequential_niah_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's Sequential-NIAH section: overall and group accuracy, Table 5, the judge.

    Args:
        runs: Every run of the report; those without Sequential-NIAH samples are left out.
        plots: Relative path of each plot drawn, by view (``"groups"``).

    Returns:
        Markdown lines; none when no run has Sequential-NIAH samples.
    """
    blocks = [(run, summary(run)) for run in runs]
    blocks = [(run, block) for run, block in blocks if block]
    if not blocks:
        return []
    lines = ["## Sequential-NIAH", "",
             ("Accuracy (%) over the original rows: an answer is correct when its items match every reference item, "
              "with no extra item and, where the question asks for order, in reference order (rule scorer)."), ""]
    lines += markdown_table(["run", "accuracy", "n", "errors"],
                            [[run.label, points(b["overall"]["accuracy"]), b["overall"]["n"], b["overall"]["n_errors"]]
                             for run, b in blocks])
    for column, title in GROUP_COLUMNS.items():
        values = _values(blocks, column)
        if not values:
            continue
        panel, name = title.split(" ", 1)
        rows = []
        for run, block in blocks:
            by_value = (block.get("by") or {}).get(column) or {}
            rows.append([run.label, *(points((by_value.get(v) or {}).get("accuracy")) for v in values)])
        lines += [f"### By {name} (Figure 5{panel})", "", *markdown_table(["run", *values], rows)]
    if "groups" in plots:
        lines += [f"![Sequential-NIAH accuracy by group]({plots['groups']})", ""]
    lines += noise_table(blocks)
    lines += judge_table(blocks)
    return lines


def _values(blocks: Sequence[tuple[Run, Mapping[str, Any]]], column: str) -> list[str]:
    values = {v for _, b in blocks for v in (b.get("by") or {}).get(column, {})}
    return sorted(values, key=lambda v: _group_order(column, v))


def noise_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """Table 5: per run, Acc. and Cons. (%) under each noise type and all together, with Ref."""
    noisy = [(run, b["noise"]) for run, b in blocks if b.get("noise")]
    if not noisy:
        return []
    types = sorted({t for _, n in noisy for t in n["types"]}, key=_type_order)
    header = ["model", "metric", "Ref.", *(NOISE_LABELS.get(t, t) for t in types), "All"]
    rows: list[list[object]] = []
    for run, noise in noisy:
        for metric, name in (("acc", "Acc."), ("cons", "Cons.")):
            ref = points(noise["ref"]) if metric == "acc" else "-"
            rows.append([run.label, name, ref, *(points((noise["by_type"].get(t) or {}).get(metric)) for t in types),
                         points(noise["all"][metric])])
    counts = []
    for run, noise in noisy:
        orphans = noise["orphan_variants"]
        left_out = f", {orphans} variants without their original left out" if orphans else ""
        counts.append(f"{run.label}: {noise['n_originals']} originals{left_out}")
    return ["### Noise analysis (Table 5)", "",
            ("Acc.: mean accuracy over the original rows and their noisy variants of the type (Ref.: the originals "
             "alone); Cons.: share of originals whose correctness is the same in every variant of the type; All: "
             f"every type together. {'; '.join(counts)}."), "", *markdown_table(header, rows)]


def judge_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """The LLM judge's accuracy on the originals and its agreement with the rule scorer, per run judged."""
    judged = [(run, b["judge"]) for run, b in blocks if b.get("judge")]
    if not judged:
        return []
    rows = [[run.label, points(j["accuracy"]), points(j["agreement"]), j["n"]] for run, j in judged]
    return ["### LLM judge (Figures 10 and 11)", "",
            ("Accuracy (%) under the paper's judge prompts and agreement (%) with the rule scorer, on the originals "
             "judged."), "", *markdown_table(["run", "judge accuracy", "agreement", "n"], rows)]


# Plot --------------------------------------------------------------------------------------------------------


def sequential_niah_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of the Sequential-NIAH plots: Figure 5 when a run has Sequential-NIAH samples."""
    blocks = [(run, summary(run)) for run in runs]
    blocks = [(run, block) for run, block in blocks if block]
    return [("groups", GROUPS_PLOT, lambda: plot_groups(blocks))] if blocks else []


def plot_groups(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> Figure:
    """Figure 5: accuracy (%) by length bucket, needle count, pipeline and language, one bar per run."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.0, 7.4), layout="constrained")
    axes = fig.subplots(2, 2).flat
    width = 0.8 / max(len(blocks), 1)
    for ax, (column, title) in zip(axes, GROUP_COLUMNS.items()):
        values = _values(blocks, column)
        for index, (run, block) in enumerate(blocks):
            heights = [100 * float(((block["by"].get(column) or {}).get(v) or {}).get("accuracy") or 0.0) for v in values]
            ax.bar([x + (index - (len(blocks) - 1) / 2) * width for x in range(len(values))], heights, width,
                   label=run.label, color=f"C{index % 10}")
        ax.set_xticks(range(len(values)), values, rotation=20 if column == "pipeline" else 0)
        ax.set_ylim(0, 100)
        ax.set_ylabel("accuracy (%)")
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), frameon=False)
    fig.suptitle("Sequential-NIAH: accuracy across groups")
    return fig

