"""A corpus and the questions whose needle documents it holds: files given by the user, or the synthetic world.

MediaWiki dumps and passage files are concatenated into one corpus; MuSiQue, HotpotQA and Natural
Questions files are mapped onto it (questions whose needles it lacks are dropped, with the reason).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from builders.engine import Engine
from builders.hashing import file_sha256
from builders.sources.corpus_read import CorpusRead, concat_corpora
from builders.sources.multihop_qa import read_qa
from builders.sources.multistream import part_key
from builders.sources.passages import read_passages
from builders.sources.wikipedia import read_mediawiki_dump
from builders.sources.world_corpus import world_corpus_and_qa
from needlework.errors import InputError

DUMP_SUFFIXES = (".xml", ".xml.bz2")
ATTRIBUTION = {
    "wikipedia": "- corpus: English Wikipedia (CC BY-SA 4.0 / GFDL), from a MediaWiki XML dump",
    "passages": "- corpus: passages distributed with the QA datasets (MuSiQue CC BY 4.0, HotpotQA CC BY-SA 4.0, 2WikiMultihopQA Apache-2.0)",
    "world": "- corpus and questions: needlework's synthetic world (Apache-2.0); every entity and fact is fictional",
    "qa": "- questions: MuSiQue (CC BY 4.0), HotpotQA (CC BY-SA 4.0), Natural Questions (CC BY-SA 3.0), as given",
}


@dataclass(frozen=True)
class CorpusAndQa:
    """A corpus and its questions.

    Attributes:
        corpus: The corpus, its links and title index.
        qa: The ``qa`` table of the questions kept (needles all in the corpus).
        dropped: ``(qid, reason)`` of every question left out.
        fingerprints: Input file -> sha256 (or the world's parameters).
        attribution: Markdown lines naming the sources and their licenses.
    """

    corpus: CorpusRead
    qa: pa.Table
    dropped: tuple[tuple[str, str], ...]
    fingerprints: dict[str, str]
    attribution: str


def read_corpus(paths: Sequence[Path], *, workers: int = 0, progress: bool = False, engine: Engine | None = None) -> CorpusRead:
    """One corpus source: a MediaWiki dump (or the parts of one) by its suffix, else a passage file."""
    for path in paths:
        if not path.exists():
            raise InputError(str(path), None, None, "no such file")
    if paths[0].name.endswith(DUMP_SUFFIXES) or part_key(paths[0]) is not None:
        return read_mediawiki_dump(paths, workers=workers, progress=progress, engine=engine)
    return read_passages(paths[0])


def corpus_sources(paths: Sequence[Path]) -> list[list[Path]]:
    """The corpus files grouped into sources, in the order given: consecutive numbered parts of one
    Wikimedia dump (``...-pages-articles[-multistream]N.xml-pAAApBBB.bz2``) are one source, sorted
    into dump order (part number, then first page id), whatever order a shell glob gave them in;
    every other file is a source of its own."""
    sources: list[list[Path]] = []
    stem: str | None = None
    for path in paths:
        key = part_key(path)
        if key is not None and key[0] == stem:
            sources[-1].append(path)
        else:
            sources.append([path])
        stem = None if key is None else key[0]
    return [sorted(group, key=lambda p: part_key(p)[1:]) if len(group) > 1 else group  # type: ignore[index]
            for group in sources]


def read_corpus_and_qa(corpus: Sequence[str], qa: Sequence[str], *, world_docs: int, world_questions: int, seed: int,
                       max_questions: int | None = None, workers: int = 0, progress: bool = False,
                       engine: Engine | None = None) -> CorpusAndQa:
    """The corpus and questions: ``corpus`` files concatenated with the ``qa`` files' questions, or, when
    ``corpus`` is empty, the synthetic world's English articles and questions.

    Args:
        corpus: MediaWiki ``.xml``/``.xml.bz2`` dumps (consecutive parts of one dump are read as
            one: :func:`corpus_sources`) and passage files, in doc-id order.
        qa: MuSiQue, HotpotQA or Natural Questions files (needed with ``corpus``).
        world_docs, world_questions, seed: The world's size and seed (without ``corpus``).
        max_questions: Keep only the first questions (all when ``None``).
        workers: Processes parsing a dump (0 = all cores).
        progress: Show progress bars.
        engine: Where a dump's pages are parsed (default: ``workers`` local processes; :mod:`builders.engine`).

    Raises:
        InputError: A file is missing, no question has all its needles in the corpus, or question
            ids repeat across the files.
    """
    if not corpus:
        world, qa_read = world_corpus_and_qa(world_docs, world_questions, seed)
        fingerprints = {"world": f"docs={world_docs},questions={world_questions},seed={seed}"}
        questions, dropped, notes = qa_read.qa, list(qa_read.dropped), [ATTRIBUTION["world"]]
        read = world
    else:
        paths = [Path(c) for c in corpus]
        reads = [read_corpus(group, workers=workers, progress=progress, engine=engine) for group in corpus_sources(paths)]
        read = reads[0] if len(reads) == 1 else concat_corpora(reads)
        fingerprints = {str(p): file_sha256(p) for p in paths}
        kinds = {"wikipedia" if p.name.endswith(DUMP_SUFFIXES) or part_key(p) else "passages" for p in paths}
        notes = [ATTRIBUTION[k] for k in ("wikipedia", "passages") if k in kinds] + [ATTRIBUTION["qa"]]
        tables, dropped = [], []
        for q in qa:
            qa_read = read_qa(Path(q), read)
            fingerprints[q] = file_sha256(Path(q))
            tables.append(qa_read.qa)
            dropped.extend(qa_read.dropped)
        if not tables:
            raise InputError(corpus[0], None, None, "a corpus needs questions: give --qa files whose supporting documents it holds")
        questions = pa.concat_tables(tables)
    if max_questions is not None:
        questions = questions.slice(0, max_questions)
    if questions.num_rows == 0:
        raise InputError(", ".join(qa) or "world", None, None, "no question has all its needle documents in the corpus")
    repeated = sorted(q for q, n in Counter(questions["qid"].to_pylist()).items() if n > 1)[:3]
    if repeated:
        raise InputError(", ".join(qa), None, "qid", f"question ids repeat across the QA files: {repeated}")
    return CorpusAndQa(read, questions, tuple(dropped), fingerprints, "## Sources\n\n" + "\n".join(notes))
