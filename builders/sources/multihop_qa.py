"""Question sets (MuSiQue, HotpotQA, Natural Questions open) as the ``qa`` table, needles as doc ids.

Each question's supporting paragraphs (or gold pages) are mapped to documents of a corpus read by
:mod:`builders.sources.wikipedia` or :mod:`builders.sources.passages`. A paragraph maps to:

1. the passage with the same normalized title and the same text (whitespace-stripped), when one
   exists (the smallest id if the corpus repeats it); else
2. the one document its title names, through redirects for Wikipedia corpora; else
3. nothing: the question is dropped, and its qid and the reason are listed in ``dropped``.

Questions are never silently kept with missing needles nor silently dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from builders.sources.corpus_read import CorpusRead, normalize_title
from builders.sources.records import read_records, record_error, require_field
from needlework.errors import InputError

QA_SCHEMA = pa.schema([
    pa.field("qid", pa.string()),
    pa.field("question", pa.string()),
    pa.field("answers", pa.list_(pa.string())),
    pa.field("support", pa.list_(pa.int64())),
    pa.field("hops", pa.int8()),
    pa.field("source", pa.string()),
    pa.field("lang", pa.string()),
])
SUFFIXES = (".json", ".jsonl")
NQ_TITLE_FIELDS = ("titles", "title", "page_title", "document_title")
NQ_ID_FIELDS = ("id", "qid", "_id", "example_id")
LANG = "en"


@dataclass(frozen=True)
class QaRead:
    """Questions with their needle documents, and the questions that could not be kept.

    Attributes:
        qa: Rows of :data:`QA_SCHEMA`, in file order.
        dropped: (qid, reason) per dropped question, in file order.
        label: Names the dataset and file in reports.
    """

    qa: pa.Table
    dropped: tuple[tuple[str, str], ...]
    label: str


class _Skip(Exception):
    """A question that cannot be kept; the message is the reason."""


class _Matcher:
    """Maps (title, paragraph text) to a corpus doc id, as the module docstring describes."""

    def __init__(self, corpus: CorpusRead) -> None:
        self._titles = corpus.titles
        # Texts are looked up per candidate: a Wikipedia corpus is too large to copy into Python.
        self._texts = corpus.corpus.column("text")

    def by_paragraph(self, title: str, text: str | None) -> int:
        ids = self._titles.get(normalize_title(title), ())
        if text is not None:
            exact = [doc_id for doc_id in ids if self._texts[doc_id].as_py().strip() == text.strip()]
            if exact:
                return min(exact)
        return self.by_title(title, text is not None)

    def by_title(self, title: str, had_text: bool = False) -> int:
        ids = self._titles.get(normalize_title(title), ())
        if not ids:
            raise _Skip(f"gold page {title!r} not in corpus")
        if len(ids) > 1:
            unmatched = " and none has the paragraph's text" if had_text else ""
            raise _Skip(f"gold page {title!r} names {len(ids)} documents{unmatched}")
        return ids[0]


def read_musique(path: Path, corpus: CorpusRead) -> QaRead:
    """Read MuSiQue questions (``.json`` list or ``.jsonl``) and map their supporting paragraphs.

    Needles are the paragraphs the ``question_decomposition`` steps cite (``paragraph_support_idx``
    refers to a paragraph's ``idx``), in step order, unique; hops = their number (on the released
    data it equals the qid prefix's: ``2hop``, ``3hop1``, ...). Answers are ``answer`` then ``answer_aliases``.

    Args:
        path: The question file (fields ``id``, ``question``, ``answer``, ``answer_aliases``,
            ``answerable``, ``paragraphs`` [{idx, title, paragraph_text, is_supporting}],
            ``question_decomposition`` [{question, answer, paragraph_support_idx}]).
        corpus: The corpus the needles must be in.

    Returns:
        The kept questions; unanswerable ones and those with a paragraph not in the corpus are in
        ``dropped`` with the reason.

    Raises:
        InputError: The file is unreadable, a field is missing or malformed, or a step cites a
            paragraph index that is not in ``paragraphs``.
    """
    return _read(Path(path), corpus, "musique", _musique_row)


def read_hotpotqa(path: Path, corpus: CorpusRead) -> QaRead:
    """Read HotpotQA questions and map their supporting titles to corpus documents.

    Needles are the distinct titles of ``supporting_facts``, in order of first appearance; each is
    matched with its ``context`` paragraph's text (sentences joined) when the question has one.

    Args:
        path: ``.json`` list or ``.jsonl`` of records with ``_id``, ``question``, ``answer``,
            ``supporting_facts`` ([title, sentence index] pairs) and ``context`` ([title, sentences]).
        corpus: The corpus the needles must be in.

    Returns:
        The kept questions, and the dropped ones with the reason.

    Raises:
        InputError: The file is unreadable or a field is missing or malformed.
    """
    return _read(Path(path), corpus, "hotpotqa", _hotpot_row)


def read_nq(path: Path, corpus: CorpusRead) -> QaRead:
    """Read Natural Questions (open) and map gold page titles, when the file gives them.

    NQ-open itself has only ``question`` and ``answer`` (a list); gold pages are read from the
    first present of ``titles``, ``title``, ``page_title``, ``document_title`` (a string or a list),
    resolved through the corpus's titles (redirects included). The qid is the record's ``id``,
    ``qid``, ``_id`` or ``example_id`` if present, else ``"nq-<line number>"`` (1-based).

    Args:
        path: ``.jsonl`` (or ``.json`` list) of records.
        corpus: The corpus the gold pages must be in.

    Returns:
        The kept questions; those without a title ("no gold page title") or whose page is not in
        the corpus ("gold page 'X' not in corpus") are in ``dropped``.

    Raises:
        InputError: The file is unreadable or a field is missing or malformed.
    """
    return _read(Path(path), corpus, "nq", _nq_row)


def read_qa(path: Path, corpus: CorpusRead) -> QaRead:
    """Read a question file of any supported dataset, recognised by its first record's fields.

    Args:
        path: A MuSiQue, HotpotQA or NQ-open file (``.json`` or ``.jsonl``).
        corpus: The corpus the needles must be in.

    Returns:
        What :func:`read_musique`, :func:`read_hotpotqa` or :func:`read_nq` returns.

    Raises:
        InputError: The file is empty, unreadable, or its fields match no known dataset (the
            message lists the known ones and the fields they need).
    """
    path = Path(path)
    numbered = _numbered_records(path)
    if not numbered:
        raise InputError(str(path), None, None, "no records")
    fields = set(numbered[0][1])
    for name, (required, row) in _FORMATS.items():
        if required <= fields:
            return _convert(path, numbered, corpus, name, row)
    known = "; ".join(f"{name} ({', '.join(sorted(required))})" for name, (required, _) in _FORMATS.items())
    raise record_error(str(path), 0, None, f"unknown question format with fields {sorted(fields)}; known: {known}")


def _read(path: Path, corpus: CorpusRead, name: str, row: _RowFunction) -> QaRead:
    return _convert(path, _numbered_records(path), corpus, name, row)


def _convert(
    path: Path, numbered: Sequence[tuple[int, dict[str, Any]]], corpus: CorpusRead, name: str, row: _RowFunction
) -> QaRead:
    matcher = _Matcher(corpus)
    rows: list[dict[str, Any]] = []
    dropped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, (line, record) in enumerate(numbered):
        context = _Context(str(path), index, line)
        qid = _qid(record, name, context)
        if qid in seen:
            raise context.error("_id" if name == "hotpotqa" else "id", f"duplicate question id {qid!r}")
        seen.add(qid)
        try:
            question, answers, support = row(record, matcher, context)
        except _Skip as skip:
            dropped.append((qid, str(skip)))
            continue
        rows.append({"qid": qid, "question": question, "answers": answers, "support": support,
                     "hops": len(support), "source": name, "lang": LANG})
    return QaRead(pa.Table.from_pylist(rows, schema=QA_SCHEMA), tuple(dropped), f"{name}:{path.name}")


@dataclass(frozen=True)
class _Context:
    file: str
    index: int
    line: int

    def error(self, field: str, problem: str) -> InputError:
        return record_error(self.file, self.index, field, problem)


_RowFunction = Callable[[Mapping[str, Any], _Matcher, _Context], tuple[str, list[str], list[int]]]


def _musique_row(record: Mapping[str, Any], matcher: _Matcher, context: _Context) -> tuple[str, list[str], list[int]]:
    question = _text(record, "question", context)
    if record.get("answerable", True) is False:
        raise _Skip("unanswerable")
    answers = _answers(_text(record, "answer", context), record.get("answer_aliases") or [], "answer_aliases", context)
    paragraphs = {}
    for position, paragraph in enumerate(_list(record, "paragraphs", context)):
        where = f"paragraphs[{position}]"
        if not isinstance(paragraph, Mapping):
            raise context.error(where, "expected an object")
        for key in ("idx", "title", "paragraph_text"):
            if key not in paragraph:
                raise context.error(f"{where}.{key}", "missing")
        paragraphs[paragraph["idx"]] = paragraph
    support: list[int] = []
    for step, item in enumerate(_list(record, "question_decomposition", context)):
        where = f"question_decomposition[{step}].paragraph_support_idx"
        if not isinstance(item, Mapping) or "paragraph_support_idx" not in item:
            raise context.error(where, "missing")
        cited = paragraphs.get(item["paragraph_support_idx"])
        if cited is None:
            raise context.error(where, f"no paragraph with idx {item['paragraph_support_idx']!r}")
        try:
            doc_id = matcher.by_paragraph(cited["title"], cited["paragraph_text"])
        except _Skip as skip:
            raise _Skip(f"supporting paragraph idx {cited['idx']}: {skip}") from None
        if doc_id not in support:
            support.append(doc_id)
    return question, answers, support


def _hotpot_row(record: Mapping[str, Any], matcher: _Matcher, context: _Context) -> tuple[str, list[str], list[int]]:
    question = _text(record, "question", context)
    answers = [_text(record, "answer", context)]
    paragraphs: dict[str, str] = {}
    for position, pair in enumerate(_list(record, "context", context)):
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], list)):
            raise context.error(f"context[{position}]", "expected [title, [sentences]]")
        paragraphs.setdefault(pair[0], "".join(str(sentence) for sentence in pair[1]))
    titles: list[str] = []
    for position, fact in enumerate(_list(record, "supporting_facts", context)):
        if not (isinstance(fact, list) and len(fact) == 2 and isinstance(fact[0], str)):
            raise context.error(f"supporting_facts[{position}]", "expected [title, sentence index]")
        if fact[0] not in titles:
            titles.append(fact[0])
    support = []
    for title in titles:
        doc_id = matcher.by_paragraph(title, paragraphs.get(title))
        if doc_id not in support:
            support.append(doc_id)
    return question, answers, support


def _nq_row(record: Mapping[str, Any], matcher: _Matcher, context: _Context) -> tuple[str, list[str], list[int]]:
    question = _text(record, "question", context)
    answer = require_field(record, "answer", context.file, context.index)
    if isinstance(answer, str):
        answer = [answer]
    if not isinstance(answer, list) or not answer or not all(isinstance(item, str) for item in answer):
        raise context.error("answer", f"expected a non-empty list of strings, got {answer!r:.80}")
    answers = _answers(answer[0], answer[1:], "answer", context)
    field = next((name for name in NQ_TITLE_FIELDS if record.get(name)), None)
    if field is None:
        raise _Skip("no gold page title")
    titles = [record[field]] if isinstance(record[field], str) else record[field]
    if not isinstance(titles, list) or not all(isinstance(title, str) for title in titles):
        raise context.error(field, f"expected a title or a list of titles, got {titles!r:.80}")
    support = []
    for title in titles:
        doc_id = matcher.by_title(title)
        if doc_id not in support:
            support.append(doc_id)
    return question, answers, support


def _qid(record: Mapping[str, Any], name: str, context: _Context) -> str:
    if name == "musique":
        return _text(record, "id", context)
    if name == "hotpotqa":
        return _text(record, "_id", context)
    for field in NQ_ID_FIELDS:
        if record.get(field) not in (None, ""):
            return str(record[field])
    return f"nq-{context.line}"


def _answers(answer: str, aliases: Any, field: str, context: _Context) -> list[str]:
    if not isinstance(aliases, list) or not all(isinstance(alias, str) for alias in aliases):
        raise context.error(field, f"expected a list of strings, got {aliases!r:.80}")
    cleaned = [item.strip() for item in [answer, *aliases]]
    return list(dict.fromkeys(item for item in cleaned if item))


def _text(record: Mapping[str, Any], name: str, context: _Context) -> str:
    value = require_field(record, name, context.file, context.index)
    if not isinstance(value, str) or not value.strip():
        raise context.error(name, f"expected a non-empty string, got {value!r:.80}")
    return value.strip()


def _list(record: Mapping[str, Any], name: str, context: _Context) -> list[Any]:
    value = require_field(record, name, context.file, context.index)
    if not isinstance(value, list) or not value:
        raise context.error(name, f"expected a non-empty list, got {value!r:.80}")
    return value


def _numbered_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(1-based line number for JSON Lines, else position + 1, record), so NQ qids follow the file."""
    if path.suffix.lower() != ".jsonl":
        return list(enumerate(read_records(path, SUFFIXES), start=1))
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise InputError(str(path), None, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from err
    numbered: list[tuple[int, dict[str, Any]]] = []
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise record_error(str(path), len(numbered), None, f"line {line_number} is not valid JSON ({err})") from err
        if not isinstance(record, dict):
            raise record_error(str(path), len(numbered), None, f"line {line_number}: expected an object, got {type(record).__name__}")
        numbered.append((line_number, record))
    return numbered


_FORMATS: dict[str, tuple[frozenset[str], _RowFunction]] = {
    "musique": (frozenset({"paragraphs", "question_decomposition"}), _musique_row),
    "hotpotqa": (frozenset({"supporting_facts", "context"}), _hotpot_row),
    "nq": (frozenset({"question", "answer"}), _nq_row),
}
