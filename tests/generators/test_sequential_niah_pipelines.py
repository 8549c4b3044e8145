"""Sequential-NIAH needle pipelines: synthetic-temporal, real-temporal (ICEWS14 and the world),
real-logical (any ordered-QA file, the authors' QA files, the world), and their readers.

Dates are read back from needles and answers by this module's own parser (every format the
paper's needles use), so order and needle/answer agreement are checked independently of the code
that wrote them; facts are checked against the knowledge graph and the world they came from.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from builders.sources.ordered_qa import read_authors_qa, read_ordered_questions
from builders.sources.person_names import faker_person_names
from needlework.errors import InputError, SpecError
from generators.sequential_niah.logical import LogicalSpec, OrderedQuestion, asks_for_order, logical_qas
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.synthetic import SyntheticSpec, compose_names, synthetic_qas
from generators.sequential_niah.synthetic_vocab import QUESTIONS as SYN_QUESTIONS
from generators.sequential_niah.tkg import QUESTIONS as TKG_QUESTIONS
from generators.sequential_niah.tkg import Quad, TkgSpec, rewrite_needles, tkg_qas
from generators.sequential_niah.world_qa import (
    QUESTIONS as WORLD_QUESTIONS, WorldTemporalSpec, world_logical_qas, world_person_names, world_synthetic_qas,
    world_temporal_qas,
)
from generators.world.spec import WorldSpec
from generators.world.tables import generate_world

LANGS = ("en", "zh")

# --- an independent date reader ---------------------------------------------------------------

_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"), start=1)}
_MONTHS.update({"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
                "oct": 10, "nov": 11, "dec": 12})
_M = r"(?P<month>January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
_D = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?P<year>\d{4})"
DATE_FORMS = {
    "zh": re.compile(rf"{_Y}年(?P<mon>\d{{1,2}})月{_D}日"),
    "iso": re.compile(rf"{_Y}-(?P<mon>\d{{2}})-(?P<day>\d{{2}})"),
    "slash": re.compile(rf"{_Y}[/.](?P<mon>\d{{2}})[/.](?P<day>\d{{2}})"),
    "in_month_on_the": re.compile(rf"In {_M} {_Y}, on the {_D}"),
    "the_ordinal": re.compile(rf"\b[Tt]he {_D} of {_M},? {_Y}"),
    "month_dash": re.compile(rf"{_M}-{_D}-{_Y}"),
    "month_day_year": re.compile(rf"{_M} {_D},? {_Y}"),
    "day_month_year": re.compile(rf"\b{_D} {_M} {_Y}"),
}
"""Every way a needle may write a date, as regexes written for the tests."""


def dates_in(text: str) -> list[tuple[date, str]]:
    """The dates written in ``text`` with the form each was found in (spans never overlap)."""
    found, taken = [], []
    for form, pattern in DATE_FORMS.items():
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            groups = m.groupdict()
            month = int(groups["mon"]) if groups.get("mon") else _MONTHS[groups["month"].lower()]
            found.append((m.start(), date(int(groups["year"]), month, int(groups["day"])), form))
            taken.append((m.start(), m.end()))
    return [(d, form) for _, d, form in sorted(found)]


def the_date(text: str) -> date:
    """The one date in ``text``."""
    found = dates_in(text)
    assert len(found) == 1, f"expected one date in {text!r}, found {found}"
    return found[0][0]


def check_temporal_order(qa: SequentialQA) -> list[date]:
    """Answers in strictly increasing date order, needle i dated as answer i; returns the dates."""
    days = [the_date(a) for a in qa.answers]
    assert days == sorted(days) and len(set(days)) == len(days), qa.answers
    assert [the_date(n) for n in qa.needles] == days, (qa.needles, qa.answers)
    assert [line for line in qa.reference.split("\n") if line.startswith("- ")] == [f"- {a}" for a in qa.answers]
    return days


def test_the_date_reader_reads_the_authors_needles(shared_file):
    records = [json.loads(line) for line in shared_file("sequential_niah/source/QA/QA_zh.jsonl").read_text("utf-8").splitlines()]
    diary = records[0]["extrainfo_diary"]
    assert [the_date(n) for n in records[0]["needles"]] == [date(row[4], row[5], row[6]) for row in diary]
    forms = {form for n in records[0]["needles"] for _, form in dates_in(n)}
    assert forms >= {"month_day_year", "zh", "day_month_year", "month_dash", "iso"}


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quads_on(icews):
    by_day = defaultdict(list)
    for q in icews.quads:
        by_day[q.time].append(q)
    return by_day


@pytest.fixture(scope="module")
def names():
    parts, _ = faker_person_names()
    return {"en": list(compose_names(parts.en_last, parts.en_first, "en", limit=3000)),
            "zh": list(compose_names(parts.zh_surnames, parts.zh_given, "zh", limit=3000))}


@pytest.fixture(scope="module")
def world():
    w, _, _ = generate_world(WorldSpec(docs=800, questions=0), 3)
    return w


# --- synthetic-temporal -----------------------------------------------------------------------


def subject_of(qa: SequentialQA, pool: list[str]) -> str:
    """The pool name every needle mentions (the longest, if one name contains another)."""
    common = [n for n in pool if all(n in needle for needle in qa.needles)]
    assert common, qa.needles
    return max(common, key=len)


@pytest.mark.parametrize("lang", LANGS)
def test_synthetic_answers_are_dated_events_in_order_each_stated_by_its_needle(lang, names):
    qas = synthetic_qas(SyntheticSpec(lang, 150), seed=7, names=names[lang])
    assert len({q.qid for q in qas}) == 150 and all(q.pipeline == "synthetic-temporal" and q.lang == lang for q in qas)
    counts = {len(q.answers) for q in qas}
    assert min(counts) >= 3 and max(counts) <= 15 and len(counts) >= 10
    sep = ": " if lang == "en" else "："
    events = set()
    total = sum(len(q.answers) for q in qas)
    for qa in qas:
        check_temporal_order(qa)
        subject = subject_of(qa, names[lang])
        assert subject in qa.question
        for needle, answer in zip(qa.needles, qa.answers):
            event = answer.split(sep, 1)[1]
            assert event in needle
            events.add(event)
    assert len(events) >= 0.6 * total


@pytest.mark.parametrize("lang", LANGS)
def test_synthetic_questions_ask_for_order_exactly_when_ordered(lang, names):
    qas = synthetic_qas(SyntheticSpec(lang, 150), seed=7, names=names[lang])
    assert {q.ordered for q in qas} == {True, False}
    for qa in qas:
        assert asks_for_order(qa.question, lang) == qa.ordered, qa.question
    for kind, templates in SYN_QUESTIONS[lang].items():
        assert all(asks_for_order(t, lang) == kind.startswith("ordered") for t in templates)


@pytest.mark.parametrize("lang", LANGS)
def test_synthetic_needles_mix_date_formats(lang, names):
    qas = synthetic_qas(SyntheticSpec(lang, 60), seed=1, names=names[lang])
    forms = {form for qa in qas for n in qa.needles for _, form in dates_in(n)}
    assert len(forms) >= 5, forms
    if lang == "zh":
        assert {"zh", "month_day_year", "month_dash"} <= forms


@pytest.mark.parametrize("lang", LANGS)
def test_synthetic_distractors_are_outside_the_period_or_of_a_look_alike(lang, names):
    qas = synthetic_qas(SyntheticSpec(lang, 150, distractors=3), seed=11, names=names[lang])
    kinds = defaultdict(int)
    for qa in qas:
        assert len(qa.distractors) == 3
        subject = subject_of(qa, names[lang])
        days = [the_date(a) for a in qa.answers]
        whole_diary = not re.search(r"\d{4}", qa.question)
        for d in qa.distractors:
            day = the_date(d)
            if subject in d:
                assert not whole_diary and not days[0] <= day <= days[-1], (qa.question, d)
                kinds["outside"] += 1
            else:
                surname = subject.rsplit(" ", 1)[-1] if lang == "en" else subject[0]
                assert surname in d
                kinds["look-alike"] += 1
    assert kinds["outside"] > 50 and kinds["look-alike"] > 50


def test_composed_names_spread_over_the_parts():
    en = compose_names(["Cole", "Diaz", "Reed"], ["Ann", "Bo", "Cy", "Di"], "en", limit=6)
    assert len(en) == 6 and len({n.split()[0] for n in en}) >= 3 and len({n.split()[1] for n in en}) == 3
    assert compose_names(["Reed", "Diaz", "Cole"], ["Di", "Cy", "Bo", "Ann"], "en", limit=6) == en
    zh = compose_names(["胡", "王"], ["慧", "聪", "明"], "zh")
    assert set(zh) == {s + a + b for s in "胡王" for a in "慧聪明" for b in "慧聪明" if a != b}
    with pytest.raises(SpecError):
        compose_names([], ["Ann"], "en")


def test_synthetic_needle_count_option_and_validation(names):
    qas = synthetic_qas(SyntheticSpec("en", 20, min_needles=6, max_needles=6), seed=0, names=names["en"])
    assert {len(q.needles) for q in qas} == {6}
    with pytest.raises(SpecError):
        SyntheticSpec("en", 5, min_needles=4, max_needles=3)
    with pytest.raises(SpecError):
        SyntheticSpec("fr", 5)
    with pytest.raises(SpecError):
        synthetic_qas(SyntheticSpec("en", 1), seed=0, names=["Only One"])


@pytest.mark.parametrize("lang", LANGS)
def test_synthetic_is_deterministic_per_seed(lang, names):
    spec = SyntheticSpec(lang, 30)
    first = synthetic_qas(spec, seed=5, names=names[lang])
    assert synthetic_qas(spec, seed=5, names=list(reversed(names[lang]))) == first
    assert synthetic_qas(spec, seed=6, names=names[lang]) != first
    assert synthetic_qas(SyntheticSpec(lang, 10), seed=5, names=names[lang]) == first[:10]


# --- real-temporal from ICEWS14 ---------------------------------------------------------------


def pairs_stated(text: str, quads: list[Quad]) -> set[frozenset[str]]:
    """Entity pairs of the KG relations on the text's date whose two names the text mentions."""
    return {frozenset((q.subject, q.object)) for q in quads if q.subject in text and q.object in text}


