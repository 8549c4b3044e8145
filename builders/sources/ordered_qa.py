"""Read questions with ordered answers: any record file, and the Sequential-NIAH authors' QA files.

:func:`read_ordered_questions` reads any record table (``.jsonl``, ``.json``, ``.parquet``,
``.csv``) whose records hold a question and an ordered list of items, under configurable field
names, for the real-logical pipeline. Items may be a list of strings or one text with one item per
line (``- item``, ``1. item``, ``Step 2: item``, ``第2步：item``; other lines, such as an
introduction, are dropped when some lines are marked). The authors' ``QA_*.jsonl`` (``question``,
``answer``, ``needles``, ``meta``) is read this way too, taking the marked lines of ``answer``.

:func:`read_authors_qa` reads the authors' records as finished QAs, their needles as written:
``meta.ppl`` ``tkg`` is real-temporal, ``syn`` synthetic-temporal, anything else real-logical.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from builders.sources.records import TABLE_SUFFIXES, read_records, record_error, require_field
from needlework.checks import is_one_of, one_of_message
from needlework.errors import SpecError
from generators.sequential_niah.logical import OrderedQuestion, asks_for_order
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import LANGS

ITEM_FIELDS: tuple[str, ...] = ("items", "steps", "answers", "answer")
"""Fields tried, in order, when no items field is named."""
KEY_FIELDS: tuple[str, ...] = ("id", "qid", "md5")
"""Fields tried, in order, for a record's key (else its index)."""
PIPELINE_OF_PPL: dict[str, str] = {"tkg": "real-temporal", "syn": "synthetic-temporal"}
"""The authors' ``meta.ppl`` -> needlework pipeline; any other value is real-logical."""

