"""EMB-S's Stage I form for real sources: documents and (Query, Answer, RefDoc) triples as tables.

Every EMB-S source adapter (the official release in :mod:`builders.sources.embs_hub`, the raw
benchmarks of the paper's Table 5 in :mod:`builders.sources.embs_raw`) returns an
:class:`EmbsSource`; the builder (``builders/embs.py``) consumes only this. Documents are
identified by their position in ``docs`` until the builder assigns the MemoryBank's ``doc_id``;
a triple's ``ref_docs`` are such positions (paper §3.2: RefDoc, later the RefList).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

DOC_SCHEMA = pa.schema([
    pa.field("title", pa.string()),
    pa.field("text", pa.string()),
    pa.field("lang", pa.string()),
    pa.field("source", pa.string()),
    pa.field("domain", pa.string()),  # one of generators.world.schema.DOMAINS, or null when the source does not say
])
TRIPLE_SCHEMA = pa.schema([
    pa.field("qid", pa.string()),
    pa.field("query", pa.string()),
    pa.field("answer", pa.string()),
    pa.field("answers", pa.list_(pa.string())),
    pa.field("ref_docs", pa.list_(pa.int64())),  # positions in EmbsSource.docs
    pa.field("source", pa.string()),
    pa.field("lang", pa.string()),
    pa.field("split", pa.string()),  # "test" or "train"
    pa.field("domain", pa.string()),  # null when the source does not say
])


def text_key(text: str) -> str:
    """sha256 hex of the NFC-normalized text: how a reference text is matched to a corpus document."""
    return hashlib.sha256(unicodedata.normalize("NFC", text).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class LadderCorpus:
    """One corpus of a ladder a source ships (the official release does), as document positions.

    Attributes:
        scale: The scale label as the source names it (``"64K"``, ``"1M"``, ``"326M"``).
        domain: The domain of a domain-tier corpus, ``"all"`` for a shared one.
        docs: Positions in :attr:`EmbsSource.docs`, in the source's order.
    """

    scale: str
    domain: str
    docs: tuple[int, ...]


@dataclass(frozen=True)
class EmbsSource:
    """A real source standardized into documents and (Query, Answer, RefDoc) triples.

    Attributes:
        docs: :data:`DOC_SCHEMA` rows; position is the document's local id.
        triples: :data:`TRIPLE_SCHEMA` rows.
        label: What was read, for the manifest (e.g. ``"longbench(files=2)"``).
        fingerprints: Input name -> sha256 (or Hub revision), for the manifest.
        attribution: Markdown for the card: the sources, their licences, where they came from.
        ladder: The source's own ladder corpora, if it ships one (else empty).
    """

    docs: pa.Table
    triples: pa.Table
    label: str
    fingerprints: dict[str, str] = field(default_factory=dict)
    attribution: str = ""
    ladder: tuple[LadderCorpus, ...] = ()


def concat_sources(sources: Sequence[EmbsSource]) -> EmbsSource:
    """Several sources as one: documents de-duplicated by :func:`text_key` (first kept), refs remapped.

    The paper deduplicates the aggregated raw data before standardization (§3.1); a document two
    sources share becomes one document, and both sources' triples point at it.
    """
    if len(sources) == 1:
        return sources[0]
    titles: list[str] = []
    texts: list[str] = []
    langs: list[str] = []
    origin: list[str] = []
    domains: list[str | None] = []
    position: dict[str, int] = {}
    triples: list[dict] = []
    ladder: list[LadderCorpus] = []
    fingerprints: dict[str, str] = {}
    for source in sources:
        remap: list[int] = []
        for row in source.docs.to_pylist():
            key = text_key(row["text"])
            if key not in position:
                position[key] = len(texts)
                titles.append(row["title"])
                texts.append(row["text"])
                langs.append(row["lang"])
                origin.append(row["source"])
                domains.append(row["domain"])
            remap.append(position[key])
        for row in source.triples.to_pylist():
            triples.append({**row, "ref_docs": [remap[i] for i in row["ref_docs"]]})
        ladder.extend(LadderCorpus(c.scale, c.domain, tuple(remap[i] for i in c.docs)) for c in source.ladder)
        fingerprints.update(source.fingerprints)
    docs = pa.table({"title": titles, "text": texts, "lang": langs, "source": origin, "domain": domains}, schema=DOC_SCHEMA)
    return EmbsSource(
        docs, pa.Table.from_pylist(triples, schema=TRIPLE_SCHEMA), " + ".join(s.label for s in sources),
        fingerprints, "\n\n".join(s.attribution for s in sources if s.attribution), tuple(ladder),
    )