@pytest.mark.parametrize("lang", LANGS)
def test_icews_questions_list_one_pairs_relations_in_order(lang, icews, quads_on):
    qas = tkg_qas(icews.quads, TkgSpec(lang, 120), seed=3)
    assert {q.ordered for q in qas} == {True, False}
    counts = {len(q.answers) for q in qas}
    assert min(counts) >= 3 and max(counts) <= 10 and len(counts) >= 5
    for qa in qas:
        days = check_temporal_order(qa)
        assert asks_for_order(qa.question, lang) == qa.ordered
        candidates = None
        for day, needle, answer in zip(days, qa.needles, qa.answers):
            stated = pairs_stated(needle, quads_on[day.isoformat()]) & pairs_stated(answer, quads_on[day.isoformat()])
            assert stated, (needle, answer)
            candidates = stated if candidates is None else candidates & stated
        assert candidates, qa.needles
        pair = next(iter(candidates))
        assert all(name in qa.question for name in pair)
        for d in qa.distractors:
            day = the_date(d)
            if days[0] <= day <= days[-1]:
                assert pairs_stated(d, quads_on[day.isoformat()]) - {pair}, (qa.question, d)


def test_icews_questions_follow_seed_and_options(icews):
    spec = TkgSpec("en", 25, min_needles=4, max_needles=6)
    first = tkg_qas(icews.quads, spec, seed=1)
    assert {len(q.needles) for q in first} <= {4, 5, 6}
    assert tkg_qas(icews.quads, spec, seed=1) == first
    assert tkg_qas(list(reversed(icews.quads)), spec, seed=1) == first
    assert tkg_qas(icews.quads, spec, seed=2) != first
    with pytest.raises(SpecError, match="no entity pair"):
        tkg_qas(icews.quads[:5], TkgSpec("en", 1), seed=0)
    for lang in LANGS:
        for ordered, templates in TKG_QUESTIONS[lang].items():
            assert all(asks_for_order(t, lang) == ordered for t in templates)


