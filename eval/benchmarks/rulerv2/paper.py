"""The RULERv2 paper's published results that can stand beside a run, as data for the report.

The paper (``../shared/papers/rulerv2.md``) reports its results in figures only (Figures 2-7: bars
and curves without printed values). Its one table with numbers, Table 1, lists the models (size,
claimed length, thinking switch), not scores; Tables 2-4 are the task templates. So there is no
tabulated score to transcribe: :data:`TABULATED` is empty, and nothing is read off a figure.

What the text states as a number for one task is kept in :data:`STATED`, with the sentence it comes
from. Other numbers in the text are not cells of any task (Reasoning models "show 3-7% improvement",
"approximately 15%" degradation at 1M tokens, "6.6%" and "3.0%" gains from 1 to 15 generations) and
are left out.

The paper's setting (§2 Data): MMLU (5-shot) for the NIAH domains, HotPotQA for multi-doc QA, four
needles for multi-value NIAH, 100 samples at each of 8k, 16k, 32k, 64k and 110k tokens ("approximates
128k ... to reserve tokens for reasoning and output"); Figures 2 and 7 average over those five
lengths, and Figure 6 (where the stated values come from) does not say otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SOURCE = "RULERv2 (Hsieh et al.), ../shared/papers/rulerv2.md"
PAPER_LENGTHS_K: tuple[int, ...] = (8, 16, 32, 64, 110)
"""The paper's lengths, in thousands of tokens as it writes them ("8k, 16k, 32k, 64k, and 110k")."""

TABULATED: Mapping[str, Mapping[str, float]] = {}
"""Scores the paper prints in a table: none (its results are figures only)."""


@dataclass(frozen=True)
class StatedScore:
    """A task score the paper's text states as a number.

    Attributes:
        model: The model as the text names it (with what Table 1 settles, in brackets).
        task: The RULERv2 task (config name, ``{domain}_{level}``).
        score: The score in percent, as written.
        where: Where in the paper, and the figure it describes.
        quote: The words of the paper that state it (verbatim, so a test can find them).
    """

    model: str
    task: str
    score: float
    where: str
    quote: str


STATED: tuple[StatedScore, ...] = (
    StatedScore(
        model="GPT4.1", task="mv_niah_hard", score=58.0,
        where="§2 Results and Appendix D.2, Figure 3 (top right) / Figure 6 (bottom left)",
        quote="GPT4.1 struggles with joint retrieval and counting (hard level), achieving only 58% accuracy"),
    StatedScore(
        model="7B instruct model [Table 1's only ~7B model: Qwen2.5 7B 1M]", task="mv_niah_basic", score=48.6,
        where="Appendix D.2, Figure 6 (bottom left)",
        quote="open-source models perform poorly even the basic level, with the smaller 7B model achieving only a "
              "48.6% accuracy"),
)
"""The per-task scores the text states (none is printed in a table)."""
