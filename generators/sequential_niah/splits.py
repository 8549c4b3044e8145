"""Which QA goes with which long text, and which sample goes to train, dev or test.

**Pairing** (§3.2: the long-text source is sampled "to keep the language and quantity of long
texts consistent with the QA source ... and match each QA pair one-to-one"). For a requested
number of samples:

1. samples per ``(pipeline, lang)`` follow :data:`QA_SHARES` (largest remainders); a key with
   fewer QAs than its share gives the rest to the keys that have QAs to spare, in proportion
   to their shares (the report's ``qa_moved``); each QA is used at most once;
2. within a language, samples per length bucket follow :data:`TEXT_SHARES`; a bucket with no
   text in that language gives its share to the language's other buckets (``bucket_moved``);
3. QAs are dealt to buckets at random, and within a bucket each QA gets a text, every text once
   before any twice: a bucket with fewer texts than QAs **reuses** texts, with different cuts
   because a sample's random draws are keyed by its QA (each pairing's ``reuse`` counts the
   earlier uses of its text; the report's ``reused`` counts the pairings with ``reuse > 0``).
4. A QA never gets a text that states one of its needles or answer sentences already, and
   avoids a text made of an article about one of its needles' entities (:func:`fits_text`; the
   world is the source of both the needles and, by default, the long texts): it takes the next
   text in the bucket's order that fits (``text_moved``). When every text of the bucket holds such
   an article (a bucket of a few long joins), it takes the next that states none of its needles
   (``articles_kept``); when every text states one, it stays unpaired (``no_text``). Issue 24.

**Splits** are stratified by ``(lang, length bucket, pipeline)``: the split sizes are the
proportions of :data:`FULL_SPLIT_SIZES` (10,000 / 2,000 / 2,000) of the number of samples, by
largest remainders, and each stratum gets each split's proportion of its samples rounded down or
up (a controlled rounding: every stratum's shares sum to its size and every split's to its
size), so the proportions hold within one sample per stratum.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from generators.seeding import rng_for
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import (
    BENCHMARK,
    FULL_SPLIT_SIZES,
    LANGS,
    PIPELINES,
    QA_SHARES,
    TEXT_SHARES,
)
from generators.sequential_niah.texts import LongText
from needlework.errors import SpecError

K = TypeVar("K", bound=Hashable)
SPLITS: tuple[str, ...] = tuple(FULL_SPLIT_SIZES)


@dataclass(frozen=True)
class Pairing:
    """One sample to build: a QA, the long text it goes into, and the text's earlier uses.

    Attributes:
        qid: The QA's id.
        text_id: The long text's id.
        lang: Their language.
        pipeline: The QA's pipeline.
        length_bucket: The text's bucket.
        reuse: How many earlier pairings use the same text (0 for its first use).
    """

    qid: str
    text_id: str
    lang: str
    pipeline: str
    length_bucket: str
    reuse: int


@dataclass
class PairingReport:
    """What :func:`pair_texts` could and could not follow.

    Attributes:
        requested: Samples asked for.
        paired: Samples paired.
        qa_moved: ``(pipeline, lang)`` -> samples its share lacked QAs for (moved elsewhere).
        bucket_moved: ``(bucket, lang)`` -> samples its share lacked texts for (moved elsewhere).
        unpaired_qas: QAs of a language without any long text.
        reused: Pairings whose text was used before.
        text_moved: Pairings that took a later text of the bucket's order because the text in turn
            holds one of the QA's needles or an article about its entities (:func:`fits_text`).
        articles_kept: Pairings whose text holds an article about the QA's entities because every
            text of the bucket does (the text states none of its needles or answer sentences).
        no_text: QAs left unpaired because every text of their bucket states one of their needles.
    """

    requested: int = 0
    paired: int = 0
    qa_moved: Counter = field(default_factory=Counter)
    bucket_moved: Counter = field(default_factory=Counter)
    unpaired_qas: int = 0
    reused: int = 0
    text_moved: int = 0
    articles_kept: int = 0
    no_text: int = 0


def scaled_counts(shares: Mapping[K, int], total: int) -> dict[K, int]:
    """``total`` split in proportion to ``shares`` by largest remainders (ties: the earlier key).

    Raises:
        SpecError: ``total`` is negative, or positive while all shares are zero.
    """
    if total < 0:
        raise SpecError(f"a total must be >= 0, got {total}")
    weight = sum(shares.values())
    if weight <= 0:
        if total:
            raise SpecError("cannot split a positive total by shares that are all zero")
        return {k: 0 for k in shares}
    exact = {k: total * s / weight for k, s in shares.items()}
    counts = {k: int(v) for k, v in exact.items()}
    keys = list(shares)
    rest = sorted(range(len(keys)), key=lambda i: (-(exact[keys[i]] - counts[keys[i]]), i))
    for i in rest[: total - sum(counts.values())]:
        counts[keys[i]] += 1
    return counts


def capped_counts(shares: Mapping[K, int], total: int, available: Mapping[K, int]) -> tuple[dict[K, int], Counter]:
    """:func:`scaled_counts` of ``min(total, sum(available))``, each key capped by ``available``, the
    excess moved to the uncapped keys in proportion to their shares; returns the counts and what moved."""
    total = min(total, sum(available.get(k, 0) for k in shares))
    moved: Counter = Counter()
    counts = {k: 0 for k in shares}
    open_keys = [k for k in shares if available.get(k, 0) > 0]
    nominal = scaled_counts(shares, total)
    for k in shares:
        if available.get(k, 0) <= 0 and nominal[k] > 0:
            moved[k] += nominal[k]
    remaining = total
    while remaining > 0 and open_keys:
        share = {k: shares[k] or 1 for k in open_keys}
        step = scaled_counts(share, remaining)
        remaining = 0
        for k in list(open_keys):
            room = available[k] - counts[k]
            take = min(step[k], room)
            counts[k] += take
            if step[k] > room:
                moved[k] += step[k] - room
                remaining += step[k] - room
            if counts[k] >= available[k]:
                open_keys.remove(k)
    return counts, moved


def pair_texts(qas: Sequence[SequentialQA], texts: Sequence[LongText], *, seed: int,
               size: int | None = None) -> tuple[list[Pairing], PairingReport]:
    """Pair QAs with long texts in the paper's proportions (see the module docstring).

    Args:
        qas: Candidate QAs (unique ``qid``); the ones used are drawn at random per key.
        texts: Long texts with their buckets (unique ``text_id``).
        seed: The build seed; draws come from ``rng_for(seed, "sequential-niah", "pairing", ...)``.
        size: Samples wanted; ``None`` uses every QA of a language that has texts.

    Returns:
        The pairings sorted by ``(lang, qid)``, and a report of what could not be followed.

    Raises:
        SpecError: Duplicate ids or a negative size.
    """
    _unique([q.qid for q in qas], "qid")
    _unique([t.text_id for t in texts], "text_id")
    by_key: dict[tuple[str, str], list[SequentialQA]] = defaultdict(list)
    for qa in qas:
        by_key[(qa.pipeline, qa.lang)].append(qa)
    texts_by: dict[tuple[str, str], list[LongText]] = defaultdict(list)
    for text in texts:
        texts_by[(text.length_bucket, text.lang)].append(text)
    langs_with_texts = {t.lang for t in texts}
    report = PairingReport()
    report.unpaired_qas = sum(1 for q in qas if q.lang not in langs_with_texts)
    available = {k: len(v) for k, v in by_key.items() if k[1] in langs_with_texts}
    requested = sum(available.values()) if size is None else size
    if requested < 0:
        raise SpecError(f"size must be >= 0, got {size}")
    report.requested = requested
    shares = {k: QA_SHARES.get(k, 0) for k in QA_SHARES}
    shares.update({k: 1 for k in available if k not in shares})
    per_key, report.qa_moved = capped_counts(shares, requested, available)
    pairings: list[Pairing] = []
    for lang in LANGS:
        chosen: list[SequentialQA] = []
        for pipeline in PIPELINES:
            pool = sorted(by_key.get((pipeline, lang), []), key=lambda q: q.qid)
            rng = rng_for(seed, BENCHMARK, "pairing", f"qas/{pipeline}/{lang}")
            chosen += [pool[i] for i in sorted(rng.permutation(len(pool))[: per_key.get((pipeline, lang), 0)].tolist())]
        pairings += _pair_language(lang, chosen, texts_by, seed, report)
    pairings.sort(key=lambda p: (p.lang, p.qid))
    report.paired = len(pairings)
    report.reused = sum(1 for p in pairings if p.reuse > 0)
    return pairings, report


def paired(pairings: Sequence[Pairing], qas: Sequence[SequentialQA],
           texts: Sequence[LongText]) -> Iterator[tuple[SequentialQA, LongText]]:
    """The ``(qa, text)`` objects of each pairing, in order (the input of ``generate_samples``)."""
    qa_by = {q.qid: q for q in qas}
    text_by = {t.text_id: t for t in texts}
    for p in pairings:
        yield qa_by[p.qid], text_by[p.text_id]


def split_sizes(total: int, proportions: Mapping[str, int] = FULL_SPLIT_SIZES) -> dict[str, int]:
    """Samples per split for ``total`` samples in the proportions of :data:`FULL_SPLIT_SIZES` (largest remainders)."""
    return scaled_counts(dict(proportions), total)


def assign_splits(strata: Mapping[str, tuple[str, ...]], *, seed: int,
                  proportions: Mapping[str, int] = FULL_SPLIT_SIZES) -> dict[str, str]:
    """Sample id -> split, stratified by each sample's stratum (e.g. ``(lang, bucket, pipeline)``).

    Split sizes are :func:`split_sizes` of the number of samples; a stratum of ``n`` samples gets
    ``floor`` or ``ceil`` of ``n * p`` for each split's proportion ``p`` (controlled rounding). The
    samples of a stratum are sorted by id, shuffled with ``rng_for(seed, "sequential-niah",
    "splits", "/".join(stratum))`` and dealt in split order.
    """
    sizes = split_sizes(len(strata), proportions)
    names = list(sizes)
    members: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for sample, stratum in strata.items():
        members[tuple(stratum)].append(sample)
    keys = sorted(members)
    counts = _controlled_rounding([len(members[k]) for k in keys], [proportions[s] for s in names],
                                  [sizes[s] for s in names])
    out: dict[str, str] = {}
    for key, row in zip(keys, counts):
        ids = sorted(members[key])
        rng = rng_for(seed, BENCHMARK, "splits", "/".join(key))
        shuffled = [ids[i] for i in rng.permutation(len(ids)).tolist()]
        start = 0
        for name, c in zip(names, row):
            out.update((sample, name) for sample in shuffled[start : start + c])
            start += c
    return out


def stratum_of(row: Mapping[str, object]) -> tuple[str, str, str]:
    """A row's stratum for :func:`assign_splits`: ``(lang, length_bucket, pipeline)``."""
    return (str(row["lang"]), str(row["length_bucket"]), str(row["pipeline"]))