def fake_rewriter(prompt: str) -> str:
    """A stand-in model: prefixes the sentence it was asked to rewrite."""
    sentence = prompt.rsplit("Sentence: ", 1)[-1] if "Sentence: " in prompt else prompt.rsplit("句子：", 1)[-1]
    return f"Reportedly, {sentence}" if "Sentence: " in prompt else f"据悉，{sentence}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_llm_rewrite_rephrases_needles_and_keeps_facts(lang, icews):
    spec = TkgSpec(lang, 8)
    plain = tkg_qas(icews.quads, spec, seed=4)
    prompts = []
    rewritten = tkg_qas(icews.quads, spec, seed=4, rewrite=lambda p: prompts.append(p) or fake_rewriter(p))
    assert len(prompts) == sum(len(q.needles) + len(q.distractors) for q in plain)
    assert ("Keep every name exactly as written" in prompts[0]) if lang == "en" else ("所有名称必须原样保留" in prompts[0])
    prefix = "Reportedly, " if lang == "en" else "据悉，"
    for a, b in zip(plain, rewritten):
        assert b.answers == a.answers and b.question == a.question
        assert b.needles == tuple(prefix + n for n in a.needles)
        assert [the_date(n) for n in b.needles] == [the_date(x) for x in a.answers]


def test_an_unusable_rewrite_keeps_the_template_sentence():
    texts = ("On May 2, 2014, Alpha consulted with Beta.", "On May 3, 2014, Alpha praised Beta.")
    keep = [("Alpha", "Beta", "2014")] * 2
    dropped = rewrite_needles(texts, "en", lambda p: "Someone met someone.", keep)
    assert dropped == texts
    same = rewrite_needles(texts, "en", lambda p: "Alpha and Beta met in 2014.", keep)
    assert same == ("Alpha and Beta met in 2014.", texts[1])


