"""The multiple-choice ATC in the report: circular scores per needle count, in the layout of the ATC tables.

Read from the ``atc_choice`` block of ``scores.needlebench``
(:func:`eval.benchmarks.needlebench.choice.circular_scores`): one table per task (plain or reasoning few-shot
examples) and language, the needle counts across, the prompts' mean length on the first row, then per run the
circular score (OpenCompass's ``CircularEvaluator`` ``perf_4``) and the accuracy over single rotations
(``acc_4``), in percent with one decimal as the ATC tables; the last column is over every question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.benchmarks.needlebench.tasks import PAPER_LANGS, TASK_TITLES
from eval.report_runs import MISSING, Run, markdown_table, percent
from generators.needlebench.spec import BENCHMARK, CHOICE_TASKS

LANG_NAMES: dict[str, str] = {"zh": "Chinese", "en": "English"}


def choice_block(run: Run) -> Mapping[str, Mapping[str, Any]]:
    """The run's ``atc_choice`` block: task -> language -> circular scores (empty without one)."""
    return (run.scores.get(BENCHMARK) or {}).get("atc_choice") or {}


def _kilo(tokens: float | None) -> str:
    """A mean prompt length in thousands of tokens with one decimal (``1564.5`` -> ``1.6K``)."""
    return MISSING if tokens is None else f"{float(tokens) / 1000:.1f}".removesuffix(".0") + "K"


def choice_tables(runs: Sequence[Run]) -> list[str]:
    """Per multiple-choice ATC task and language: the circular score and per-rotation accuracy (%) per needle count.

    Args:
        runs: Every run of the report; those without multiple-choice ATC scores are left out.

    Returns:
        Markdown lines; none when no run has them.
    """
    with_choice = [run for run in runs if choice_block(run)]
    if not with_choice:
        return []
    lines = [
        "### Ancestral Trace Challenge, multiple choice",
        "",
        ("OpenCompass NeedleBench v1's multiple-choice ATC (`atc_choice.py`): each question is asked four times, "
         "its options rotated (ABCD, BCDA, CDAB, DABC), and the letter is read as OpenCompass's "
         "`first_option_postprocess` reads it. Circular: the share of questions whose four rotations are all "
         "right (`CircularEvaluator`'s perf_4, the score to compare); per rotation: the share of rotations right "
         "(acc_4). A needle count is the number of people in the chain (OpenCompass v1's count: one link "
         "sentence fewer). The first row is the prompts' mean length, few-shot examples included."),
        "",
    ]
    for task in CHOICE_TASKS:
        langs = sorted({lang for run in with_choice for lang in choice_block(run).get(task, {})},
                       key=lambda lang: (PAPER_LANGS.index(lang) if lang in PAPER_LANGS else len(PAPER_LANGS), lang))
        for lang in langs:
            blocks = [(run, choice_block(run).get(task, {}).get(lang)) for run in with_choice]
            blocks = [(run, block) for run, block in blocks if block]
            counts = sorted({int(n) for _, block in blocks for n in block["by_needles"]})
            lengths = [next((b["by_needles"][str(n)].get("mean_n_tokens") for _, b in blocks
                             if str(n) in b["by_needles"]), None) for n in counts]
            rows: list[list[object]] = [["length (tokens)", *map(_kilo, lengths), ""]]
            for run, block in blocks:
                for label, key in (("circular", "circular"), ("per rotation", "accuracy")):
                    cells = [percent((block["by_needles"].get(str(n)) or {}).get(key)) for n in counts]
                    rows.append([f"{run.label} · {label}", *cells, percent(block.get(key))])
            lines += [f"#### {TASK_TITLES[task]}, {LANG_NAMES.get(lang, lang)} ({lang})", ""]
            lines += markdown_table(["needles", *map(str, counts), "all"], rows)
    return lines
