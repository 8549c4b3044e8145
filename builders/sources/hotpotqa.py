"""HotpotQA (distractor setting) as a :class:`DocQaPool` for RULERv2's multi-doc QA.

Every context paragraph becomes a document, unique by title (the first occurrence wins), in the
order first seen over the questions in file order. A question's gold documents are its supporting
titles; its distractors are the other paragraphs of its own context. Files (JSON or JSON Lines of
the original records) and the Hub dataset share one conversion: Hub rows are first reshaped into
the original record shape by :func:`hotpot_records_from_hub`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builders.sources.records import read_records, record_error, require_field
from generators.rulerv2.pools import DocQaPool, DocQuestion, Document
from needlework.errors import InputError
from needlework.hub import load_hub_dataset

JSON_SUFFIXES = (".json", ".jsonl")


@dataclass(frozen=True)
class HotpotRead:
    """A HotpotQA pool and the questions left out of it.

    Attributes:
        pool: The documents and the usable questions.
        dropped: qids, in file order, of questions with a supporting title that is not among their
            own context titles (their gold paragraph is missing, so they cannot be answered from it).
    """

    pool: DocQaPool
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class _Record:
    qid: str
    question: str
    answer: str
    support: tuple[str, ...]
    context: tuple[tuple[str, str], ...]


def read_hotpotqa_json(path: Path) -> HotpotRead:
    """Read HotpotQA distractor-setting records from a file, as released or as HippoRAG ships them.

    Args:
        path: A ``.json`` list of records or a ``.jsonl`` file with one record per line. A record
            has ``_id``, ``question``, ``answer``, ``supporting_facts`` (``[title, sentence index]``
            pairs) and ``context`` (``[title, [sentences]]`` pairs); other fields are ignored.

    Returns:
        The pool (see :func:`hotpot_pool_from_records`) and the qids of dropped questions.

    Raises:
        InputError: The file is missing, not JSON, or a record is malformed.
    """
    return hotpot_pool_from_records(read_records(path, JSON_SUFFIXES), str(path))


def read_hotpotqa_hub(
    repo: str = "hotpotqa/hotpot_qa", config: str = "distractor", split: str = "validation"
) -> HotpotRead:
    """Load HotpotQA from the Hub (or a local folder in the Hub's layout) with ``datasets``.

    Args:
        repo: A dataset repo id with the Hub schema (``id``, ``supporting_facts`` and ``context``
            as columns of lists), or a local folder that ``load_dataset`` reads.
        config: ``distractor`` (10 paragraphs per question, as RULERv2 uses) or ``fullwiki``.
        split: ``train`` or ``validation`` (the test split has no answers).

    Returns:
        The same pool :func:`read_hotpotqa_json` returns for the same records, and the dropped qids.

    Raises:
        InputError: A row is malformed.
    """
    source = f"{repo} ({config}, {split})"
    rows = load_hub_dataset(repo, config, split=split, label=source)
    return hotpot_pool_from_records(hotpot_records_from_hub(rows, source), source)


def hotpot_records_from_hub(rows: Iterable[Mapping[str, Any]], source_label: str) -> Iterator[dict[str, Any]]:
    """Reshape Hub rows into the original JSON records, so both paths share one conversion.

    The Hub stores ``supporting_facts`` as ``{title: [...], sent_id: [...]}`` and ``context`` as
    ``{title: [...], sentences: [[...], ...]}``, and calls ``_id`` ``id``.

    Args:
        rows: Rows with the Hub schema.
        source_label: Names the source in error messages.

    Yields:
        Records with ``_id``, ``question``, ``answer``, ``type``, ``level``, ``supporting_facts``
        and ``context`` in the original shape.

    Raises:
        InputError: A row lacks a field or its parallel lists differ in length.
    """
    for index, row in enumerate(rows):
        facts = _columns(row, "supporting_facts", ("title", "sent_id"), source_label, index)
        context = _columns(row, "context", ("title", "sentences"), source_label, index)
        yield {
            "_id": require_field(row, "id", source_label, index),
            "question": require_field(row, "question", source_label, index),
            "answer": require_field(row, "answer", source_label, index),
            "type": row.get("type"),
            "level": row.get("level"),
            "supporting_facts": [list(pair) for pair in zip(*facts)],
            "context": [list(pair) for pair in zip(*context)],
        }


def hotpot_pool_from_records(
    records: Iterable[Mapping[str, Any]], source_label: str, name: str = "hotpotqa"
) -> HotpotRead:
    """Turn HotpotQA records into documents and questions; the pure core of both readers.

    Documents are every context paragraph (sentences joined, stripped), unique by title with the
    first occurrence winning, in first-seen order, including the paragraphs of dropped questions.
    A question's gold documents follow the order of its ``supporting_facts``; its distractors are
    its other context titles in context order. Questions and answers are stripped, titles kept
    verbatim (they are the keys ``supporting_facts`` refers to). Yes/no (comparison) answers are kept.

    Args:
        records: Records in the original JSON shape.
        source_label: Names the file or dataset in error messages.
        name: The pool's name.

    Returns:
        The pool and the qids of dropped questions (see :class:`HotpotRead`).

    Raises:
        InputError: A record is malformed, or no question is usable.
    """
    positions: dict[str, int] = {}
    documents: list[Document] = []
    questions: list[DocQuestion] = []
    dropped: list[str] = []
    for index, raw in enumerate(records):
        record = _parse(raw, source_label, index)
        for title, text in record.context:
            if title not in positions:
                positions[title] = len(documents)
                documents.append(Document(title, text))
        own = list(dict.fromkeys(title for title, _ in record.context))
        gold = list(dict.fromkeys(record.support))
        if not set(gold) <= set(own):
            dropped.append(record.qid)
            continue
        distractors = tuple(positions[title] for title in own if title not in gold)
        questions.append(DocQuestion(record.qid, record.question, (record.answer,),
                                     tuple(positions[title] for title in gold), distractors,
                                     tuple(positions[title] for title in own)))
    if not questions:
        raise InputError(source_label, None, None, f"no usable questions ({len(dropped)} dropped)")
    return HotpotRead(DocQaPool(name, tuple(documents), tuple(questions)), tuple(dropped))


def _parse(raw: Mapping[str, Any], source: str, index: int) -> _Record:
    if not isinstance(raw, Mapping):
        raise record_error(source, index, None, f"expected an object, got {type(raw).__name__}")
    qid, answer = (_text(raw, name, source, index) for name in ("_id", "answer"))
    question = _text(raw, "question", source, index, strip=False)  # prepare_qa.py puts it in the prompt as given
    support = tuple(title for title, _ in _pairs(raw, "supporting_facts", int, source, index))
    context = tuple(
        (title, "".join(_sentences(sentences, source, index, position)).strip())
        for position, (title, sentences) in enumerate(_pairs(raw, "context", list, source, index))
    )
    return _Record(qid, question, answer, support, context)


def _text(record: Mapping[str, Any], name: str, source: str, index: int, *, strip: bool = True) -> str:
    value = require_field(record, name, source, index)
    if not isinstance(value, str) or not value.strip():
        raise record_error(source, index, name, f"expected a non-empty string, got {value!r}")
    return value.strip() if strip else value


def _pairs(record: Mapping[str, Any], name: str, second: type, source: str, index: int) -> list[tuple[str, Any]]:
    value = require_field(record, name, source, index)
    if not isinstance(value, list) or not value:
        raise record_error(source, index, name, f"expected a non-empty list, got {type(value).__name__}")
    for position, pair in enumerate(value):
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
        if not ok or not isinstance(pair[1], second) or isinstance(pair[1], bool):
            raise record_error(source, index, f"{name}[{position}]", f"expected [title, {second.__name__}], got {pair!r}")
    return [(title, item) for title, item in value]


def _sentences(sentences: list[Any], source: str, index: int, position: int) -> list[str]:
    if not all(isinstance(sentence, str) for sentence in sentences):
        raise record_error(source, index, f"context[{position}]", "expected a list of sentence strings")
    return sentences


def _columns(row: Mapping[str, Any], name: str, keys: tuple[str, str], source: str, index: int) -> tuple[list, list]:
    value = require_field(row, name, source, index)
    if not isinstance(value, Mapping) or not all(isinstance(value.get(key), list) for key in keys):
        raise record_error(source, index, name, f"expected {{{keys[0]}: [...], {keys[1]}: [...]}}, got {value!r:.80}")
    first, second = (value[key] for key in keys)
    if len(first) != len(second):
        raise record_error(source, index, name, f"{keys[0]} has {len(first)} items but {keys[1]} has {len(second)}")
    return first, second