# --- real-logical -----------------------------------------------------------------------------


EN_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
               "twelfth", "thirteenth", "fourteenth", "fifteenth")
ZH_NUMERALS = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四", "十五")


def states_step(needle: str, n: int, lang: str) -> bool:
    """Whether a needle gives step number ``n`` (1-based) in digits or words."""
    if lang == "en":
        return re.search(rf"\b{n}\b", needle) is not None or re.search(rf"\b{EN_ORDINALS[n - 1]}\b", needle.lower()) is not None
    return f"第{n}步" in needle or f"第{ZH_NUMERALS[n - 1]}步" in needle


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


PROCEDURES = [
    {"id": "p1", "question": "How do I renew a passport?", "steps": ["Fill in the renewal form.", "Attach two recent photos.",
                                                                  "Pay the fee.", "Mail the application."]},
    {"id": "p2", "question": "What are the steps to brew coffee with a French press?",
     "steps": "1. Boil water.\n2. Grind the beans coarsely.\n3. Steep for four minutes.\n4. Press the plunger down."},
    {"id": "p3", "question": "如何办理借书证？", "steps": ["带上身份证去图书馆服务台。", "填写申请表。", "缴纳押金。", "领取借书证。"]},
    {"id": "p4", "question": "开通网上银行需要哪些步骤？", "steps": "第1步：携带银行卡到柜台。\n第2步：签署服务协议。\n第3步：设置登录密码。"},
    {"id": "p5", "question": "Why is the sky blue?", "steps": ["Sunlight enters the air.", "Blue light scatters most."]},
    {"id": "p6", "question": "Outline how a bill becomes law.", "steps": "- Introduce the bill.\n- Committee review.\n- Floor vote.\n- Signature."},
]


