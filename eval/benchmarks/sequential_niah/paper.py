"""The Sequential-NIAH paper's published numbers (Tables 2-6 and §5.2's overall accuracies), as data for the report.

Values are copied from ``../shared/papers/sequential-niah.md`` with the paper's precision:

- Table 2, the benchmark's splits: samples per split in English, Chinese and in total.
- Table 3, the evaluation model's data: judge-train and judge-test candidates per language.
- Table 4, judge accuracy (%) on the 1,960 judge-test candidates by needle type (temporal, logical)
  and answer group (GT, Missing, Redundant, Incorrect), for Claude-3.5, GPT-4o and the paper's
  fine-tuned evaluation model ("Ours").
- Table 5, the noise analysis of 200 test samples: Acc. (%) under Ref., TM, SM, RO, SN and All, and
  Cons. (%) under each noise type and All, for Gemini-1.5, Qwen-2.5 and LLaMA-3.3.
- Table 6 (Appendix A), the judgments behind Table 4: ``incorrect / correct`` counts per needle
  type, question (with or without an order requirement) and answer group with or without shuffle.
- §5.2 gives two of Figure 4's overall test accuracies in its text (Gemini-1.5 63.15%, Qwen-2.5
  51.10%); the figure's other bars are not printed as numbers.

Every model of Tables 4-5 and §5.2 was scored by the paper's own evaluation model (a fine-tuned
Qwen2.5-Instruct-32B, §4) except the Claude-3.5 and GPT-4o columns of Tables 4 and 6, which are
those models acting as the judge. They are the paper's numbers, not a needlework run.
"""

from __future__ import annotations

from collections.abc import Mapping

SOURCE = ("Sequential-NIAH: A Needle-In-A-Haystack Benchmark for Extracting Sequential Needles from Long Contexts "
          "(anonymous ACL submission), ../shared/papers/sequential-niah.md")
LANG_COLUMNS: tuple[str, ...] = ("en", "zh", "total")
"""The columns of Tables 2 and 3: English, Chinese, Total."""

TABLE2: Mapping[str, tuple[int, int, int]] = {
    "train": (5_400, 4_600, 10_000),
    "dev": (1_015, 985, 2_000),
    "test": (1_085, 915, 2_000),
    "total": (7_500, 6_500, 14_000),
}
"""Table 2: split -> samples (English, Chinese, total). The paper's "Development" is our ``dev``."""

TABLE3: Mapping[str, tuple[int, int, int]] = {
    "train": (3_000, 3_000, 6_000),
    "test": (984, 967, 1_960),
    "total": (3_984, 3_967, 7_960),
}
"""Table 3: judge set -> candidates (English, Chinese, total): ``judge-train`` and ``judge-test``. As printed: the
test row's languages add up to 1,951, not its total of 1,960 (the count Tables 4 and 6 use), and so the Total row's."""

JUDGES: tuple[str, ...] = ("Claude-3.5", "GPT-4o", "Ours")
"""The judges of Tables 4 and 6, in column order ("Ours": the paper's fine-tuned evaluation model)."""
ORDER_TYPES: tuple[str, ...] = ("temporal", "logical")
"""Table 4's needle types, in row order."""
ANSWER_GROUPS: tuple[str, ...] = ("gt", "missing", "redundant", "incorrect")
"""Table 4's answer groups, in row order (:data:`generators.sequential_niah.judge.GROUPS`)."""

TABLE4: Mapping[tuple[str, str], tuple[int, float, float, float]] = {
    ("temporal", "gt"): (241, 85.06, 90.87, 95.85),
    ("temporal", "missing"): (235, 93.62, 97.45, 100.0),
    ("temporal", "redundant"): (265, 77.74, 85.28, 100.0),
    ("temporal", "incorrect"): (229, 95.20, 97.38, 100.0),
    ("logical", "gt"): (229, 86.03, 99.13, 100.0),
    ("logical", "missing"): (249, 93.17, 100.0, 100.0),
    ("logical", "redundant"): (266, 85.34, 99.25, 100.0),
    ("logical", "incorrect"): (246, 82.11, 100.0, 100.0),
}
"""Table 4: (needle type, answer group) -> (No., accuracy % of Claude-3.5, GPT-4o, Ours)."""
TABLE4_TOTAL: tuple[int, float, float, float] = (1_960, 87.09, 96.07, 99.49)
"""Table 4's Total/Avg. row: (No., accuracy % of Claude-3.5, GPT-4o, Ours) over all 1,960 candidates."""

