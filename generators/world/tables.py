"""The world as rows of the shared normalized tables (and the world's own extra tables).

``corpus``, ``links``, ``qa``, ``facts``, ``events`` follow ``DESIGN.md``; ``twins`` and
``entities`` are the world's additions. Rows come out in a fixed order (by doc id, entity id or
question index) so the same world always gives the same tables.
"""

from __future__ import annotations

from typing import Iterator

from generators.world.articles import render_article
from generators.world.growth import grow_world
from generators.world.lexicon import Lexicon
from generators.world.lexicon_en import LEXICON as EN
from generators.world.lexicon_zh import LEXICON as ZH
from generators.world.model import World
from generators.world.questions import ComposedQuestion, QuestionStats, compose_questions, render_question
from generators.world.schema import KIND_BY_ID
from generators.world.spec import WorldSpec, doc_id

LEXICONS: dict[str, Lexicon] = {"en": EN, "zh": ZH}
SOURCE = "world"


def generate_world(spec: WorldSpec, seed: int) -> tuple[World, list[ComposedQuestion], QuestionStats]:
    """The world of ``spec`` and ``seed``, with its questions composed and checked."""
    world = grow_world(spec, seed)
    stats = QuestionStats()
    questions = list(compose_questions(world, stats))
    return world, questions, stats


def corpus_rows(world: World, entities: range | None = None) -> Iterator[tuple[dict, list[int]]]:
    """Corpus rows (without ``n_tokens``, which needs a tokenizer) and each row's link targets (doc ids)."""
    langs = world.spec.lang_order()
    for e in entities if entities is not None else range(len(world.entities)):
        entity = world.entities[e]
        domain = KIND_BY_ID[entity.kind].domain
        for lang in langs:
            article = render_article(world, e, LEXICONS[lang])
            row = {
                "doc_id": doc_id(e, lang),
                "title": article.title,
                "text": article.text,
                "lang": lang,
                "source": SOURCE,
                "domain": domain,
                "entity_id": e,
                "type": entity.type,
                "kind": entity.kind,
                "twin_of": None if entity.twin_of is None else doc_id(entity.twin_of, lang),
            }
            yield row, [doc_id(t, lang) for t in article.links]


def link_rows(src: int, targets: list[int]) -> Iterator[dict]:
    """``links`` rows of one document, targets in ascending order."""
    for dst in sorted(set(targets)):
        yield {"src": src, "dst": dst}


def qa_rows(world: World, questions: list[ComposedQuestion]) -> Iterator[dict]:
    """``qa`` rows: each question in every language of the world, question-major."""
    for q in questions:
        for lang in world.spec.lang_order():
            yield render_question(world, q, LEXICONS[lang])


def fact_rows(world: World) -> Iterator[dict]:
    """``facts`` rows, by subject in the order each fact was stated."""
    for facts in world.facts_of:
        for f in facts:
            yield {"subject": f.subject, "relation": f.relation, "object": f.object, "time": f.time, "value": f.value}


def event_rows(world: World) -> Iterator[dict]:
    """``events`` rows sorted by time, then subject, relation and object."""
    key = lambda e: (e.time, e.subject, e.relation, -1 if e.object is None else e.object, e.kind)
    for e in sorted(world.events, key=key):
        yield {"subject": e.subject, "relation": e.relation, "object": e.object, "time": e.time, "kind": e.kind}


def twin_rows(world: World) -> Iterator[dict]:
    """``twins`` rows: per language, the original's doc, its twin's doc and the violated constraint."""
    for t in world.twins:
        for lang in world.spec.lang_order():
            yield {
                "doc": doc_id(t.original, lang),
                "twin": doc_id(t.twin, lang),
                "lang": lang,
                "original_entity": t.original,
                "twin_entity": t.twin,
                "constraint": t.constraint,
                "relation": t.relation,
                "original_value": t.original_value,
                "twin_value": t.twin_value,
            }


def entity_rows(world: World) -> Iterator[dict]:
    """``entities`` rows: id, type, kind, domain, names in both languages and life years."""
    for e in world.entities:
        yield {
            "entity_id": e.id,
            "type": e.type,
            "kind": e.kind,
            "domain": KIND_BY_ID[e.kind].domain,
            "name_en": world.name(e.id, "en"),
            "name_zh": world.name(e.id, "zh"),
            "gender": e.gender,
            "born": e.born,
            "died": e.died,
            "founded": e.founded,
            "twin_of": e.twin_of,
        }