def test_ordered_questions_read_lists_and_marked_text(tmp_path):
    questions = read_ordered_questions(write_jsonl(tmp_path / "procs.jsonl", PROCEDURES), items_field="steps")
    assert [q.key for q in questions] == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert [q.lang for q in questions] == ["en", "en", "zh", "zh", "en", "en"]
    assert questions[1].items == ("Boil water.", "Grind the beans coarsely.", "Steep for four minutes.", "Press the plunger down.")
    assert questions[3].items == ("携带银行卡到柜台。", "签署服务协议。", "设置登录密码。")
    assert all(q.source == "procs" for q in questions)
    bad = write_jsonl(tmp_path / "bad.jsonl", [PROCEDURES[0], {"id": "p2", "question": "How?", "steps": 3}])
    with pytest.raises(InputError) as err:
        read_ordered_questions(bad, items_field="steps")
    assert err.value.record == 2 and err.value.field == "steps"  # counted from 1, as lines are
    repeated = write_jsonl(tmp_path / "repeat.jsonl", [PROCEDURES[0], PROCEDURES[0]])
    with pytest.raises(InputError, match="repeats"):
        read_ordered_questions(repeated, items_field="steps")


def test_an_unknown_record_language_names_file_record_field_and_the_choices(tmp_path):
    path = write_jsonl(tmp_path / "procs.jsonl", [PROCEDURES[0], {**PROCEDURES[1], "lang": "fr"}])
    with pytest.raises(InputError) as err:
        read_ordered_questions(path, items_field="steps")
    assert (err.value.file, err.value.record, err.value.field) == (str(path), 2, "lang")
    assert str(err.value) == f"{path}, record 2, field 'lang': language must be one of 'en', 'zh'; got 'fr'"


def test_logical_qas_keep_item_order_and_tie_needles_to_their_step(tmp_path):
    questions = read_ordered_questions(write_jsonl(tmp_path / "procs.jsonl", PROCEDURES), items_field="steps")
    qas = logical_qas(questions, LogicalSpec(numbered_share=1.0), seed=0)
    assert [q.qid.rsplit("/", 1)[-1] for q in qas] == ["p1", "p2", "p3", "p4", "p6"]
    by_key = {q.key: q for q in questions}
    for qa in qas:
        source = by_key[qa.qid.rsplit("/", 1)[-1]]
        assert qa.ordered and qa.pipeline == "real-logical" and asks_for_order(qa.question, qa.lang)
        assert qa.answers == source.items
        for n, (needle, item) in enumerate(zip(qa.needles, qa.answers), start=1):
            assert item in needle and states_step(needle, n, qa.lang)
        own = set(qa.answers)
        for d in qa.distractors:
            assert not any(item in d for item in own)
            assert any(item in d for other in questions if other.key != source.key for item in other.items)
    renew = qas[0]
    assert all("the process to renew a passport" in n for n in renew.needles)
    unnumbered = logical_qas(questions, LogicalSpec(numbered_share=0.0), seed=0)
    assert all(not re.search(r"\d", n) for q in unnumbered if q.lang == "en" for n in q.needles)


def test_logical_qas_are_deterministic_and_bounded(tmp_path):
    questions = read_ordered_questions(write_jsonl(tmp_path / "procs.jsonl", PROCEDURES), items_field="steps")
    spec = LogicalSpec()
    assert logical_qas(questions, spec, seed=1) == logical_qas(questions, spec, seed=1)
    assert logical_qas(questions, spec, seed=1) != logical_qas(questions, spec, seed=2)
    assert all(3 <= len(q.needles) <= 15 for q in logical_qas(questions, spec, seed=1))
    assert [len(q.needles) for q in logical_qas(questions, LogicalSpec(min_needles=4, max_needles=4), seed=1)] == [4, 4, 4, 4]


