"""The authors' HaystackCraft input files: the corpus (``docs.jsonl`` + ``edge_list.csv``), the question
files, and a question subset by id.

Formats, as Graph-COM/HaystackCraft reads them (its Hub dataset ships the files under ``data/``):

- ``docs.jsonl`` (``utils/data.py`` ``load_docs``): one JSON object per line with ``id`` (a string,
  unique: the code asserts it), ``title`` and ``text``; a document is rendered ``Article Title:
  {title}\\n{text}`` (``infer_multi.py``). Other fields are ignored.
- ``edge_list.csv`` (``retrievers/ppr.py`` ``load_network_edges_direct``): the header
  ``source_node,target_node`` (asserted), then one hyperlink per row between two ``docs.jsonl`` ids.
  The authors add both directions to their PPR graph; the ``links`` table keeps the rows as
  directed pairs (deduplicated, self-links dropped) and needlework's PPR symmetrizes them.
- question files (``utils/data.py`` ``load_data``: ``musique_400_250616.jsonl`` and
  ``nq_filtered.jsonl``, the paper's 500 = MuSiQue 400 + NQ 100; ``eval.py``,
  ``infer_multi.py``): one object per line with ``id``, ``question``, ``answer``,
  ``answer_aliases`` (a list) and ``p2d_id`` (an object whose values are the needle documents'
  ``docs.jsonl`` ids). Hops = the number of distinct needles; the source is ``musique`` for
  MuSiQue's ids (``2hop__...``, ``3hop1__...``), else ``nq``.

Documents get doc ids 0..n-1 in file order. A question whose needle is not in the corpus is dropped
with the reason, as :mod:`builders.sources.multihop_qa` does. An id file (one question id per line)
keeps a subset, in the question files' order: the paper's 500 out of fuller files, or any list.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson

from builders.engine import engine_of
from builders.hashing import file_sha256
from builders.sources.corpus_qa import ATTRIBUTION, CorpusAndQa, read_corpus_and_qa
from builders.sources.corpus_read import (
    CorpusRead,
    corpus_table,
    links_from_arrays,
    title_index,
)
from builders.sources.multihop_qa import LANG, QA_SCHEMA, QaRead
from builders.sources.records import json_lines, record_error, require_field
from needlework.errors import InputError

DOCS_FILE = "docs.jsonl"
EDGES_FILE = "edge_list.csv"
EDGE_HEADER = ["source_node", "target_node"]
QA_FIELDS = ("id", "question", "answer", "answer_aliases", "p2d_id")
SOURCE = "haystackcraft"
MUSIQUE_ID = re.compile(r"^\dhop")
CORPUS_ATTRIBUTION = ("- corpus: the HaystackCraft English Wikipedia corpus (CC BY-SA 4.0), docs.jsonl and edge_list.csv "
                      "as Graph-COM/HaystackCraft ships them")


def official_paths(path: str | Path) -> tuple[Path, Path]:
    """``(docs.jsonl, edge_list.csv)`` of ``--official-corpus``: a folder holding both, or the
    ``docs.jsonl`` path with ``edge_list.csv`` beside it."""
    path = Path(path)
    docs = path / DOCS_FILE if path.is_dir() else path
    return docs, docs.parent / EDGES_FILE


def read_official_corpus(path: str | Path) -> tuple[CorpusRead, pa.Array]:
    """The corpus of ``docs.jsonl`` and its hyperlinks from ``edge_list.csv`` (see the module docstring).

    Args:
        path: A folder with both files, or the ``docs.jsonl`` path (``edge_list.csv`` beside it).

    Returns:
        The corpus (doc ids 0..n-1 in file order) and the official ids by doc id (strings).

    Raises:
        InputError: A file is missing; a record lacks ``id``, ``title`` or ``text`` or has the wrong
            type; an id repeats; the edge file's header is not ``source_node,target_node``; an edge
            names an id that ``docs.jsonl`` lacks.
    """
    docs_path, edges_path = official_paths(path)
    ids, titles, texts = _read_docs(docs_path)
    src, dst, rows = _read_edges(edges_path, ids)
    links = links_from_arrays(src, dst)
    corpus = corpus_table(titles, texts, LANG, SOURCE)
    stats = {"documents": len(ids), "edge_rows": rows, "links": links.num_rows}
    return CorpusRead(corpus, links, title_index(titles), f"{SOURCE}:{docs_path.name}", stats), ids


def _read_docs(path: Path) -> tuple[pa.Array, list[str], pa.ChunkedArray | list[str]]:
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    schema = pa.schema([("id", pa.string()), ("title", pa.string()), ("text", pa.string())])
    try:
        table = pajson.read_json(path, parse_options=pajson.ParseOptions(explicit_schema=schema,
                                                                           unexpected_field_behavior="ignore"))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        table = None
    if table is None or any(table[name].null_count for name in schema.names):
        return _read_docs_slowly(path)  # finds and names the record at fault, or reads numeric ids
    ids = table["id"].combine_chunks()
    _check_unique(path, ids)
    return ids, table["title"].to_pylist(), table["text"]


def _read_docs_slowly(path: Path) -> tuple[pa.Array, list[str], list[str]]:
    """``docs.jsonl`` record by record, so a bad record is named with its line (the fast reader cannot)."""
    ids: list[str] = []
    titles: list[str] = []
    texts: list[str] = []
    for line_number, record in _jsonl_records(path):
        doc_id = require_field(record, "id", str(path), line_number - 1)
        if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
            raise InputError(str(path), line_number, "id", f"expected a string, got {doc_id!r:.60}")
        for name, out in (("title", titles), ("text", texts)):
            value = require_field(record, name, str(path), line_number - 1)
            if not isinstance(value, str):
                raise InputError(str(path), line_number, name, f"expected a string, got {value!r:.60}")
            out.append(value)
        ids.append(str(doc_id))
    array = pa.array(ids, pa.string())
    _check_unique(path, array)
    return array, titles, texts


def _check_unique(path: Path, ids: pa.Array) -> None:
    if len(pc.unique(ids)) == len(ids):
        return
    first = pc.index_in(ids, value_set=pc.unique(ids)).to_numpy(zero_copy_only=False)
    seen = np.zeros(len(ids), dtype=bool)
    for position, key in enumerate(first):
        if seen[key]:
            raise record_error(str(path), position, "id", f"duplicate document id {ids[position].as_py()!r}")
        seen[key] = True


def _read_edges(path: Path, ids: pa.Array) -> tuple[np.ndarray, np.ndarray, int]:
    if not path.is_file():
        raise InputError(str(path), None, None, f"file not found (the hyperlinks beside {DOCS_FILE})")
    try:
        table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(
            column_types={name: pa.string() for name in EDGE_HEADER}, strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
        raise InputError(str(path), None, None, f"not a CSV edge list ({str(err).splitlines()[0]})") from None
    if table.column_names != EDGE_HEADER:
        raise InputError(str(path), None, None, f"expected the header {','.join(EDGE_HEADER)}, got {','.join(table.column_names)}")
    ends = []
    for name in EDGE_HEADER:
        index = pc.index_in(table[name], value_set=ids)
        if index.null_count:
            row = int(np.flatnonzero(index.is_null().to_numpy(zero_copy_only=False))[0])
            raise record_error(str(path), row, name, f"document id {table[name][row].as_py()!r} is not in {DOCS_FILE} "
                                                     f"(line {row + 2})")
        ends.append(index.to_numpy(zero_copy_only=False).astype(np.int64))
    return ends[0], ends[1], table.num_rows


def read_official_qa(path: str | Path, ids: pa.Array) -> QaRead:
    """The questions of an official question file, needles mapped through ``p2d_id`` to doc ids.

    Args:
        path: A ``.jsonl`` file of records with :data:`QA_FIELDS`.
        ids: The official id of each doc id (:func:`read_official_corpus`).

    Raises:
        InputError: A record is not an object or lacks a field or has the wrong type, or an id repeats.
    """
    path = Path(path)
    records = _jsonl_records(path)
    wanted = pa.array(sorted({str(v) for _, r in records if isinstance(r.get("p2d_id"), Mapping)
                              for v in r["p2d_id"].values()}), pa.string())
    found = pc.index_in(wanted, value_set=ids).to_pylist()
    doc_of = {key: doc for key, doc in zip(wanted.to_pylist(), found) if doc is not None}
    rows: list[dict[str, Any]] = []
    dropped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line, record in records:
        index = line - 1
        values = {name: require_field(record, name, str(path), index) for name in QA_FIELDS}
        qid, question, answer = (values[name] for name in ("id", "question", "answer"))
        for name, value in (("id", qid), ("question", question), ("answer", answer)):
            if not isinstance(value, str) or not value.strip():
                raise InputError(str(path), line, name, f"expected a non-empty string, got {value!r:.60}")
        aliases = values["answer_aliases"]
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InputError(str(path), line, "answer_aliases", f"expected a list of strings, got {aliases!r:.60}")
        needles = values["p2d_id"]
        if not isinstance(needles, Mapping) or not needles:
            raise InputError(str(path), line, "p2d_id", f"expected a non-empty object of document ids, got {needles!r:.60}")
        if qid in seen:
            raise InputError(str(path), line, "id", f"duplicate question id {qid!r}")
        seen.add(qid)
        official = list(dict.fromkeys(str(v) for v in needles.values()))
        missing = [d for d in official if d not in doc_of]
        if missing:
            dropped.append((qid, f"needle document {missing[0]!r} is not in the corpus"))
            continue
        answers = list(dict.fromkeys(a.strip() for a in [answer, *aliases] if a.strip()))
        rows.append({"qid": qid, "question": question.strip(), "answers": answers,
                     "support": [doc_of[d] for d in official], "hops": len(official),
                     "source": "musique" if MUSIQUE_ID.match(qid) else "nq", "lang": LANG})
    return QaRead(pa.Table.from_pylist(rows, schema=QA_SCHEMA), tuple(dropped), f"{SOURCE}:{path.name}")


def _jsonl_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(1-based record number, object) of every record of a JSON Lines file (:func:`json_lines`); at least one."""
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    records = json_lines(path)
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise record_error(str(path), index, None, f"expected an object, got {type(record).__name__}")
    if not records:
        raise InputError(str(path), None, None, "no records")
    return list(enumerate(records, start=1))


