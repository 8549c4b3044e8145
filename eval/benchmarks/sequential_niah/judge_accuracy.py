"""Judge accuracy on ``judge-test`` (paper §4, §5.1, Tables 4 and 6): how often a judge model's verdict is the label.

The release's ``judge-train`` / ``judge-test`` configs hold candidate answers built from the
reference items in four answer groups (GT, Missing, Redundant, Incorrect), each kept in order or
shuffled, labelled by the paper's rule (Appendix A; :mod:`generators.sequential_niah.judge`). A
judge model is measured on them as an ordinary run (:func:`judge_accuracy`, ``python -m eval
judge-accuracy``): the task :data:`JUDGE_TASK` asks the judge exactly what ``python -m eval judge``
asks it about a model's answer (:data:`eval.benchmarks.sequential_niah.judge.JUDGE_RUBRIC`: the
Figure 10 prompt for temporal needles, Figure 11 for logical ones, in the question's language,
with the candidate as the answer), reads the verdict the same way (``eval_label``), and scores 1
when the verdict is the label. The run store makes it crash-safe: re-running resumes.

:func:`judge_accuracy_summary` turns the scored candidates into the paper's two layouts:

- Table 4: accuracy (%) per needle type (temporal, logical) and answer group, with its No., and
  the Total/Avg. row over every candidate;
- Table 6: ``incorrect / correct`` judgments per needle type, question (with or without an order
  requirement) and answer group with or without shuffle.

A verdict the rubric cannot read, and a request that failed for good, count as misjudged (the
judge did not say the label) and are counted apart; Table 6's ``A / B`` counts only readable
verdicts, as the paper's does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.benchmark import JudgeData
from eval.benchmarks.sequential_niah.judge import CORRECT, JUDGE_RUBRIC
from eval.benchmarks.sequential_niah.paper import (
    ANSWER_GROUPS,
    JUDGES,
    ORDER_TYPES,
    TABLE3,
    TABLE4,
    TABLE4_TOTAL,
    TABLE6,
)
from eval.report_runs import MISSING, markdown_table, points
from eval.scored import ScoredSample
from eval.task import TaskOptions
from generators.sequential_niah.spec import BENCHMARK
from needlework.backends.base import Message

JUDGE_TASK = f"{BENCHMARK}/judge"
"""The task of a judge-data row: the judge's verdict on a labelled candidate."""
JUDGE_CONFIGS = ("judge-test", "judge-train")
"""The configs of labelled candidates; judge accuracy is measured on ``judge-test`` by default (Table 3's 1,960 test
candidates at full size)."""
INCORRECT = "incorrect"
JUDGE_METRIC = ("Sequential-NIAH judge accuracy (paper §5.1, Tables 4 and 6): 1 when the judge's eval_label on a "
                "labelled candidate answer (Figure 10/11 prompt) is the candidate's label, else 0 (unreadable: 0)")
GROUP_NAMES: Mapping[str, str] = {"gt": "GT", "missing": "Missing", "redundant": "Redundant", "incorrect": "Incorrect"}
"""Answer group -> the paper's row and column name."""


def is_judge_row(row: Mapping[str, Any]) -> bool:
    """Whether a release row is a labelled judge candidate (a ``judge-train`` / ``judge-test`` row)."""
    return "candidate" in row and "label" in row