def test_the_authors_qa_files_read_as_qas(shared_file):
    en, = read_authors_qa(shared_file("sequential_niah/source/QA/QA_en.jsonl"))
    zh, = read_authors_qa(shared_file("sequential_niah/source/QA/QA_zh.jsonl"))
    assert (en.pipeline, en.lang, en.ordered, en.source) == ("real-temporal", "en", False, "icews0515")
    assert (zh.pipeline, zh.lang, zh.ordered, zh.source) == ("synthetic-temporal", "zh", True, "syn")
    for qa in (en, zh):
        assert len(qa.needles) == len(qa.answers) == 8
        check_temporal_order(qa)
    assert zh.answers[0] == "2006年02月01日：晚上看了《爱尔兰人》，剧情很精彩。"
    assert all("Barack Obama" in n and "Iran" in n for n in en.needles)


def test_the_authors_qa_files_read_as_ordered_questions(shared_file):
    for lang in LANGS:
        (question,) = read_ordered_questions(shared_file(f"sequential_niah/source/QA/QA_{lang}.jsonl"))
        assert question.lang == lang and len(question.items) == 8
        assert [the_date(i) for i in question.items] == sorted(the_date(i) for i in question.items)


# --- the world ---------------------------------------------------------------------------------


def world_names(world) -> dict[str, list[str]]:
    return {lang: sorted({world.name(e.id, lang) for e in world.entities}, key=len, reverse=True) for lang in LANGS}


def named_in(text: str, names: list[str]) -> set[str]:
    """World names in ``text`` that are not part of a longer world name found there."""
    found = [n for n in names if n in text]
    return {n for n in found if not any(n != m and n in m for m in found)}


@pytest.mark.parametrize("lang", LANGS)
def test_world_temporal_qas_follow_the_worlds_dated_events(lang, world):
    qas = world_temporal_qas(world, WorldTemporalSpec(lang, 120), seed=2)
    names = world_names(world)[lang]
    events_on = defaultdict(list)
    for e in world.events:
        events_on[e.time].append(e)
    asks = {k: set(v[lang][True]) | set(v[lang][False]) for k, v in WORLD_QUESTIONS.items()}
    assert {q.ordered for q in qas} == {True, False}
    kinds = set()
    for qa in qas:
        days = check_temporal_order(qa)
        assert 3 <= len(days) <= 10 and asks_for_order(qa.question, lang) == qa.ordered
        kinds |= {k for k, templates in asks.items()
                  if any(re.fullmatch(re.escape(t).replace(r"\{a\}", ".+").replace(r"\{period\}", ".+"), qa.question) for t in templates)}
        for day, needle, answer in zip(days, qa.needles, qa.answers):
            mentioned = named_in(needle, names)
            assert mentioned == named_in(answer, names)
            matching = [e for e in events_on[day.isoformat()]
                        if world.name(e.subject, lang) in mentioned and (e.object is None or world.name(e.object, lang) in mentioned)]
            assert matching, (needle, answer)
        answer_names = {the_date(a): named_in(a, names) for a in qa.answers}
        for d in qa.distractors:
            day = the_date(d)
            assert not (days[0] <= day <= days[-1] and named_in(d, names) == answer_names.get(day)), (qa.answers, d)
    assert kinds == {"actor", "life"}


