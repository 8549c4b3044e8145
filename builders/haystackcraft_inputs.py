"""The corpus and questions a HaystackCraft build reads: files given by the user, or the synthetic world."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from builders.hashing import file_sha256
from builders.sources.corpus_read import CorpusRead, concat_corpora
from builders.sources.multihop_qa import read_qa
from builders.sources.passages import read_passages
from builders.sources.wikipedia import read_mediawiki_dump
from builders.sources.world_corpus import world_corpus_and_qa
from needlework.errors import InputError

if TYPE_CHECKING:
    from builders.haystackcraft import HaystackCraftBuild

DUMP_SUFFIXES = (".xml", ".xml.bz2")
ATTRIBUTION = {
    "wikipedia": "- corpus: English Wikipedia (CC BY-SA 4.0 / GFDL), from a MediaWiki XML dump",
    "passages": "- corpus: passages distributed with the QA datasets (MuSiQue CC BY 4.0, HotpotQA CC BY-SA 4.0, 2WikiMultihopQA Apache-2.0)",
    "world": "- corpus and questions: needlework's synthetic world (Apache-2.0); every entity and fact is fictional",
    "qa": "- questions: MuSiQue (CC BY 4.0), HotpotQA (CC BY-SA 4.0), Natural Questions (CC BY-SA 3.0), as given",
}


@dataclass(frozen=True)
class HaystackInputs:
    """A build's corpus and questions.

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


def read_corpus(path: Path, *, workers: int = 0, progress: bool = False) -> CorpusRead:
    """One corpus source: a MediaWiki dump by its suffix, else a passage file."""
    if not path.exists():
        raise InputError(str(path), None, None, "no such file")
    if path.name.endswith(DUMP_SUFFIXES):
        return read_mediawiki_dump(path, workers=workers, progress=progress)
    return read_passages(path)


def read_inputs(spec: "HaystackCraftBuild", *, progress: bool = False) -> HaystackInputs:
    """The corpus and questions of a build, questions limited to ``spec.max_questions``."""
    if not spec.corpus:
        corpus, qa_read = world_corpus_and_qa(spec.world_docs, spec.world_questions, spec.seed)
        fingerprints = {"world": f"docs={spec.world_docs},questions={spec.world_questions},seed={spec.seed}"}
        qa, dropped, notes = qa_read.qa, list(qa_read.dropped), [ATTRIBUTION["world"]]
    else:
        paths = [Path(c) for c in spec.corpus]
        reads = [read_corpus(p, workers=spec.workers, progress=progress) for p in paths]
        corpus = reads[0] if len(reads) == 1 else concat_corpora(reads)
        fingerprints = {str(p): file_sha256(p) for p in paths}
        kinds = {"wikipedia" if p.name.endswith(DUMP_SUFFIXES) else "passages" for p in paths}
        notes = [ATTRIBUTION[k] for k in ("wikipedia", "passages") if k in kinds] + [ATTRIBUTION["qa"]]
        tables, dropped = [], []
        for q in spec.qa:
            read = read_qa(Path(q), corpus)
            fingerprints[q] = file_sha256(Path(q))
            tables.append(read.qa)
            dropped.extend(read.dropped)
        if not tables:
            raise InputError(spec.corpus[0], None, None, "a corpus needs questions: give --qa files whose supporting documents it holds")
        qa = pa.concat_tables(tables)
    if spec.max_questions is not None:
        qa = qa.slice(0, spec.max_questions)
    if qa.num_rows == 0:
        raise InputError(", ".join(spec.qa) or "world", None, None, "no question has all its needle documents in the corpus")
    repeated = sorted(q for q, n in Counter(qa["qid"].to_pylist()).items() if n > 1)[:3]
    if repeated:
        raise InputError(", ".join(spec.qa), None, "qid", f"question ids repeat across the QA files: {repeated}")
    return HaystackInputs(corpus, qa, tuple(dropped), fingerprints, "## Sources\n\n" + "\n".join(notes))
