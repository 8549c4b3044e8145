"""SQuAD and MuSiQue as :class:`DocQaPool` sources for RULERv2's multi-doc QA (the paper's Appendix D.2).

RULERv2 builds multi-doc QA from HotpotQA and names SQuAD (Rajpurkar et al. 2016, the paper's [32])
and MuSiQue as the other QA bases; these readers give the same pool shape as
:mod:`builders.sources.hotpotqa`, so every multi-doc QA level and the existing QA scoring apply
unchanged. Records are numbered from 0 in data order, and a malformed one raises an
:class:`InputError` naming the file, the record and the field.

- SQuAD v1.1 (``rajpurkar/squad``): a question asks about one Wikipedia paragraph. The original
  file (``dev-v1.1.json``: ``{"data": [{"title", "paragraphs": [{"context", "qas": [{"id",
  "question", "answers": [{"text", "answer_start"}]}]}]}]}``) and flat records in the Hub's columns
  (``id``, ``title``, ``context``, ``question``, ``answers: {text: [...], answer_start: [...]}``;
  JSON Lines, JSON or Parquet, or the Hub dataset itself) are read. Each distinct paragraph is a
  document titled by its article (underscores shown as spaces); a question's one gold document is
  its paragraph, it has no distractors of its own (contexts are filled with other paragraphs), and
  its answers are the distinct annotated answer texts in order.
- MuSiQue (``musique_ans`` records as released and as HippoRAG ships them,
  ``data/musique_train.json``): ``id``, ``question``, ``answer``, ``answer_aliases``,
  ``answerable`` and 20 ``paragraphs`` (``idx``, ``title``, ``paragraph_text``, ``is_supporting``).
  Documents are unique by title and text (a title has several paragraphs); a question's gold
  documents are its supporting paragraphs in paragraph order, its distractors the other 18 or so;
  its answers the answer and its aliases. Unanswerable questions (MuSiQue-Full) are dropped and
  listed, as a HotpotQA question with a missing gold paragraph is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from builders.sources.hotpotqa import HotpotRead
from builders.sources.records import read_records, record_error, require_field
from generators.rulerv2.pools import DocQaPool, DocQuestion, Document
from needlework.errors import InputError
from needlework.hub import load_hub_dataset

SQUAD_HUB = "rajpurkar/squad"
SUFFIXES = (".json", ".jsonl", ".parquet")


class _Documents:
    """Documents unique by (title, text), numbered in first-seen order."""

    def __init__(self) -> None:
        self.positions: dict[tuple[str, str], int] = {}
        self.documents: list[Document] = []

    def index(self, title: str, text: str) -> int:
        key = (title, text)
        if key not in self.positions:
            self.positions[key] = len(self.documents)
            self.documents.append(Document(title, text))
        return self.positions[key]


def _text(record: Mapping[str, Any], name: str, source: str, index: int) -> str:
    value = require_field(record, name, source, index)
    if not isinstance(value, str) or not value.strip():
        raise record_error(source, index, name, f"expected a non-empty string, got {value!r}")
    return value.strip()


# --- SQuAD -----------------------------------------------------------------------------------------


def squad_records_from_original(data: Mapping[str, Any], source: str) -> Iterator[dict[str, Any]]:
    """Flatten the original nested SQuAD JSON into records with the Hub's columns, in file order."""
    articles = data.get("data")
    if not isinstance(articles, list):
        raise InputError(source, None, "data", "expected SQuAD's {\"data\": [articles]} layout")
    for a, article in enumerate(articles):
        title = article.get("title", "") if isinstance(article, Mapping) else ""
        paragraphs = article.get("paragraphs") if isinstance(article, Mapping) else None
        if not isinstance(paragraphs, list):
            raise record_error(source, a, "paragraphs", "expected a list of paragraphs")
        for paragraph in paragraphs:
            for qa in paragraph.get("qas", []):
                answers = qa.get("answers") or []
                yield {"id": qa.get("id"), "title": title, "context": paragraph.get("context"),
                       "question": qa.get("question"),
                       "answers": {"text": [x.get("text") for x in answers],
                                   "answer_start": [x.get("answer_start") for x in answers]}}


