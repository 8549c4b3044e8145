"""The MemoryBank on the synthetic world: one article per entity, in one language, some atomized.

Each entity is written in one language, drawn per entity (twins take their original's, so a
near-miss reads like the document it imitates), so no document has a translation in the bank that
would state the same gold fact (spec §3). An atomized entity (Track 2) is represented by pieces of
its article cut at section boundaries instead of the whole article. Document IDs are a seeded
permutation of the bank's entries, so an ID says nothing about gold status.

This module stores no text: an entry is rendered on demand from the world, and the entries
themselves are two arrays (:class:`BankEntries`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from generators.embs.spec import BENCHMARK
from generators.seeding import rng_for
from generators.world.articles import Article, render_article
from generators.world.model import Fact, World
from generators.world.schema import DOMAINS, KIND_BY_ID
from generators.world.tables import LEXICONS
from needlework.rows import RowSequence

ZH_SHARE = 0.5
"""Probability that an entity is written in Chinese (spec §3)."""


@dataclass(frozen=True)
class Entry:
    """One MemoryBank document: an entity's article, or piece ``piece`` (1-based) of ``pieces``.

    ``parts`` is the range of the article's parts (:attr:`Article.parts`) the piece holds.
    """

    entity: int
    piece: int = 0
    pieces: int = 0
    parts: tuple[int, int] = (0, 0)

    @property
    def origin(self) -> str:
        """``world`` for a whole article, ``atom`` for a piece of an atomized one."""
        return "atom" if self.pieces else "world"


def entity_langs(world: World, seed: int) -> list[str]:
    """The one language of every entity: drawn per original entity, shared by its twin."""
    langs: list[str] = []
    for entity in world.entities:
        root = entity.twin_of if entity.twin_of is not None else entity.id
        if root != entity.id:
            langs.append(langs[root])
            continue
        langs.append("zh" if rng_for(seed, BENCHMARK, "lang", root).random() < ZH_SHARE else "en")
    return langs


def entity_domains(world: World) -> np.ndarray:
    """Index into :data:`DOMAINS` of every entity's domain (fixed by its kind)."""
    return np.array([DOMAINS.index(KIND_BY_ID[e.kind].domain) for e in world.entities], dtype=np.int8)


def article(world: World, entity: int, lang: str) -> Article:
    """The article of an entity in its language."""
    return render_article(world, entity, LEXICONS[lang])


def piece_ranges(n_parts: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """Part ranges of the pieces an article of ``n_parts`` parts is cut into before each index of ``cuts``."""
    bounds = [0, *sorted(set(cuts)), n_parts]
    return [(a, b) for a, b in pairwise(bounds) if b > a]


class BankEntries(RowSequence[Entry]):
    """Every document of the bank in entity order: whole articles, or an atomized entity's pieces.

    Stored as two arrays (the entity of each entry, the first entry of each entity) and the few
    atomized entities' ranges; an :class:`Entry` is made when read. A list of entries was about
    0.4 KB a document, which grew the build's memory with the bank (issue 21).
    """

    row_name = "entry"

    def __init__(self, n_entities: int, atomized: Mapping[int, Sequence[tuple[int, int]]]) -> None:
        counts = np.ones(n_entities, dtype=np.int64)
        for entity, ranges in atomized.items():
            counts[entity] = len(ranges)
        self._first = np.concatenate(([0], np.cumsum(counts)))
        self._entity = np.repeat(np.arange(n_entities, dtype=np.int32), counts)
        self._atomized = {entity: tuple(ranges) for entity, ranges in atomized.items()}

    @property
    def entities(self) -> np.ndarray:
        """The entity of every entry (read-only)."""
        view = self._entity.view()
        view.flags.writeable = False
        return view

    def __len__(self) -> int:
        return len(self._entity)

    def _row(self, index: int) -> Entry:
        entity = int(self._entity[index])
        ranges = self._atomized.get(entity)
        if ranges is None:
            return Entry(entity)
        k = index - int(self._first[entity])
        return Entry(entity, k + 1, len(ranges), ranges[k])

    def position(self, entity: int, piece: int) -> int:
        """The index of entry ``(entity, piece)`` (piece 0: the whole article).

        Raises:
            KeyError: The bank has no such entry.
        """
        ranges = self._atomized.get(entity)
        valid = 0 <= entity < len(self._first) - 1 and (piece == 0 if ranges is None else 1 <= piece <= len(ranges))
        if not valid:
            raise KeyError((entity, piece))
        return int(self._first[entity]) + max(piece - 1, 0)


class EntryDocIds(Mapping[tuple[int, int], int]):
    """``doc_ids[(entity, piece)]``: the doc id of a bank entry, looked up in the arrays rather than a dict."""

    def __init__(self, entries: BankEntries, doc_ids: np.ndarray) -> None:
        self._entries, self._doc_ids = entries, doc_ids

    def __getitem__(self, key: tuple[int, int]) -> int:
        return int(self._doc_ids[self._entries.position(*key)])

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return ((e.entity, e.piece) for e in self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def doc_id_permutation(n_entries: int, seed: int) -> np.ndarray:
    """``doc_id[i]`` of entry ``i``: a seeded permutation of ``0..n-1`` (IDs carry no gold signal)."""
    return rng_for(seed, BENCHMARK, "doc_ids", n_entries).permutation(n_entries).astype(np.int64)


def render_entry(world: World, entry: Entry, lang: str) -> tuple[str, str]:
    """``(title, text)`` of a bank entry; a piece is titled ``"{title} (i/n)"``."""
    art = article(world, entry.entity, lang)
    if not entry.pieces:
        return art.title, art.text
    a, b = entry.parts
    return f"{art.title} ({entry.piece}/{entry.pieces})", "\n\n".join(art.parts[a:b])


def stated_facts(world: World, entry: Entry, lang: str) -> list[Fact]:
    """The facts a bank document states: those whose rendered sentence its text contains (spec §3's oracle)."""
    facts = world.facts_of[entry.entity]
    if not entry.pieces:
        return list(facts)
    art = article(world, entry.entity, lang)
    a, b = entry.parts
    text = "\n\n".join(art.parts[a:b])
    return [fact for fact, sentence in zip(facts, art.fact_sentences) if sentence in text]