_MARKED = re.compile(r"^\s*(?:[-*•·]|\d{1,3}\s*[.)、:：](?!\d)|[（(]\d{1,3}[)）]|step\s*\d{1,3}\s*[:.：]|"
                     r"第[一二三四五六七八九十百\d]+步\s*[:：、.]?)\s*(?P<item>\S.*)$", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def parse_items(text: str) -> list[str]:
    """The items of a list written as text: its marked lines if any, else its non-empty lines."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    marked = [m["item"].strip() for m in (_MARKED.match(line) for line in lines) if m]
    return marked if marked else lines


def detect_lang(text: str) -> str:
    """``zh`` when at least a fifth of the non-space characters are CJK ideographs, else ``en``."""
    chars = [c for c in text if not c.isspace()]
    return "zh" if chars and len(_CJK.findall(text)) * 5 >= len(chars) else "en"


def _lang(record: Mapping[str, Any], lang: str | None, lang_field: str, text: str, file: str, index: int) -> str:
    meta = record.get("meta")
    value = lang or record.get(lang_field) or (meta.get("lang") if isinstance(meta, dict) else None) or detect_lang(text)
    if not is_one_of(value, LANGS):
        raise record_error(file, index, lang_field, one_of_message("language", value, LANGS))
    return value


def _text(record: Mapping[str, Any], field: str, file: str, index: int) -> str:
    value = require_field(record, field, file, index)
    if not isinstance(value, str) or not value.strip():
        raise record_error(file, index, field, "expected non-empty text")
    return value


def _items(value: Any, field: str, file: str, index: int) -> list[str]:
    if isinstance(value, str):
        return parse_items(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise record_error(file, index, field, f"expected a list of strings or a text with one item per line, got {type(value).__name__}")


def read_ordered_questions(path: Path, *, question_field: str = "question", items_field: str | None = None,
                           lang: str | None = None, lang_field: str = "lang", key_field: str | None = None,
                           task_field: str | None = None, source: str | None = None) -> list[OrderedQuestion]:
    """The questions of a record file with their ordered items, for :func:`generators.sequential_niah.logical.logical_qas`.

    Args:
        path: The file.
        question_field: The question's field.
        items_field: The items' field; by default the first of :data:`ITEM_FIELDS` a record has.
        lang: The language of every record; by default the record's ``lang_field``, its
            ``meta.lang``, or detected from the question.
        lang_field: The per-record language field.
        key_field: The field holding a unique record id; by default the first of
            :data:`KEY_FIELDS` present, else the record index.
        task_field: Optional field naming the procedure (a noun phrase) for the needles.
        source: The QAs' source label; by default the file name without suffix.

    Raises:
        InputError: A record lacks the question or items, has items of the wrong type, an
            unknown language, or repeats another record's key.
    """
    file = str(path)
    label = source or path.stem
    out: list[OrderedQuestion] = []
    keys: dict[str, int] = {}
    for index, record in enumerate(read_records(path, TABLE_SUFFIXES)):
        question = _text(record, question_field, file, index)
        field = items_field or next((f for f in ITEM_FIELDS if f in record), ITEM_FIELDS[0])
        items = _items(require_field(record, field, file, index), field, file, index)
        id_field = key_field or next((f for f in KEY_FIELDS if f in record), None)
        key = str(require_field(record, id_field, file, index)) if id_field else f"{index:06d}"
        if key in keys:
            raise record_error(file, index, id_field, f"key {key!r} repeats record {keys[key] + 1}")
        keys[key] = index
        task = _text(record, task_field, file, index).strip() if task_field and record.get(task_field) else None
        out.append(OrderedQuestion(key, _lang(record, lang, lang_field, question, file, index), question.strip(),
                                   tuple(items), label, task))
    return out


def _authors_answers(record: Mapping[str, Any], pipeline: str, needles: list[str], file: str, index: int) -> list[str]:
    """The answer items of an authors' record: the marked lines of ``answer``, else its source rows."""
    items = parse_items(record["answer"])
    if len(items) == len(needles):
        return items
    meta = record.get("meta") or {}
    if pipeline == "real-temporal" and len(meta.get("raw_needles") or []) == len(needles):
        return [str(n) for n in meta["raw_needles"]]
    diary = record.get("extrainfo_diary") or []
    if pipeline == "synthetic-temporal" and len(diary) == len(needles) and all(len(row) >= 8 for row in diary):
        return [f"{row[3]}：{row[7]}" for row in diary]
    raise record_error(file, index, "answer", f"{len(items)} answer items for {len(needles)} needles, and no source rows to rebuild them")


def read_authors_qa(path: Path) -> list[SequentialQA]:
    """The authors' ``QA_en.jsonl`` / ``QA_zh.jsonl`` records as QAs, needles as the authors wrote them.

    ``ordered`` is True for real-logical records and, for temporal ones, when the question asks
    for order (``按日期罗列...`` does; "What were the key interactions ... from 2007 to 2015?" does
    not). The records carry no distractors.

    Raises:
        InputError: A record lacks ``question``, ``answer`` or ``needles``, its answer items do
            not match its needles, or its needles repeat.
    """
    file = str(path)
    out: list[SequentialQA] = []
    for index, record in enumerate(read_records(path, TABLE_SUFFIXES)):
        question = _text(record, "question", file, index).strip()
        _text(record, "answer", file, index)
        needles = _items(require_field(record, "needles", file, index), "needles", file, index)
        meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
        pipeline = PIPELINE_OF_PPL.get(str(meta.get("ppl", "")), "real-logical")
        lang = _lang(record, None, "lang", question, file, index)
        answers = _authors_answers(record, pipeline, needles, file, index)
        source = str(meta.get("source") or path.stem)
        key = str(record.get("md5") or f"{index:06d}")
        ordered = pipeline == "real-logical" or asks_for_order(question, lang)
        try:
            out.append(SequentialQA(f"{pipeline}/{lang}/{source}/{key}", lang, pipeline, question, tuple(answers),
                                    tuple(needles), ordered, record["answer"], (), source))
        except SpecError as err:
            raise record_error(file, index, "needles", str(err)) from None
    return out