def squad_pool_from_records(records: Iterable[Mapping[str, Any]], source: str, name: str = "squad") -> HotpotRead:
    """The pool of flat SQuAD records (Hub columns); the pure core of both readers.

    Raises:
        InputError: A record is malformed, or there are no questions.
    """
    documents = _Documents()
    questions: list[DocQuestion] = []
    for index, record in enumerate(records):
        context = _text(record, "context", source, index)
        title = str(record.get("title") or "").replace("_", " ").strip()
        answers = require_field(record, "answers", source, index)
        texts = answers.get("text") if isinstance(answers, Mapping) else answers
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t.strip() for t in texts):
            raise record_error(source, index, "answers", f"expected {{text: [non-empty strings]}}, got {answers!r:.80}")
        gold = documents.index(title, context)
        questions.append(DocQuestion(str(require_field(record, "id", source, index)), _text(record, "question", source, index),
                                     tuple(dict.fromkeys(t.strip() for t in texts)), (gold,), (), (gold,)))
    if not questions:
        raise InputError(source, None, None, "no questions")
    return HotpotRead(DocQaPool(name, tuple(documents.documents), tuple(questions)), ())


def read_squad_file(path: Path) -> HotpotRead:
    """Read SQuAD from the original nested JSON (``dev-v1.1.json``) or flat records (JSONL, JSON, Parquet)."""
    if path.suffix.lower() == ".json" and path.is_file():
        import json

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise InputError(str(path), None, None, f"unreadable JSON: {err}") from err
        if isinstance(data, Mapping):
            return squad_pool_from_records(squad_records_from_original(data, str(path)), str(path))
    return squad_pool_from_records(read_records(path, SUFFIXES), str(path))


def read_squad_hub(repo: str = SQUAD_HUB, split: str = "validation") -> HotpotRead:
    """Load SQuAD from the Hub (or a local folder in its layout) with ``datasets``."""
    source = f"{repo} ({split})"
    return squad_pool_from_records(load_hub_dataset(repo, split=split, label=source), source)


# --- MuSiQue ---------------------------------------------------------------------------------------


def musique_pool_from_records(records: Iterable[Mapping[str, Any]], source: str, name: str = "musique") -> HotpotRead:
    """The pool of MuSiQue records; unanswerable questions are dropped and listed.

    Raises:
        InputError: A record is malformed, or no question is usable.
    """
    documents = _Documents()
    questions: list[DocQuestion] = []
    dropped: list[str] = []
    for index, record in enumerate(records):
        qid = _text(record, "id", source, index)
        paragraphs = require_field(record, "paragraphs", source, index)
        if not isinstance(paragraphs, list) or not paragraphs:
            raise record_error(source, index, "paragraphs", "expected a non-empty list")
        own, gold = [], []
        for position, paragraph in enumerate(paragraphs):
            where = f"paragraphs[{position}]"
            if not isinstance(paragraph, Mapping) or not isinstance(paragraph.get("paragraph_text"), str):
                raise record_error(source, index, where, "expected {title, paragraph_text, is_supporting}")
            doc = documents.index(str(paragraph.get("title") or "").strip(), paragraph["paragraph_text"].strip())
            if doc not in own:
                own.append(doc)
            if paragraph.get("is_supporting") and doc not in gold:
                gold.append(doc)
        if record.get("answerable") is False or not gold:
            dropped.append(qid)
            continue
        aliases = record.get("answer_aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise record_error(source, index, "answer_aliases", f"expected a list of strings, got {aliases!r:.80}")
        answers = tuple(dict.fromkeys(a.strip() for a in [_text(record, "answer", source, index), *aliases] if a.strip()))
        questions.append(DocQuestion(qid, _text(record, "question", source, index), answers, tuple(gold),
                                     tuple(d for d in own if d not in gold), tuple(own)))
    if not questions:
        raise InputError(source, None, None, f"no usable questions ({len(dropped)} dropped)")
    return HotpotRead(DocQaPool(name, tuple(documents.documents), tuple(questions)), tuple(dropped))


def read_musique_file(path: Path) -> HotpotRead:
    """Read MuSiQue records from a JSON list, JSON Lines (as released) or Parquet file."""
    return musique_pool_from_records(read_records(path, SUFFIXES), str(path))


def read_musique_hub(repo: str, split: str = "validation") -> HotpotRead:
    """Load MuSiQue records with the original columns from the Hub (or a local folder) with ``datasets``."""
    source = f"{repo} ({split})"
    return musique_pool_from_records(load_hub_dataset(repo, split=split, label=source), source)