def _pair_language(lang: str, chosen: list[SequentialQA], texts_by: Mapping[tuple[str, str], list[LongText]],
                   seed: int, report: PairingReport) -> list[Pairing]:
    """Deal one language's QAs to buckets in :data:`TEXT_SHARES` proportions and give each a text.

    A bucket outside Table 1 (``4k-7k``) gets the share of the table's smallest one for the
    language, so that a build asking for it gets as many of its samples as of ``8k-16k``.
    """
    buckets = [b for (b, text_lang) in TEXT_SHARES if text_lang == lang]
    buckets += sorted({b for (b, text_lang) in texts_by if text_lang == lang} - set(buckets))
    smallest = min((share for (_, text_lang), share in TEXT_SHARES.items() if text_lang == lang), default=1)
    shares = {b: TEXT_SHARES.get((b, lang), smallest) for b in buckets}
    has_texts = {b: (len(texts_by.get((b, lang), [])) > 0) for b in buckets}
    if not chosen or not any(has_texts.values()):
        return []
    counts = scaled_counts(shares, len(chosen))
    for b in buckets:
        if not has_texts[b]:
            report.bucket_moved[(b, lang)] += counts[b]
    counts = scaled_counts({b: s for b, s in shares.items() if has_texts[b]}, len(chosen))
    rng = rng_for(seed, BENCHMARK, "pairing", f"buckets/{lang}")
    labels = np.repeat(np.array(list(counts), dtype=object), list(counts.values()))
    labels = labels[rng.permutation(len(labels))]
    dealt: dict[str, list[SequentialQA]] = defaultdict(list)
    for qa, bucket in zip(sorted(chosen, key=lambda q: q.qid), labels.tolist()):
        dealt[bucket].append(qa)
    out: list[Pairing] = []
    for bucket in counts:
        pool = sorted(texts_by[(bucket, lang)], key=lambda t: t.text_id)
        rng = rng_for(seed, BENCHMARK, "pairing", f"texts/{bucket}/{lang}")
        order = rng.permutation(len(pool)).tolist()
        uses: Counter = Counter()
        for i, qa in enumerate(dealt[bucket]):
            turn = [pool[order[(i + j) % len(pool)]] for j in range(len(pool))]
            at = next((j for j, t in enumerate(turn) if fits_text(qa, t)), None)
            if at is None:  # every text holds an article about its entities: one that states no needle
                at = next((j for j, t in enumerate(turn) if fits_text(qa, t, articles=False)), None)
                report.articles_kept += at is not None
            if at is None:
                report.no_text += 1
                continue
            text = turn[at]
            report.text_moved += at > 0
            out.append(Pairing(qa.qid, text.text_id, lang, qa.pipeline, bucket, uses[text.text_id]))
            uses[text.text_id] += 1
    return out


