"""The contract every world lexicon (one per language) fulfils: all the words the world is written in.

A lexicon is data: templates with named fields, filled by ``articles.py`` and ``questions.py``.
``check_lexicon`` verifies a lexicon against the schema, so a missing template is an error at
import time in the tests, not a ``KeyError`` half-way through a 200,000-document build.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Callable, Mapping

from generators.world.schema import (
    CLASS_OF_TYPE, DESCRIBING_RELATIONS, DOMAINS, HOPS, KINDS, RELATIONS, SECTIONS_OF_CLASS,
)

FACT_FIELDS = frozenset({"s", "o", "year", "date", "value"})
LEAD_FIELDS = frozenset({"s", "kind", "a_kind"})
FILLER_FIELDS = frozenset({"s", "Pron", "pron", "topic", "topic2", "kind"})
PRONOUN_KEYS = ("male", "female", "place", "organization", "work")


@dataclass(frozen=True)
class Rewording:
    """A question's words unlike the articles' (EMB-S's reworded queries, OURS): what a person who had not read the
    article would ask ("Who was the mom of the fiction writer whose hometown was Lolan?"), so that a lexical retriever
    finds only the names.

    Attributes:
        hops: Hop id -> (description, question) as :attr:`Lexicon.hops`, worded with none of the content words of
            the relation's fact templates.
        clauses: Relation -> relative clause as :attr:`Lexicon.clauses`, likewise.
        kinds: Kind id -> a bare noun phrase for the kind that is not its article noun, one per kind (distinct, so
            a description stays exact).
    """

    hops: Mapping[str, tuple[str, str]]
    clauses: Mapping[str, str]
    kinds: Mapping[str, str]


@dataclass(frozen=True)
class Lexicon:
    """All the text of the world in one language.

    Attributes:
        lang: ISO code (``en``, ``zh``).
        kinds: Kind id -> (bare noun, noun with its indefinite article or measure word), e.g.
            ``("pharmaceutical company", "a pharmaceutical company")`` or ``("制药公司", "一家制药公司")``.
        leads: Entity class -> first sentences of an article; fields ``{s}`` (name), ``{kind}``, ``{a_kind}``.
        facts: ``"relation:subject_type"`` -> sentences stating one fact; fields ``{s}``, ``{o}``
            (object name), ``{year}``, ``{date}``, ``{value}`` (a formatted count).
        sections: Section id -> heading variants.
        filler: Entity class -> sentence frames that state nothing checkable (no names, numbers,
            dates or relations); fields ``{s}``, ``{Pron}``, ``{pron}``, ``{topic}``, ``{topic2}``, ``{kind}``.
        topics: Domain -> topic noun phrases used by filler.
        hops: Hop id -> (description of the hop's answer given ``{x}``, question about ``{x}``);
            the description is empty for year hops, which only end questions.
        clauses: Relation -> a relative clause stating an entity's fact of that relation with ``{o}``
            (``"who was born in {o}"``), for every relation a description may use (:data:`DESCRIBING_RELATIONS`).
        described: How a description names an entity by its kind and clauses; fields ``{kind}`` (bare noun)
            and ``{clauses}`` (joined by ``clause_sep``).
        clause_sep: What joins two clauses of one description.
        pronouns: ``male|female|place|organization|work`` -> (sentence-initial, inner) subject pronoun.
        months: Month names, January first.
        date_format: Format of a full date; fields ``{year}``, ``{month}`` (name), ``{month_num}``, ``{day}``.
        see_also: Heading of the closing list of related articles.
        list_sep: Separator between items of that list.
        sentence_sep: What joins sentences in a paragraph (a space in English, nothing in Chinese).
        format_count: Writes a count such as a population (``412,000``; ``41.2万``).
        reworded: The same questions and descriptions in words unlike the articles' (:class:`Rewording`).
    """

    lang: str
    kinds: Mapping[str, tuple[str, str]]
    leads: Mapping[str, tuple[str, ...]]
    facts: Mapping[str, tuple[str, ...]]
    sections: Mapping[str, tuple[str, ...]]
    filler: Mapping[str, tuple[str, ...]]
    topics: Mapping[str, tuple[str, ...]]
    hops: Mapping[str, tuple[str, str]]
    clauses: Mapping[str, str]
    described: str
    clause_sep: str
    pronouns: Mapping[str, tuple[str, str]]
    months: tuple[str, ...]
    date_format: str
    see_also: str
    list_sep: str
    sentence_sep: str
    format_count: Callable[[int], str]
    reworded: Rewording


def fields_of(template: str) -> set[str]:
    """The named fields of a ``str.format`` template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def fact_keys() -> list[str]:
    """Every ``relation:subject_type`` pair the schema allows; each needs fact templates."""
    return [f"{r.name}:{t}" for r in RELATIONS for t in r.subjects]


def check_lexicon(lex: Lexicon) -> list[str]:
    """Problems with a lexicon (missing keys, unknown fields, too few variants); empty when complete."""
    problems: list[str] = []

    def need(mapping: Mapping, keys, what: str, allowed: frozenset[str], minimum: int) -> None:
        for key in keys:
            variants = mapping.get(key)
            if not variants:
                problems.append(f"{lex.lang}: no {what} for {key!r}")
                continue
            if len(variants) < minimum:
                problems.append(f"{lex.lang}: {what} {key!r} has {len(variants)} variants, want >= {minimum}")
            for v in variants:
                bad = fields_of(v) - allowed
                if bad:
                    problems.append(f"{lex.lang}: {what} {key!r} template {v!r} uses unknown fields {sorted(bad)}")

    for kind in KINDS:
        if kind.id not in lex.kinds or len(lex.kinds[kind.id]) != 2:
            problems.append(f"{lex.lang}: kind {kind.id!r} needs (noun, noun with article)")
    classes = sorted(set(CLASS_OF_TYPE.values()))
    need(lex.leads, classes, "lead", LEAD_FIELDS, 4)
    need(lex.facts, fact_keys(), "fact", FACT_FIELDS, 3)
    for key in fact_keys():
        for v in lex.facts.get(key, ()):
            if "s" not in fields_of(v):
                problems.append(f"{lex.lang}: fact {key!r} template {v!r} does not name its subject {{s}}")
            if RELATIONS and key.split(":")[0] in {r.name for r in RELATIONS if r.objects} and "o" not in fields_of(v):
                problems.append(f"{lex.lang}: fact {key!r} template {v!r} does not name its object {{o}}")
    need(lex.sections, sorted({s for ss in SECTIONS_OF_CLASS.values() for s in ss}), "section heading", frozenset(), 2)
    need(lex.filler, classes, "filler frame", FILLER_FIELDS, 40)
    need(lex.topics, DOMAINS, "topic", frozenset(), 25)
    for hops, what in ((lex.hops, "hop"), (lex.reworded.hops, "reworded hop")):
        for hop in HOPS:
            pair = hops.get(hop.id)
            if not pair or len(pair) != 2:
                problems.append(f"{lex.lang}: {what} {hop.id!r} needs (description, question)")
                continue
            desc, ask = pair
            if hop.answer == "entity" and fields_of(desc) != {"x"}:
                problems.append(f"{lex.lang}: {what} {hop.id!r} description must use exactly {{x}}")
            if fields_of(ask) != {"x"}:
                problems.append(f"{lex.lang}: {what} {hop.id!r} question must use exactly {{x}}")
    for clauses, what in ((lex.clauses, "clause"), (lex.reworded.clauses, "reworded clause")):
        for relation in DESCRIBING_RELATIONS:
            if fields_of(clauses.get(relation, "")) != {"o"}:
                problems.append(f"{lex.lang}: {what} for {relation!r} must use exactly {{o}}")
    reworded_kinds = [lex.reworded.kinds.get(kind.id, "") for kind in KINDS]
    if not all(reworded_kinds) or len(set(reworded_kinds)) != len(KINDS):
        problems.append(f"{lex.lang}: reworded kinds must name every kind, each with its own noun")
    if set(reworded_kinds) & {noun for noun, _ in lex.kinds.values()}:
        problems.append(f"{lex.lang}: a reworded kind is an article's kind noun")
    if fields_of(lex.described) != {"kind", "clauses"}:
        problems.append(f"{lex.lang}: described must use exactly {{kind}} and {{clauses}}")
    for key in PRONOUN_KEYS:
        if len(lex.pronouns.get(key, ())) != 2:
            problems.append(f"{lex.lang}: pronoun {key!r} needs (sentence-initial, inner)")
    if len(lex.months) != 12:
        problems.append(f"{lex.lang}: months must list 12 names")
    if not fields_of(lex.date_format) <= {"year", "month", "month_num", "day"}:
        problems.append(f"{lex.lang}: date_format uses unknown fields")
    return problems
