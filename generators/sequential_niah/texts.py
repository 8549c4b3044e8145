"""Long texts for Sequential-NIAH grouped into the paper's length buckets by the build's tokenizer.

The paper samples LongData-Corpus texts "within different length ranges for each language"
(§3.2, Table 1). Here every source document is counted once (``count_batch``) and handled by
its length:

* inside a bucket (``low <= n_tokens < high``): kept **whole**;
* at or above the top bucket's ``high``: **cut** at the last sentence end that keeps it under
  that ``high`` (the assembler trims further if the needles do not fit);
* below the lowest bucket's ``low``: **joined** with the following short documents of the same
  language and source, in input order, separated by a blank line, until the join reaches the
  ``low`` of its target bucket; a remainder that never gets there is dropped. Joins aim at the
  buckets named by ``join_to`` in turn (default: the lowest), so that a corpus of short documents
  still fills every bucket a build asks for.

Each :class:`LongText` records which of the three happened (``origin``) and the ids of the
documents it was made of (``parts``). Sentence ends are those of
:func:`generators.text.sentence_ends` with ``line_breaks=False`` (see :data:`LINE_BREAKS`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Literal, Sequence

import numpy as np

from needlework.checks import require_one_of
from needlework.errors import SpecError
from generators.sequential_niah.spec import LANGS, PAPER_BUCKETS, LengthBucket, bucket_named
from generators.text import sentence_ends
from needlework.tokens import TokenCounter

Origin = Literal["whole", "cut", "joined"]

LINE_BREAKS = False
"""Whether a single line break ends a sentence. No: hard-wrapped prose (the Paul Graham essays)
breaks lines inside sentences; a blank line or a terminator still ends one (as NeedleBench's filler)."""

DOCUMENT_JOINER = "\n\n"
"""Between documents joined into one long text (a paragraph break, hence a sentence end)."""

JOIN_SLACK_PER_PART = 2
"""Tokens a join may lose where documents meet; joins aim this much above the bucket's ``low``
per part, so that the exact count of the joined text still reaches it."""


@dataclass(frozen=True)
class SourceText:
    """One document as a source adapter reads it.

    Attributes:
        text_id: Stable id, unique within a build (an md5, a record id, ``folder/file``).
        lang: ``en`` or ``zh``.
        source: Where it came from (LongData's ``source`` field, a folder name, ``world``);
            only documents of the same language and source are joined.
        text: The document.
    """

    text_id: str
    lang: str
    source: str
    text: str


@dataclass(frozen=True)
class LongText:
    """A long text assigned to a length bucket.

    Attributes:
        text_id: The source document's id, or ``"<first>..<last>"`` for a join.
        lang: Its language.
        source: Its source.
        text: The text, in the tokenizer's normalized form (character offsets refer to it).
        n_tokens: Its exact token count.
        length_bucket: The name of the bucket ``n_tokens`` falls in.
        origin: ``whole``, ``cut`` (its tail was dropped at a sentence end) or ``joined``.
        parts: Ids of the source documents it is made of, in order.
    """

    text_id: str
    lang: str
    source: str
    text: str
    n_tokens: int
    length_bucket: str
    origin: str
    parts: tuple[str, ...]


@dataclass
class BucketReport:
    """What :func:`bucket_texts` did with its input.

    Attributes:
        documents: Source documents read (empty ones excluded).
        empty: Documents skipped because they hold no text.
        whole: Texts kept as they were.
        cut: Texts cut to fit the top bucket.
        joined: Texts made by joining short documents.
        joined_parts: Source documents used in joins.
        dropped_short: Short documents left over (no join reached a bucket).
        dropped_uncuttable: Over-long documents with no sentence end inside the top bucket.
        per_bucket: ``(bucket, lang)`` -> texts.
    """

    documents: int = 0
    empty: int = 0
    whole: int = 0
    cut: int = 0
    joined: int = 0
    joined_parts: int = 0
    dropped_short: int = 0
    dropped_uncuttable: int = 0
    per_bucket: Counter = field(default_factory=Counter)


def bucket_of(n_tokens: int, buckets: Sequence[LengthBucket] = PAPER_BUCKETS) -> LengthBucket | None:
    """The bucket with ``low <= n_tokens < high``, or ``None``."""
    for bucket in buckets:
        if bucket.low <= n_tokens < bucket.high:
            return bucket
    return None




def bucket_texts(
    documents: Iterable[SourceText],
    tokens: TokenCounter,
    *,
    buckets: Sequence[LengthBucket] = PAPER_BUCKETS,
    join: bool = True,
    join_to: str | Sequence[str] | None = None,
) -> tuple[list[LongText], BucketReport]:
    """Long texts from ``documents``, each in a length bucket (see the module docstring).

    Args:
        documents: Source documents in a fixed order (it decides which short ones are joined).
        tokens: The build's tokenizer; texts are normalized with it and counted by it.
        buckets: Length buckets, ascending and non-overlapping.
        join: Whether short documents are joined (else they are dropped).
        join_to: The bucket (or buckets, in turn: the first join aims at the first, the next at
            the second ...) whose ``low`` joins reach; default the lowest bucket.

    Returns:
        The texts ordered by the input position of their first part, and a report.

    Raises:
        SpecError: Unknown ``join_to`` bucket, unsorted buckets or an unknown language.
    """
    ordered = sorted(buckets, key=lambda b: b.low)
    if list(buckets) != ordered or any(a.high > b.low for a, b in zip(ordered, ordered[1:])):
        raise SpecError("length buckets must be ascending and must not overlap")
    named = (join_to,) if isinstance(join_to, str) else tuple(join_to or ())
    targets = tuple(bucket_named(name, buckets) for name in named) or (ordered[0],)
    report = BucketReport()
    docs: list[SourceText] = []
    for doc in documents:
        require_one_of(f"text {doc.text_id}: lang", doc.lang, LANGS)
        text = tokens.normalize(doc.text)
        if not text.strip():
            report.empty += 1
            continue
        docs.append(SourceText(doc.text_id, doc.lang, doc.source, text))
    report.documents = len(docs)
    counts = tokens.count_batch([d.text for d in docs]) if docs else np.zeros(0, dtype=np.int64)
    top = ordered[-1]
    placed: list[tuple[int, LongText]] = []
    short: dict[tuple[str, str], list[int]] = {}
    for index, (doc, n) in enumerate(zip(docs, counts.tolist())):
        bucket = bucket_of(n, ordered)
        if bucket is not None:
            placed.append((index, _long_text(doc.text_id, doc, doc.text, n, bucket, "whole", (doc.text_id,))))
            report.whole += 1
        elif n >= top.high:
            cut = _cut_to_bucket(doc, top, tokens)
            if cut is None:
                report.dropped_uncuttable += 1
            else:
                placed.append((index, cut))
                report.cut += 1
        else:
            short.setdefault((doc.lang, doc.source), []).append(index)
    if join:
        placed += _joins(docs, counts, short, targets, ordered, tokens, report)
    else:
        report.dropped_short = sum(map(len, short.values()))
    placed.sort(key=lambda item: item[0])
    texts = [t for _, t in placed]
    report.per_bucket.update((t.length_bucket, t.lang) for t in texts)
    return texts, report


def _long_text(text_id: str, doc: SourceText, text: str, n: int, bucket: LengthBucket, origin: Origin,
               parts: tuple[str, ...]) -> LongText:
    return LongText(text_id, doc.lang, doc.source, text, int(n), bucket.name, origin, parts)


def _cut_to_bucket(doc: SourceText, bucket: LengthBucket, tokens: TokenCounter) -> LongText | None:
    """``doc`` cut at its last sentence end that leaves fewer than ``bucket.high`` tokens, if at or above ``low``."""
    _, starts = tokens.encode_with_offsets(doc.text)
    limit_char = int(starts[bucket.high - 1])  # the prefix before token high-1 has high-1 tokens
    ends = [e for e in sentence_ends(doc.text, line_breaks=LINE_BREAKS) if e <= limit_char]
    while ends:
        text = doc.text[: ends[-1]]
        n = tokens.count(text)
        if n < bucket.low:
            return None
        if n < bucket.high:
            return _long_text(doc.text_id, doc, text, n, bucket, "cut", (doc.text_id,))
        ends.pop()
    return None


def _joins(docs: list[SourceText], counts: np.ndarray, short: dict[tuple[str, str], list[int]],
           targets: Sequence[LengthBucket], buckets: Sequence[LengthBucket], tokens: TokenCounter,
           report: BucketReport) -> list[tuple[int, LongText]]:
    """Runs of consecutive short documents of one language and source, the ``k``-th joined up to
    the ``low`` of ``targets[k % len(targets)]``."""
    joiner_tokens = tokens.count(DOCUMENT_JOINER)
    runs: list[list[int]] = []
    for members in short.values():
        run: list[int] = []
        predicted = 0
        for index in members:
            predicted += int(counts[index]) + (joiner_tokens if run else 0)
            run.append(index)
            target = targets[len(runs) % len(targets)]
            if predicted >= target.low + JOIN_SLACK_PER_PART * len(run):
                runs.append(run)
                run, predicted = [], 0
        report.dropped_short += len(run)
    texts = [DOCUMENT_JOINER.join(docs[i].text for i in run) for run in runs]
    exact = tokens.count_batch(texts).tolist() if texts else []
    out: list[tuple[int, LongText]] = []
    for run, text, n in zip(runs, texts, exact):
        bucket = bucket_of(n, buckets)
        if bucket is None:
            report.dropped_short += len(run)
            continue
        first, last = docs[run[0]], docs[run[-1]]
        parts = tuple(docs[i].text_id for i in run)
        out.append((run[0], _long_text(f"{first.text_id}..{last.text_id}", first, text, n, bucket, "joined", parts)))
        report.joined += 1
        report.joined_parts += len(run)
    return out