def read_question_ids(path: str | Path) -> list[str]:
    """The question ids of an id file: one per line, surrounding whitespace and blank lines ignored.

    Raises:
        InputError: The file is missing or empty, or an id repeats (naming its line).
    """
    return list(_id_lines(Path(path)))


def _id_lines(path: Path) -> dict[str, int]:
    """Question id -> its 1-based line in the id file (see :func:`read_question_ids`)."""
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    ids: dict[str, int] = {}
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        qid = line.strip()
        if not qid:
            continue
        if qid in ids:
            raise InputError(str(path), line_number, "id", f"{qid!r} repeats line {ids[qid]}")
        ids[qid] = line_number
    if not ids:
        raise InputError(str(path), None, None, "no question ids")
    return ids


def select_questions(inputs: CorpusAndQa, path: str | Path) -> CorpusAndQa:
    """Keep the questions an id file lists, in the question files' order (see :func:`read_question_ids`).

    Raises:
        InputError: A listed id is not among the questions read (the reason given when the question
            was dropped), naming the id file and line.
    """
    path = Path(path)
    line_of = _id_lines(path)
    qids = inputs.qa["qid"].to_pylist()
    present = set(qids)
    why = dict(inputs.dropped)
    for qid in line_of:
        if qid not in present:
            reason = f" (dropped: {why[qid]})" if qid in why else ""
            raise InputError(str(path), line_of[qid], "id", f"question {qid!r} is not in the question files{reason}")
    keep = pa.array([qid in line_of for qid in qids])
    dropped = tuple((qid, reason) for qid, reason in inputs.dropped if qid in line_of)
    fingerprints = {**inputs.fingerprints, str(path): file_sha256(path)}
    return CorpusAndQa(inputs.corpus, inputs.qa.filter(keep), dropped, fingerprints, inputs.attribution)


