"""RULERv2's embedded default pools from the synthetic world: determinism, MCQ and doc-QA properties, size."""

from __future__ import annotations

from collections import Counter

import pytest

from needlework.errors import SpecError
from generators.rulerv2.pools import LETTERS, Mcq
from generators.rulerv2.world_pools import DEFAULT_WORLD, YEAR_SPREAD, world_mcq_pool, world_pools
from generators.world.spec import LAST_YEAR
from generators.world.lexicon_en import LEXICON as EN
from generators.world.questions import render_question
from generators.world.schema import CLASS_OF_TYPE
from generators.world.spec import WorldSpec
from generators.world.tables import generate_world

SMALL = WorldSpec(docs=400, langs=("en",), questions=500)
SHOTS = 16


@pytest.fixture(scope="module")
def small():
    world, questions, _ = generate_world(SMALL, 0)
    return world, questions


@pytest.fixture(scope="module")
def pools():
    return world_pools(SMALL, 0)


def all_mcqs(pool) -> tuple[Mcq, ...]:
    return pool.questions + pool.shots


def test_same_seed_same_pools_other_seed_different(pools):
    assert world_pools(SMALL, 0) == pools
    other_mcq, other_docqa = world_pools(SMALL, 1)
    assert other_mcq != pools[0]
    assert other_docqa != pools[1]


def test_a_question_does_not_depend_on_the_others(small):
    world, questions = small
    whole = world_mcq_pool(world, questions, seed=3, shots=0).questions
    part = world_mcq_pool(world, questions[100:200], seed=3, shots=0).questions
    assert part == whole[100:200]
    assert world_mcq_pool(world, questions, seed=4, shots=0).questions != whole


def test_shots_are_the_last_questions(small):
    world, questions = small
    pool = world_mcq_pool(world, questions, seed=0, shots=SHOTS)
    assert len(pool.shots) == SHOTS and len(pool.questions) == len(questions) - SHOTS
    assert [m.qid for m in all_mcqs(pool)] == [f"world/mcq/{q.index:06d}" for q in questions]
    with pytest.raises(SpecError, match="shots must be"):
        world_mcq_pool(world, questions, seed=0, shots=len(questions))


def test_every_mcq_is_well_formed_and_carries_its_evidence(small):
    world, questions = small
    mcqs = all_mcqs(world_mcq_pool(world, questions, seed=0, shots=SHOTS))
    for mcq, q in zip(mcqs, questions, strict=True):
        row = render_question(world, q, EN)
        assert len({c.casefold() for c in mcq.choices}) == 4, mcq
        assert mcq.choices[LETTERS.index(mcq.answer)] == row["answers"][0]
        assert mcq.question.endswith(" " + row["question"])
        evidence = mcq.question[: -len(row["question"]) - 1]
        for entity in q.path:
            assert world.name(entity, "en") in evidence, (mcq.qid, entity)
        assert row["answers"][0] in evidence, mcq.qid
        assert mcq.subject


def test_wrong_choices_are_of_the_answer_kind(small):
    world, questions = small
    entity_of_name = {e.name.en: e for e in world.entities}
    count_of_type = Counter(e.type for e in world.entities if e.twin_of is None)
    for mcq, q in zip(all_mcqs(world_mcq_pool(world, questions, seed=0, shots=0)), questions):
        wrong = [c for c in mcq.choices if c != mcq.choices[LETTERS.index(mcq.answer)]]
        if isinstance(q.answer, str):
            assert all(1 <= abs(int(y) - int(q.answer)) <= YEAR_SPREAD and int(y) <= LAST_YEAR for y in wrong), mcq
        else:
            answer = world.entities[q.answer]
            same_type = sum(entity_of_name[c].type == answer.type for c in wrong)
            assert same_type == min(3, count_of_type[answer.type] - 1), mcq
            assert all(CLASS_OF_TYPE[entity_of_name[c].type] == CLASS_OF_TYPE[answer.type] for c in wrong), mcq
            assert all(entity_of_name[c].twin_of is None for c in wrong), mcq


def test_the_answer_is_rarely_the_only_choice_the_stem_mentions(pools):
    mcqs = all_mcqs(pools[0])
    alone = sum(sum(c in m.question for c in m.choices) == 1 for m in mcqs)
    assert alone / len(mcqs) < 0.05


def test_answer_letters_are_roughly_uniform(pools):
    mcqs = all_mcqs(pools[0])
    counts = Counter(m.answer for m in mcqs)
    assert len(mcqs) >= 300
    for letter in LETTERS:
        assert 0.15 <= counts[letter] / len(mcqs) <= 0.35, counts


def test_docqa_gold_documents_are_the_path_articles_and_state_the_answer(small, pools):
    world, questions = small
    docqa = pools[1]
    assert len(docqa.documents) == len(world.entities)
    assert len({d.title for d in docqa.documents}) == len(docqa.documents)
    twin_of = {t.twin: t.original for t in world.twins}
    for dq, q in zip(docqa.questions, questions, strict=True):
        assert dq.qid == f"world/{q.index:06d}/en"
        assert [docqa.documents[i].title for i in dq.gold] == [world.name(e, "en") for e in q.path]
        assert dq.answers and all(dq.answers)
        assert any(dq.answers[0] in docqa.documents[i].text for i in dq.gold), dq.qid
        assert all(twin_of[i] in dq.gold for i in dq.distractors)


def test_world_pools_need_english():
    with pytest.raises(SpecError, match="must include en"):
        world_pools(WorldSpec(docs=100, langs=("zh",), questions=10), 0)


def test_default_world_fills_a_110k_context(qwen):
    mcq, docqa = world_pools(DEFAULT_WORLD, 0)
    assert len(mcq.questions) >= 3_000 and len(mcq.shots) == 64
    assert len(docqa.documents) >= 600
    assert int(qwen.count_batch([m.render() for m in mcq.questions]).sum()) >= 130_000
    assert int(qwen.count_batch([d.render() for d in docqa.documents]).sum()) >= 130_000