CAREER_VERBS = {
    "en": (("Graduated from", "graduated"), ("Completed studies at", "graduated"), ("Joined", "joined"), ("Became a member", "joined"),
           ("Founded", "founded"), ("Established", "founded"), ("Wrote", "wrote"), ("Published the book", "wrote"),
           ("Directed", "directed"), ("Released the song", "performed"), ("Recorded the song", "performed"),
           ("Retired from", "retired")),
    "zh": (("毕业于", "graduated"), ("从", "retired"), ("加入了", "joined"), ("成为", "joined"), ("创立了", "founded"),
           ("创办了", "founded"), ("创作了", "wrote"), ("写成了", "wrote"), ("执导了", "directed"), ("导演了", "directed"),
           ("演唱了", "performed"), ("发行了歌曲", "performed")),
}
"""How a career item starts -> the world's life-event relation it states."""


@pytest.mark.parametrize("lang", LANGS)
def test_world_logical_qas_are_careers_and_containment_chains(lang, world):
    qas = world_logical_qas(world, lang, LogicalSpec(), seed=0, chains=40)
    careers = [q for q in qas if "/career/" in q.qid]
    chains = [q for q in qas if "/chain/" in q.qid]
    assert len(careers) >= 20 and len(chains) == 40 and all(q.ordered for q in qas)
    names = world_names(world)[lang]
    entity = {world.name(e.id, lang): e.id for e in world.entities}
    for qa in careers:
        person = next(n for n in names if n in qa.question)
        events = [e for e in world.events if e.kind == "life" and world.name(e.subject, lang) == person and e.object is not None]
        days = []
        for n, (needle, item) in enumerate(zip(qa.needles, qa.answers), start=1):
            assert item in needle and states_step(needle, n, lang)
            relation = next(r for prefix, r in CAREER_VERBS[lang] if item.startswith(prefix))
            objects = named_in(item, names)
            days.append(min(e.time for e in events if e.relation == relation and world.name(e.object, lang) in objects))
        assert days == sorted(days), qa.answers
    located = {e.id: next((f.object for f in world.facts_of[e.id] if f.relation == "located_in"), None) for e in world.entities}
    for qa in chains:
        city, country, continent = (entity[a] for a in qa.answers)
        assert (world.entities[city].type, world.entities[country].type, world.entities[continent].type) == ("city", "country", "continent")
        assert located[city] == country and located[country] == continent
        assert all(answer in needle for answer, needle in zip(qa.answers, qa.needles))
        subject = next(entity[n] for n in names if n in qa.question)
        assert any(f.object == city for f in world.facts_of[subject] if f.relation in ("born_in", "headquartered_in", "located_in"))
        for d in qa.distractors:
            assert named_in(d, names) not in [named_in(n, names) for n in qa.needles]


@pytest.mark.parametrize("lang", LANGS)
def test_world_synthetic_diaries_use_the_worlds_people(lang, world):
    people = world_person_names(world, lang)
    qas = world_synthetic_qas(world, SyntheticSpec(lang, 20), seed=0)
    for qa in qas:
        check_temporal_order(qa)
        assert any(p in qa.needles[0] and all(p in n for n in qa.needles) for p in people)


def test_world_pipelines_are_deterministic(world):
    spec = WorldTemporalSpec("zh", 30)
    assert world_temporal_qas(world, spec, seed=1) == world_temporal_qas(world, spec, seed=1)
    assert world_temporal_qas(world, spec, seed=1) != world_temporal_qas(world, spec, seed=2)
    logical = world_logical_qas(world, "en", LogicalSpec(), seed=1, chains=10)
    assert world_logical_qas(world, "en", LogicalSpec(), seed=1, chains=10) == logical
    assert world_logical_qas(world, "en", LogicalSpec(), seed=2, chains=10) != logical
    with pytest.raises(SpecError):
        WorldTemporalSpec("en", 3, min_needles=5, max_needles=4)


def test_ordered_question_is_the_logical_input_type():
    q = OrderedQuestion("k", "en", "How do I tie a knot?", ("Loop.", "Pull.", "Tighten."), "manual")
    (qa,) = logical_qas([q], LogicalSpec(distractors=0), seed=0)
    assert qa.answers == q.items and qa.distractors == () and qa.source == "manual"