def read_official_inputs(path: str | Path, qa: Sequence[str]) -> CorpusAndQa:
    """The official corpus with the official question files' questions (see the module docstring).

    Raises:
        InputError: No question file was given, or no question has all its needles in the corpus.
    """
    if not qa:
        raise InputError(str(path), None, None, "the official corpus needs its question files: give --qa "
                                                "(musique_400_250616.jsonl, nq_filtered.jsonl)")
    corpus, ids = read_official_corpus(path)
    docs, edges = official_paths(path)
    fingerprints = {str(docs): file_sha256(docs), str(edges): file_sha256(edges)}
    tables, dropped = [], []
    for name in qa:
        read = read_official_qa(name, ids)
        fingerprints[name] = file_sha256(Path(name))
        tables.append(read.qa)
        dropped.extend(read.dropped)
    questions = pa.concat_tables(tables)
    repeated = sorted(q for q, n in Counter(questions["qid"].to_pylist()).items() if n > 1)[:3]
    if repeated:
        raise InputError(", ".join(qa), None, "id", f"question ids repeat across the question files: {repeated}")
    attribution = "## Sources\n\n" + "\n".join([CORPUS_ATTRIBUTION, ATTRIBUTION["qa"]])
    return CorpusAndQa(corpus, questions, tuple(dropped), fingerprints, attribution)


def read_build_inputs(spec: Any, *, progress: bool = False) -> CorpusAndQa:
    """The corpus and questions of a HaystackCraft build spec: the official files (``official_corpus``)
    or :func:`builders.sources.corpus_qa.read_corpus_and_qa`'s inputs, then the ``qa_ids`` subset,
    then the first ``max_questions``.

    Raises:
        InputError: As the readers do, or no question is left.
    """
    if spec.official_corpus:
        inputs = read_official_inputs(spec.official_corpus, spec.qa)
    else:
        inputs = read_corpus_and_qa(spec.corpus, spec.qa, world_docs=spec.world_docs,
                                    world_questions=spec.world_questions, seed=spec.seed,
                                    max_questions=None if spec.qa_ids else spec.max_questions,
                                    workers=spec.workers, progress=progress, engine=engine_of(spec))
        if not spec.qa_ids:
            return inputs
    if spec.qa_ids:
        inputs = select_questions(inputs, spec.qa_ids)
    if spec.max_questions is not None:
        inputs = CorpusAndQa(inputs.corpus, inputs.qa.slice(0, spec.max_questions), inputs.dropped,
                             inputs.fingerprints, inputs.attribution)
    if inputs.qa.num_rows == 0:
        raise InputError(spec.official_corpus or ", ".join(spec.qa) or "world", None, None,
                         "no question has all its needle documents in the corpus")
    return inputs