@dataclass(frozen=True)
class JudgeAccuracyTask:
    """A judge-data row: the judge prompt of the candidate, scored 1 when the verdict is the row's label.

    Attributes:
        name: :data:`JUDGE_TASK`.
        options: Unused (the verdict is read from the whole output, as ``python -m eval judge`` reads it).
    """

    name: str
    options: TaskOptions
    metric: str = JUDGE_METRIC
    metadata_columns: tuple[str, ...] = ("order_type", "ordered", "group", "shuffled", "label", "lang", "pipeline",
                                         "qid")

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The rubric's messages for the candidate as the answer: the same prompt ``python -m eval judge`` sends."""
        return JUDGE_RUBRIC.messages(row, str(row["candidate"]))

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The candidate's label, ``correct`` or ``incorrect``."""
        return [str(row["label"])]

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The candidate's type (needle type, order requirement, answer group, shuffle), label, language,
        pipeline and question id."""
        return {"order_type": str(row["order_type"]), "ordered": bool(row["ordered"]), "group": str(row["group"]),
                "shuffled": bool(row["shuffled"]), "label": str(row["label"]), "lang": str(row["lang"]),
                "pipeline": str(row["pipeline"]), "qid": str(row["qid"])}

    def extract(self, response: str) -> str:
        """The verdict, ``correct`` or ``incorrect`` (the rubric's reading of the whole output); ``""`` when unreadable."""
        return JUDGE_RUBRIC.parse(response) or ""

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """1.0 when the verdict is the label, else 0.0 (an unreadable verdict included)."""
        return float(bool(prediction) and prediction == references[0])


# The tables ------------------------------------------------------------------------------------------------


def _cell_key(sample: ScoredSample) -> tuple[str, bool, str, bool]:
    m = sample.metadata
    return (str(m["order_type"]), bool(m["ordered"]), str(m["group"]), bool(m["shuffled"]))


def _order(key: tuple[str, bool, str, bool]) -> tuple[int, int, int, int]:
    order_type, ordered, group, shuffled = key
    known = list(ORDER_TYPES)
    return (known.index(order_type) if order_type in known else len(known), int(not ordered),
            ANSWER_GROUPS.index(group) if group in ANSWER_GROUPS else len(ANSWER_GROUPS), int(shuffled))


def _accuracy(right: int, n: int) -> dict[str, Any]:
    return {"n": n, "right": right, "accuracy": round(right / n, 6) if n else None}


def judge_accuracy_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """Tables 4 and 6 from the scored judge candidates (module docstring); None without any.

    Returns:
        ``{"overall": {n, right, accuracy, unreadable, errors}, "table4": [{order_type, group, n,
        right, accuracy}], "table6": [{order_type, ordered, group, shuffled, label, n, correct,
        incorrect, unreadable, errors}], "by_lang": {lang: {n, right, accuracy}}}``, cells in the
        paper's order. Missing samples (no record yet) are left out.
    """
    samples = [s for s in scored if s.task == JUDGE_TASK and (s.score is not None or s.error_kind)]
    if not samples:
        return None
    cells: dict[tuple[str, bool, str, bool], dict[str, Any]] = {}
    table4: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for sample in samples:
        key = _cell_key(sample)
        cell = cells.setdefault(key, {"label": str(sample.metadata["label"]), "n": 0, "correct": 0, "incorrect": 0,
                                      "unreadable": 0, "errors": 0})
        cell["n"] += 1
        if sample.error_kind:
            cell["errors"] += 1
        elif sample.prediction in (CORRECT, INCORRECT):
            cell[sample.prediction] += 1
        else:
            cell["unreadable"] += 1
        right = int(not sample.error_kind and float(sample.score or 0.0) == 1.0)
        for counts in (table4[(key[0], key[2])], by_lang[str(sample.metadata["lang"])]):
            counts[0] += right
            counts[1] += 1
    ordered_cells = sorted(cells, key=_order)
    groups = sorted(table4, key=lambda k: _order((k[0], True, k[1], False)))
    right = sum(r for r, _ in table4.values())
    return {
        "overall": {**_accuracy(right, len(samples)), "unreadable": sum(c["unreadable"] for c in cells.values()),
                    "errors": sum(c["errors"] for c in cells.values())},
        "table4": [{"order_type": t, "group": g, **_accuracy(*table4[(t, g)])} for t, g in groups],
        "table6": [{"order_type": k[0], "ordered": k[1], "group": k[2], "shuffled": k[3], **cells[k]}
                   for k in ordered_cells],
        "by_lang": {lang: _accuracy(*by_lang[lang]) for lang in sorted(by_lang)},
    }


def _italic(value: object) -> str:
    """A paper cell in italics: a count with thousands separators, a percentage with the paper's two decimals."""
    if value == MISSING:
        return MISSING
    text = f"{value:,}" if isinstance(value, int) else f"{value:.2f}" if isinstance(value, float) else str(value)
    return f"*{text}*"


def table4_lines(judged: Sequence[tuple[str, Mapping[str, Any]]], *, paper: bool = True) -> list[str]:
    """Table 4's layout: needle type, answer group, No., then each judge's accuracy (%); the paper's
    Claude-3.5, GPT-4o and Ours columns in italics (with the paper's No.) when ``paper``."""
    header = ["Needle types", "Answer groups", "No.", *(f"{label} (%)" for label, _ in judged)]
    if paper:
        header += ["*No. (paper)*", *(f"*{j} (paper) (%)*" for j in JUDGES)]
    keys = [(t, g) for t in ORDER_TYPES for g in ANSWER_GROUPS]
    extra = sorted({(r["order_type"], r["group"]) for _, b in judged for r in b["table4"]} - set(keys))
    rows: list[list[object]] = []
    for order_type, group in [*keys, *extra]:
        found = [next((r for r in b["table4"] if (r["order_type"], r["group"]) == (order_type, group)), None)
                 for _, b in judged]
        if not any(found) and not paper:
            continue
        n = next((r["n"] for r in found if r), MISSING)
        row: list[object] = [f"{order_type.capitalize()} order", GROUP_NAMES.get(group, group), n,
                             *(points(r["accuracy"]) if r else MISSING for r in found)]
        if paper:
            published = TABLE4.get((order_type, group))
            row += [_italic(v) for v in published] if published else [MISSING] * (1 + len(JUDGES))
        rows.append(row)
    total: list[object] = ["Total/Avg.", "", judged[0][1]["overall"]["n"] if judged else MISSING,
                           *(points(b["overall"]["accuracy"]) for _, b in judged)]
    if paper:
        total += [_italic(v) for v in TABLE4_TOTAL]
    return markdown_table(header, [*rows, total])


def _judgments(cell: Mapping[str, Any] | None) -> str:
    """A Table 6 cell ``incorrect / correct``, the misjudged count in bold (the paper's red), with unreadable
    verdicts and failed requests after it."""
    if not cell:
        return MISSING
    wrong_side = "incorrect" if cell["label"] == CORRECT else "correct"
    parts = [f"**{cell[side]}**" if side == wrong_side and cell[side] else str(cell[side])
             for side in ("incorrect", "correct")]
    text = " / ".join(parts)
    notes = [f"{cell['unreadable']} unreadable"] * bool(cell["unreadable"]) + [f"{cell['errors']} failed"] * bool(
        cell["errors"])
    return text + (f" ({', '.join(notes)})" if notes else "")


def table6_lines(label: str, block: Mapping[str, Any], *, paper: bool = True) -> list[str]:
    """Table 6's layout for one judge: ``incorrect / correct`` per (needle type, question) row and (group,
    shuffle) column, misjudged counts in bold; then the paper's three judges' rows in italics when ``paper``."""
    columns = [(g, s) for g in ANSWER_GROUPS for s in (False, True)]
    header = ["judge", "Needle types", "Question",
              *(f"{GROUP_NAMES[g]} {'w/ shuffle' if s else 'w/o shuffle'}" for g, s in columns)]
    by_key = {(c["order_type"], c["ordered"], c["group"], c["shuffled"]): c for c in block["table6"]}
    row_keys = sorted({(t, o) for t, o, _, _ in by_key}, key=lambda k: _order((k[0], k[1], "gt", False)))
    rows: list[list[object]] = []
    for order_type, ordered in row_keys:
        rows.append([label, f"{order_type.capitalize()} order", "w/ order" if ordered else "w/o order",
                     *(_judgments(by_key.get((order_type, ordered, g, s))) for g, s in columns)])
    if paper:
        for judge in JUDGES:
            for (order_type, ordered), cells in TABLE6[judge].items():
                rows.append([_italic(f"{judge} (paper)"), _italic(f"{order_type.capitalize()} order"),
                             _italic("w/ order" if ordered else "w/o order"),
                             *(_italic(f"{cells[c][0]} / {cells[c][1]}") for c in columns)])
    return markdown_table(header, rows)


def table6_all_lines(judged: Sequence[tuple[str, Mapping[str, Any]]], *, paper: bool = True) -> list[str]:
    """:func:`table6_lines` for several judges in one table, the paper's rows once at the end."""
    tables = [table6_lines(label, block, paper=paper and i == len(judged) - 1) for i, (label, block) in enumerate(judged)]
    return [*tables[0][:-1], *(line for table in tables[1:] for line in table[2:-1]), ""] if tables else []


def languages_lines(judged: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Candidates judged per language (Table 3's columns) per judge, with Table 3's test row in italics."""
    rows: list[list[object]] = [[label, *((b["by_lang"].get(lang) or {}).get("n", 0) for lang in ("en", "zh")),
                                 b["overall"]["n"]] for label, b in judged]
    rows.append(["*test (paper, Table 3)*", *(f"*{v:,}*" for v in TABLE3["test"])])
    return markdown_table(["judge", "English", "Chinese", "Total"], rows)


def accuracy_lines(judged: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The report's judge-accuracy subsection: candidates per language, Table 4 and Table 6 beside the paper's."""
    return ["### Judge accuracy on labelled candidates (Tables 3, 4 and 6)", "",
            ("A judge model's verdicts (Figure 10/11 prompts, as `python -m eval judge` asks them) on the labelled "
             "candidate answers of a judge config, against the labels of the paper's rule (Appendix A). Unreadable "
             "verdicts and failed requests count as misjudged. Italic: the paper's judges on its 1,960 test "
             "candidates (Claude-3.5, GPT-4o, and its fine-tuned evaluation model, *Ours*)."), "",
            *languages_lines(judged), *table4_lines(judged),
            "Judgments as *incorrect / correct*; bold: misjudged (the paper's red).", "", *table6_all_lines(judged)]


def accuracy_report(label: str, block: Mapping[str, Any]) -> str:
    """Judge accuracy as printed by ``python -m eval judge-accuracy``: overall, Table 4 and Table 6 beside the paper's."""
    overall = block["overall"]
    headline = (f"judge {label}: accuracy {points(overall['accuracy'])}% on {overall['n']} labelled candidates "
                f"({overall['right']} verdicts equal to the label; {overall['unreadable']} unreadable, "
                f"{overall['errors']} failed requests)")
    lines = [headline, "", ("Table 4 layout: accuracy (%) by needle type and answer group "
                            "(italic: the paper's Table 4 on its 1,960 test candidates)"), "",
             *table4_lines([(label, block)]),
             "Table 6 layout: incorrect / correct judgments; bold: misjudged (italic: the paper's Table 6)", "",
             *table6_lines(label, block)]
    return "\n".join(lines)


JUDGE_DATA = JudgeData(configs=JUDGE_CONFIGS, block="judge_accuracy", report=accuracy_report)
"""What ``python -m eval judge-accuracy`` needs of Sequential-NIAH: its judge configs, the results block
:func:`judge_accuracy_summary` writes and the printout."""