def stated_sentences(qa: SequentialQA) -> tuple[str, ...]:
    """What must occur in a sample's input only where it is inserted: the needles, and each answer
    that is a sentence of its own (one its needle does not contain, e.g. a temporal answer
    ``February 1, 2006: ...``; a name or a step its needle states is checked through the needle)."""
    return (*qa.needles, *(a for a, n in zip(qa.answers, qa.needles) if a not in n))


def fits_text(qa: SequentialQA, text: LongText, *, articles: bool = True) -> bool:
    """Whether ``text`` may hold ``qa``'s needles (issue 24): it contains none of
    :func:`stated_sentences` and (unless ``articles`` is false) is made of none of the articles
    about the needles' entities (``qa.articles``)."""
    if articles and qa.articles and not set(qa.articles).isdisjoint(text.parts):
        return False
    return not any(s in text.text for s in stated_sentences(qa))


def _controlled_rounding(rows: Sequence[int], weights: Sequence[int], columns: Sequence[int]) -> list[list[int]]:
    """Integer table with row sums ``rows``, column sums ``columns`` and each cell the ``floor`` or ``ceil``
    of ``row * weight / sum(weights)``.

    Floors first; the units left (a row's fractional parts add up to a whole number) go one per
    cell with a fractional part, chosen by a maximum flow from rows to columns, which exists for a
    two-way table whose column sums are roundings of the exact ones (controlled rounding).
    """
    total_w = sum(weights)
    n_rows, n_cols = len(rows), len(weights)
    table = [[r * w // total_w for w in weights] for r in rows]
    # Flow network: 0 = source, 1..n_rows = strata, then the splits, then the sink.
    size = n_rows + n_cols + 2
    sink = size - 1
    capacity = np.zeros((size, size), dtype=np.int64)
    for i in range(n_rows):
        capacity[0, 1 + i] = rows[i] - sum(table[i])
        for j in range(n_cols):
            if rows[i] * weights[j] % total_w:
                capacity[1 + i, 1 + n_rows + j] = 1
    for j in range(n_cols):
        capacity[1 + n_rows + j, sink] = columns[j] - sum(table[i][j] for i in range(n_rows))
    flow = _max_flow(capacity, 0, sink)
    if flow.sum(axis=1)[0] != capacity[0].sum() or np.any(capacity[1 + n_rows : sink, sink] < 0):
        raise SpecError("no stratified split meets these split sizes")  # not reachable when sizes are consistent
    for i in range(n_rows):
        for j in range(n_cols):
            table[i][j] += int(flow[1 + i, 1 + n_rows + j])
    return table


def _max_flow(capacity: np.ndarray, source: int, sink: int) -> np.ndarray:
    """Edmonds-Karp maximum flow on a small dense network (breadth-first augmenting paths, lowest index first)."""
    flow = np.zeros_like(capacity)
    while True:
        parent = np.full(len(capacity), -1)
        parent[source] = source
        queue = [source]
        while queue and parent[sink] < 0:
            u = queue.pop(0)
            for v in np.nonzero(capacity[u] - flow[u] > 0)[0].tolist():
                if parent[v] < 0:
                    parent[v] = u
                    queue.append(v)
        if parent[sink] < 0:
            return flow
        v, bottleneck = sink, None
        while v != source:
            u = int(parent[v])
            left = int(capacity[u, v] - flow[u, v])
            bottleneck = left if bottleneck is None else min(bottleneck, left)
            v = u
        v = sink
        while v != source:
            u = int(parent[v])
            flow[u, v] += bottleneck
            flow[v, u] -= bottleneck
            v = u


def _unique(ids: Sequence[str], name: str) -> None:
    dupes = [i for i, c in Counter(ids).items() if c > 1]
    if dupes:
        raise SpecError(f"duplicate {name}: {', '.join(sorted(dupes)[:5])}")
