"""What every corpus adapter returns: the ``corpus`` and ``links`` tables, a title index and counts.

Titles are compared only in MediaWiki's canonical form (:func:`normalize_title`), so a wikilink
``[[political_philosophy#History]]``, a MuSiQue paragraph title and a Natural Questions gold page
all meet the corpus on the same key.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CORPUS_SCHEMA = pa.schema([
    pa.field("doc_id", pa.int64()),
    pa.field("title", pa.string()),
    pa.field("text", pa.string()),
    pa.field("lang", pa.string()),
    pa.field("source", pa.string()),
])

LINKS_SCHEMA = pa.schema([
    pa.field("src", pa.int64()),
    pa.field("dst", pa.int64()),
])

_WHITESPACE = re.compile(r"\s+")


def normalize_title(title: str) -> str:
    """A page title in MediaWiki's canonical form, the one key every title comparison uses.

    Drops a ``#section`` part, turns underscores into spaces, collapses whitespace runs, strips,
    and upper-cases the first character only (MediaWiki's ``first-letter`` case rule), so
    ``" political_philosophy#History"`` and ``"Political philosophy"`` compare equal.

    Args:
        title: A title as written in a link, a dump or a dataset.

    Returns:
        The canonical title; empty when nothing but a section anchor (or nothing) was given.
    """
    title = title.split("#", 1)[0].replace("_", " ")
    title = _WHITESPACE.sub(" ", title).strip()
    return title[:1].upper() + title[1:]


@dataclass(frozen=True)
class CorpusRead:
    """A corpus read from one or more sources.

    Attributes:
        corpus: :data:`CORPUS_SCHEMA` rows, ``doc_id`` = 0..n-1 in input order.
        links: :data:`LINKS_SCHEMA` rows: unique pairs, no self-links, both ends in ``corpus``,
            sorted by (src, dst).
        titles: Normalized title -> ids of the documents with that title, ascending. Wikipedia
            redirect titles map to their target's id; passage corpora may give one title
            several passages.
        label: Names the source(s) in reports and error messages.
        stats: Counts of what was read, kept, filtered and resolved (keys depend on the reader).
        dropped_chars: Per document, the characters of its source markup dropped without showing (a MediaWiki
            page's templates, references, File and Category links); None when the source has no markup.
    """

    corpus: pa.Table
    links: pa.Table
    titles: dict[str, tuple[int, ...]]
    label: str
    stats: dict[str, int]
    dropped_chars: np.ndarray | None = None

    def ids_for_title(self, title: str) -> tuple[int, ...]:
        """The documents a title names (after normalization and redirects); empty when none."""
        return tuple(self.titles.get(normalize_title(title), ()))


def title_index(titles: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Normalized title -> ids (ascending) of the documents ``0..n-1`` carrying it, for :attr:`CorpusRead.titles`."""
    index: dict[str, list[int]] = {}
    for doc_id, title in enumerate(titles):
        index.setdefault(normalize_title(title), []).append(doc_id)
    return {title: tuple(ids) for title, ids in index.items()}


def corpus_table(
    titles: Sequence[str], texts: Sequence[str] | pa.Array | pa.ChunkedArray, lang: str, source: str
) -> pa.Table:
    """The ``corpus`` table of documents given in order (doc ids 0..n-1).

    Args:
        titles: Titles by doc id.
        texts: Texts by doc id; an Arrow array (chunked) is used as is, so large corpora need not
            hold every text as a Python string.
        lang: The ``lang`` of every document.
        source: The ``source`` of every document.
    """
    n = len(titles)
    if not isinstance(texts, (pa.Array, pa.ChunkedArray)):
        texts = pa.array(texts, pa.string())
    if len(texts) != n:
        raise ValueError(f"{n} titles but {len(texts)} texts")
    return pa.table(
        {
            "doc_id": pa.array(np.arange(n, dtype=np.int64)),
            "title": pa.array(titles, pa.string()),
            "text": texts,
            "lang": pa.array([lang] * n, pa.string()),
            "source": pa.array([source] * n, pa.string()),
        },
        schema=CORPUS_SCHEMA,
    )


def links_table(pairs: Iterable[tuple[int, int]]) -> pa.Table:
    """The ``links`` table of (src, dst) pairs in any order: de-duplicated, self-links dropped, sorted."""
    flat = np.fromiter(itertools.chain.from_iterable(pairs), dtype=np.int64).reshape(-1, 2)
    return links_from_arrays(flat[:, 0], flat[:, 1])


def links_from_arrays(src: np.ndarray, dst: np.ndarray) -> pa.Table:
    """The ``links`` table of parallel src/dst id arrays: de-duplicated, self-links dropped, sorted.

    Arrays rather than Python pairs, so a graph of ~10^8 links (full Wikipedia) fits in memory.
    """
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    first = np.ones(len(src), dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    return pa.table({"src": pa.array(src[first]), "dst": pa.array(dst[first])}, schema=LINKS_SCHEMA)


def concat_corpora(reads: Sequence[CorpusRead]) -> CorpusRead:
    """Several corpora as one, so Wikipedia and passage collections can share a haystack.

    Documents keep their order (all of the first source, then the second, ...) and are renumbered
    0..n-1; links and title ids are shifted with them. A title present in several sources names
    all their documents. Stats are kept per source, each key prefixed with ``"{label}:"`` (sources
    with the same label are summed). Only the :data:`CORPUS_SCHEMA` columns are kept (columns such
    as ``n_tokens`` belong to a build and are computed after concatenation).

    Args:
        reads: The corpora, in the order their documents should get ids.

    Returns:
        The combined corpus, labelled with the sources' labels joined by ``"+"``.

    Raises:
        ValueError: No corpus was given.
    """
    if not reads:
        raise ValueError("concat_corpora needs at least one corpus")
    tables, link_tables = [], []
    titles: dict[str, list[int]] = {}
    stats: dict[str, int] = {}
    offset = 0
    for read in reads:
        n = read.corpus.num_rows
        corpus = read.corpus.select(CORPUS_SCHEMA.names).cast(CORPUS_SCHEMA)
        shifted = pa.array(np.arange(offset, offset + n, dtype=np.int64))
        tables.append(corpus.set_column(0, CORPUS_SCHEMA.field("doc_id"), shifted))
        links = read.links.select(LINKS_SCHEMA.names).cast(LINKS_SCHEMA)
        link_tables.append(pa.table(
            {name: pc.add(links[name], pa.scalar(offset, pa.int64())) for name in LINKS_SCHEMA.names},
            schema=LINKS_SCHEMA,
        ))
        for title, ids in read.titles.items():
            titles.setdefault(title, []).extend(doc_id + offset for doc_id in ids)
        for key, value in read.stats.items():
            stats[f"{read.label}:{key}"] = stats.get(f"{read.label}:{key}", 0) + value
        offset += n
    # Each source's links are already sorted and ids only grow across sources, so order holds.
    return CorpusRead(
        corpus=pa.concat_tables(tables),
        links=pa.concat_tables(link_tables),
        titles={title: tuple(sorted(ids)) for title, ids in titles.items()},
        label="+".join(read.label for read in reads),
        stats=stats,
        dropped_chars=None if all(read.dropped_chars is None for read in reads) else np.concatenate(
            [np.zeros(read.corpus.num_rows, np.int64) if read.dropped_chars is None else read.dropped_chars
             for read in reads]),
    )
