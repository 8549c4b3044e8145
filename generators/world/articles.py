"""Rendering an entity's article in one language: lead, fact sections, filler prose, see-also.

Every fact the entity states about itself becomes one sentence in the section its relation
belongs to; filler frames then bring the article to a log-normal target length (in tokens,
converted to characters with a per-language ratio; the builder measures the exact count). Each
mention of another entity (a fact's object or a see-also item) is returned as a link; the text
itself stays plain.

A twin's article takes its structure (lead, fact templates, target length) from its original's
random stream, so the two read alike, and its filler from its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generators.world.draws import Draws
from generators.world.lexicon import Lexicon
from generators.world.model import Entity, Fact, World
from generators.world.schema import CLASS_OF_TYPE, KIND_BY_ID, RELATION_BY_NAME, SECTIONS_OF_CLASS

CHARS_PER_TOKEN: dict[str, float] = {"en": 4.9, "zh": 1.48}
"""Rough characters per Qwen2.5 token, used only to aim article lengths."""
LENGTH_SIGMA = 0.75


@dataclass(frozen=True, slots=True)
class Article:
    """One rendered article: its title, plain text and the entities it links to (in order).

    ``parts`` are the lead, each non-empty section and the see-also list, in order
    (``text == "\n\n".join(parts)``); ``fact_sentences[i]`` is the sentence stating the entity's
    ``i``-th fact (``world.facts_of[entity][i]``), so a piece of the article states exactly the facts
    whose sentences it contains (EverMemBench-S atomizes articles at these boundaries).
    """

    title: str
    text: str
    links: tuple[int, ...]
    parts: tuple[str, ...] = ()
    fact_sentences: tuple[str, ...] = ()


def format_time(time: str, lex: Lexicon) -> str:
    """An ISO date (or bare year) written the lexicon's way."""
    if len(time) < 10:
        return time[:4]
    year, month, day = int(time[:4]), int(time[5:7]), int(time[8:10])
    return lex.date_format.format(year=year, month=lex.months[month - 1], month_num=month, day=day)


def fact_sentence(world: World, entity: Entity, fact: Fact, lex: Lexicon, d: Draws) -> str:
    """One sentence stating ``fact`` about ``entity``, in the lexicon's language."""
    template = d.choice(lex.facts[f"{fact.relation}:{entity.type}"])
    name = world.name(entity.id, lex.lang)
    fields = {"s": name, "o": "", "year": "", "date": "", "value": ""}
    if fact.object is not None:
        fields["o"] = world.name(fact.object, lex.lang)
    if fact.time is not None:
        fields["year"] = fact.time[:4]
        fields["date"] = format_time(fact.time, lex)
    if fact.value is not None:
        fields["value"] = lex.format_count(int(fact.value))
    return template.format(**fields)


def target_chars(d: Draws, world: World, lang: str) -> int:
    """The article's aimed length in characters, drawn log-normally around the median token count."""
    spec = world.spec
    tokens = spec.median_tokens * math.exp(LENGTH_SIGMA * d.normal())
    tokens = min(max(tokens, spec.min_tokens), spec.max_tokens)
    return int(tokens * CHARS_PER_TOKEN[lang])


def render_article(world: World, entity_id: int, lex: Lexicon) -> Article:
    """The article about ``entity_id`` in ``lex.lang``."""
    e = world.entities[entity_id]
    kind = KIND_BY_ID[e.kind]
    cls = CLASS_OF_TYPE[e.type]
    lang = lex.lang
    seed = world.seed
    structure = Draws.keyed(seed, f"article/{lang}", e.twin_of if e.twin_of is not None else e.id)
    filler = Draws.keyed(seed, f"filler/{lang}", e.id)
    budget = target_chars(structure, world, lang)
    name = world.name(e.id, lang)
    noun, a_noun = lex.kinds[e.kind]
    sep = lex.sentence_sep

    sections = SECTIONS_OF_CLASS[cls]
    # Lead and headings are drawn before the facts, so a twin (which lacks some of its original's
    # facts) still shares them with its original.
    lead = [structure.choice(lex.leads[cls]).format(s=name, kind=noun, a_kind=a_noun)]
    headings = {section: structure.choice(lex.sections[section]) for section in sections}
    body: dict[str, list[str]] = {s: [] for s in sections}
    links: list[int] = []
    stated: list[str] = []
    for fact in world.facts_of[e.id]:
        section = RELATION_BY_NAME[fact.relation].section
        stated.append(fact_sentence(world, e, fact, lex, structure))
        body[section if section in body else sections[0]].append(stated[-1])
        if fact.object is not None and fact.object not in links:
            links.append(fact.object)

    pron_key = e.gender if e.type == "person" else cls
    pron_cap, pron = lex.pronouns[pron_key]
    frames = lex.filler[cls]
    order = _permutation(len(frames), filler)  # frames cycle without replacement: no repeats until all are used
    turn = 0
    topics = lex.topics[kind.domain]
    used = sum(len(s) for s in lead) + sum(len(s) for ss in body.values() for s in ss)
    lead_filler = 1 + filler.below(3)
    while used < budget or lead_filler > 0:
        t1 = filler.below(len(topics))
        t2 = (t1 + 1 + filler.below(len(topics) - 1)) % len(topics)
        sentence = frames[order[turn % len(order)]].format(s=name, Pron=pron_cap, pron=pron, topic=topics[t1], topic2=topics[t2], kind=noun)
        if lead_filler > 0:
            lead.append(sentence)
            lead_filler -= 1
        else:
            body[sections[filler.below(len(sections))]].append(sentence)
        used += len(sentence) + len(sep)
        turn += 1

    parts = [sep.join(lead)]
    for section in sections:
        sentences = body[section]
        if not sentences:
            continue
        paragraphs, start = [], 0
        while start < len(sentences):
            size = filler.between(3, 8)
            paragraphs.append(sep.join(sentences[start:start + size]))
            start += size
        parts.append(headings[section] + "\n" + "\n\n".join(paragraphs))
    see_also = [other for other in e.see_also if other != e.id]
    if see_also:
        parts.append(lex.see_also + "\n" + lex.list_sep.join(world.name(o, lang) for o in see_also))
        links.extend(o for o in see_also if o not in links)
    return Article(name, "\n\n".join(parts), tuple(links), tuple(parts), tuple(stated))



def _permutation(n: int, d: Draws) -> list[int]:
    """A uniformly random ordering of ``range(n)`` (Fisher-Yates on the draw stream)."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = d.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order
