"""Where the needles sit in a sample's prompt, per benchmark, read from the release row.

Each benchmark's rows say where their evidence is in their own way:

- RULERv2, NeedleBench and Sequential-NIAH rows list their ``needles`` with ``char_offset`` and
  ``token_offset`` into ``input`` (Sequential-NIAH's also their ``answer_index``, the rank of the item
  in the true order, and a noise variant's ``distractors`` likewise); the offsets are used as they are
  and checked against the needle's text, and a needle whose text is not at its offset is found by
  string search instead.
- HaystackCraft rows give the documents in prompt order (``doc_ids``) and which of them are the gold
  documents (``needle_positions``), not where they start: the documents are found by string search
  for the start every rendered document shares (``Article Title:``, after ``Article {i}\\n: `` in the
  official layout), and the reference answers are found inside the gold documents by string search.
- EverMemBench-S rows give the RefList (``ref_list``, document IDs), not where the documents are: each
  is found by string search for its ``[DocID=n]`` header; for a RAG row the rank at which the retriever
  placed it is read from ``retrieved``.

Offsets are characters of the prompt (the last user message, which holds the haystack in every task).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.report_html.folding import Mark, TokenScale

ARTICLE_START = re.compile(r"(?:^|\n\n)((?:Article \d+\n: )?Article Title: )")
"""Where a HaystackCraft document starts (:mod:`generators.haystackcraft.prompt`): string search, see the module
docstring."""
MAX_ANSWER_HITS = 3
"""Occurrences of a reference answer marked inside one evidence document."""


@dataclass(frozen=True)
class Located:
    """A prompt's evidence and what is known of its token offsets.

    Attributes:
        marks: The evidence spans, most important first (:func:`eval.report_html.folding.fold` keeps them
            in this order within its budget).
        scale: Token estimates of the prompt's characters.
        how: How the marks were found, said once under the prompt (``offsets in the row`` or ``string search``).
        missing: Evidence the row names that the prompt does not contain (a cut haystack, a changed release).
    """

    marks: tuple[Mark, ...]
    scale: TokenScale
    how: str
    missing: tuple[str, ...] = ()


def locate(benchmark: str, row: Mapping[str, Any], prompt: str, references: Sequence[str]) -> Located:
    """The evidence of ``row`` in ``prompt`` by the rule of its benchmark; none for an unknown benchmark."""
    locator = LOCATORS.get(benchmark)
    if locator is None:
        return Located((), TokenScale(prompt, total_tokens=_tokens(row)), "no locator for this benchmark")
    return locator(row, prompt, references)


def _tokens(row: Mapping[str, Any]) -> int | None:
    value = row.get("n_tokens")
    return int(value) if isinstance(value, int) and value > 0 else None


def _percent(value: Any) -> str:
    return f"{float(value):.4g}%" if isinstance(value, (int, float)) else "?"


def _find(prompt: str, needle: Mapping[str, Any]) -> tuple[int, bool] | None:
    """(offset, whether it came from the row) of a needle's text: its ``char_offset`` when the text is there,
    else the first occurrence found by string search; None when the prompt does not hold it."""
    text, offset = str(needle.get("text") or ""), needle.get("char_offset")
    if not text:
        return None
    if isinstance(offset, int) and prompt.startswith(text, offset):
        return offset, True
    found = prompt.find(text)
    return (found, False) if found >= 0 else None


def _needle_marks(row: Mapping[str, Any], prompt: str, label: Callable[[int, Mapping[str, Any]], str],
                  kind: str = "needle", column: str = "needles") -> tuple[list[Mark], list[tuple[int, int]], bool, list[str]]:
    """Marks of the needles listed in ``row[column]``, the (char, token) anchors they give, whether any needed a
    string search, and the labels of those not found."""
    marks, anchors, searched, missing = [], [], False, []
    for index, needle in enumerate(row.get(column) or []):
        found = _find(prompt, needle)
        if found is None:
            missing.append(label(index, needle))
            continue
        start, exact = found
        searched |= not exact
        marks.append(Mark(start, start + len(str(needle["text"])), kind, label(index, needle)))
        if exact and isinstance(needle.get("token_offset"), int):
            anchors.append((start, int(needle["token_offset"])))
    return marks, anchors, searched, missing


def _how(searched: bool) -> str:
    return ("needles at the row's char_offset; some found by string search of their text" if searched
            else "needles at the row's char_offset")


def locate_offsets(row: Mapping[str, Any], prompt: str, references: Sequence[str]) -> Located:
    """RULERv2 and NeedleBench: each needle at its ``char_offset``, labelled with its depth (and NeedleBench's keyword)."""
    def label(index: int, needle: Mapping[str, Any]) -> str:
        keyword = needle.get("keyword")
        return f"needle {index + 1} · depth {_percent(needle.get('depth_percent'))}" + (f" · {keyword}" if keyword else "")

    marks, anchors, searched, missing = _needle_marks(row, prompt, label)
    return Located(tuple(marks), TokenScale(prompt, anchors, _tokens(row)), _how(searched), tuple(missing))


def locate_sequential(row: Mapping[str, Any], prompt: str, references: Sequence[str]) -> Located:
    """Sequential-NIAH: each needle at its ``char_offset``, labelled with its rank in the true order; distractors too."""
    def label(index: int, needle: Mapping[str, Any]) -> str:
        rank = needle.get("answer_index")
        return f"rank {int(rank) + 1}" if isinstance(rank, int) else f"needle {index + 1}"

    marks, anchors, searched, missing = _needle_marks(row, prompt, label)
    marks.sort(key=lambda m: m.start)
    noise, noise_anchors, noise_searched, _ = _needle_marks(row, prompt, lambda i, _: f"distractor {i + 1}",
                                                            kind="distractor", column="distractors")
    return Located(tuple(marks + noise), TokenScale(prompt, anchors + noise_anchors, _tokens(row)),
                   _how(searched or noise_searched), tuple(missing))


def _answer_marks(prompt: str, start: int, end: int, references: Sequence[str]) -> list[Mark]:
    """Where the reference answers occur in ``prompt[start:end]`` (case-insensitive string search)."""
    lowered = prompt[start:end].lower()
    marks = []
    for reference in dict.fromkeys(r.strip() for r in references if r and r.strip() and len(r) <= 200):
        position, hits = 0, 0
        while hits < MAX_ANSWER_HITS:
            found = lowered.find(reference.lower(), position)
            if found < 0:
                break
            marks.append(Mark(start + found, start + found + len(reference), "answer", f"answer “{reference}”"))
            position, hits = found + len(reference), hits + 1
    return marks


def locate_haystackcraft(row: Mapping[str, Any], prompt: str, references: Sequence[str]) -> Located:
    """HaystackCraft: the gold documents (``needle_positions`` into ``doc_ids``) found by string search for each
    document's start, and the answers inside them (module docstring)."""
    doc_ids = list(row.get("doc_ids") or [])
    starts = [m.start(1) for m in ARTICLE_START.finditer(prompt)]
    tail = prompt.rfind("\n\nWhat is the correct answer to this question:")
    end_of_haystack = tail if tail >= 0 else len(prompt)
    scale = TokenScale(prompt, total_tokens=_tokens(row))
    if len(starts) != len(doc_ids):
        return Located((), scale, "string search for the documents' starts",
                       (f"{len(doc_ids)} documents listed, {len(starts)} document starts found",) if doc_ids else ())
    ends = [s - 2 for s in starts[1:]] + [end_of_haystack]
    gold, answers = [], []
    for position in row.get("needle_positions") or []:
        start, end = starts[int(position)], ends[int(position)]
        gold.append(Mark(start, end, "gold", f"gold document {int(position) + 1} of {len(doc_ids)} "
                                              f"(doc_id {doc_ids[int(position)]})"))
        answers += _answer_marks(prompt, start, end, references)
    return Located(tuple(gold + answers), scale, "gold documents and answers found by string search")


def locate_embs(row: Mapping[str, Any], prompt: str, references: Sequence[str]) -> Located:
    """EverMemBench-S: each RefList document found by string search for its ``[DocID=n]`` header (module docstring)."""
    retrieved = [int(d) for d in row.get("retrieved") or []]
    marks, missing = [], []
    answers = [str(a) for a in (row.get("answers") or [row.get("answer")]) if a]
    for doc_id in row.get("ref_list") or []:
        header = f"[DocID={int(doc_id)}]\n"
        start = prompt.find(header)
        while start > 0 and prompt[start - 1] != "\n":
            start = prompt.find(header, start + 1)
        if start < 0:
            missing.append(f"RefList document {doc_id}" + (" (not retrieved)" if row.get("retrieved") is not None else ""))
            continue
        following = prompt.find("\n\n[DocID=", start)
        end = following if following >= 0 else prompt.find("\n\n", start + len(header))
        end = end if end >= 0 else len(prompt)
        rank = f" · retrieved at rank {retrieved.index(int(doc_id)) + 1}" if int(doc_id) in retrieved else ""
        marks.append(Mark(start, end, "ref", f"RefList document {doc_id}{rank}"))
    hits = [m for mark in marks for m in _answer_marks(prompt, mark.start, mark.end, answers)]
    context = row.get("context")
    anchors = [(len(context), int(row["context_tokens"]))] if context and row.get("context_tokens") else []
    return Located(tuple(marks + hits), TokenScale(prompt, anchors), "RefList documents found by string search of "
                   "their [DocID=n] header", tuple(missing))


LOCATORS: dict[str, Callable[[Mapping[str, Any], str, Sequence[str]], Located]] = {
    "rulerv2": locate_offsets,
    "needlebench": locate_offsets,
    "sequential-niah": locate_sequential,
    "haystackcraft": locate_haystackcraft,
    "embs": locate_embs,
}
"""Benchmark id (a release manifest's ``benchmark``) -> how its rows' evidence is found."""