TABLE6_ROWS: tuple[tuple[str, bool], ...] = (("temporal", True), ("temporal", False), ("logical", True))
"""Table 6's rows: (needle type, whether the question asks for order). Logical questions always do."""
TABLE6_COLUMNS: tuple[tuple[str, bool], ...] = tuple((g, s) for g in ANSWER_GROUPS for s in (False, True))
"""Table 6's columns: (answer group, shuffled), w/o shuffle before w/ shuffle."""


def _row(*pairs: tuple[int, int]) -> dict[tuple[str, bool], tuple[int, int]]:
    return dict(zip(TABLE6_COLUMNS, pairs))


TABLE6: Mapping[str, Mapping[tuple[str, bool], Mapping[tuple[str, bool], tuple[int, int]]]] = {
    "Claude-3.5": {
        ("temporal", True): _row((1, 74), (58, 8), (64, 7), (73, 2), (56, 25), (74, 5), (59, 2), (70, 3)),
        ("temporal", False): _row((0, 48), (27, 25), (42, 4), (41, 2), (36, 19), (40, 10), (42, 2), (47, 4)),
        ("logical", True): _row((12, 107), (90, 20), (107, 7), (125, 10), (113, 17), (114, 22), (92, 15), (110, 29)),
    },
    "GPT-4o": {
        ("temporal", True): _row((0, 75), (59, 7), (67, 4), (75, 0), (68, 13), (72, 7), (61, 0), (72, 1)),
        ("temporal", False): _row((0, 48), (15, 37), (45, 1), (42, 1), (47, 8), (39, 11), (44, 0), (46, 5)),
        ("logical", True): _row((0, 119), (108, 2), (114, 0), (135, 0), (129, 1), (135, 1), (107, 0), (139, 0)),
    },
    "Ours": {
        ("temporal", True): _row((0, 75), (64, 2), (71, 0), (75, 0), (81, 0), (79, 0), (61, 0), (73, 0)),
        ("temporal", False): _row((0, 48), (8, 44), (46, 0), (43, 0), (55, 0), (50, 0), (44, 0), (51, 0)),
        ("logical", True): _row((0, 119), (110, 0), (114, 0), (135, 0), (130, 0), (136, 0), (107, 0), (139, 0)),
    },
}
"""Table 6: judge -> (needle type, ordered) -> (answer group, shuffled) -> (incorrect, correct) judgments."""

NOISE_COLUMNS: tuple[str, ...] = ("ref", "tiny-movement", "significant-movement", "reorder", "semantic-noise", "all")
"""Table 5's columns: Ref., TM, SM, RO, SN, All (noise types named as the release's ``noise-<type>`` configs)."""
TABLE5: Mapping[str, Mapping[str, Mapping[str, float | None]]] = {
    "Gemini-1.5": {"acc": dict(zip(NOISE_COLUMNS, (62.50, 65.00, 63.12, 64.12, 53.88, 61.31))),
                   "cons": dict(zip(NOISE_COLUMNS, (None, 56.50, 52.00, 47.50, 41.50, 17.50)))},
    "Qwen-2.5": {"acc": dict(zip(NOISE_COLUMNS, (51.50, 48.50, 48.25, 48.00, 43.00, 45.88))),
                 "cons": dict(zip(NOISE_COLUMNS, (None, 67.50, 65.50, 64.50, 64.50, 42.00)))},
    "LLaMA-3.3": {"acc": dict(zip(NOISE_COLUMNS, (38.00, 38.00, 36.50, 42.00, 29.88, 36.27))),
                  "cons": dict(zip(NOISE_COLUMNS, (None, 63.50, 55.50, 55.50, 62.00, 29.50)))},
}
"""Table 5: model -> ``acc`` / ``cons`` -> column -> percent (Cons. has no Ref.: None, printed "-")."""
TABLE5_ORIGINALS = 200
"""Table 5 is over 200 test samples, each with three variations per noise type (§5.3)."""

OVERALL_TEXT: Mapping[str, float] = {"Gemini-1.5": 63.15, "Qwen-2.5": 51.10}
"""§5.2 (Figure 4): overall accuracy (%) on the 2,000 test samples, for the two models whose value the text prints."""
