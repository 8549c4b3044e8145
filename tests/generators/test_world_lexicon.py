"""The world lexicons (English and Chinese): complete against the schema, and safe to fill.

Beyond ``check_lexicon``, these pin what the article and question engines rely on: every template
fills with the fields it may use, is exactly one sentence, states time where its relation has it,
and filler states nothing checkable (no digits, dates, names, relations or superlatives).
"""

from __future__ import annotations

import re

import pytest

from generators.text import split_sentences
from generators.world import lexicon_en, lexicon_zh
from generators.world.lexicon import (
    FACT_FIELDS, FILLER_FIELDS, LEAD_FIELDS, Lexicon, check_lexicon, fact_keys, fields_of,
)
from generators.world.schema import CLASS_OF_TYPE, HOP_BY_ID, HOPS, KINDS, RELATION_BY_NAME

LEXICONS = {"en": lexicon_en.LEXICON, "zh": lexicon_zh.LEXICON}
SAMPLES = {
    "en": {"s": "Tavi Korello", "o": "Port Lomera", "year": "1987", "date": "5 March 1987", "value": "412,000",
           "topic": "public health policy", "topic2": "clinical training", "kind": "physician",
           "a_kind": "a physician"},
    "zh": {"s": "塔维·科罗洛", "o": "洛梅拉港", "year": "1987", "date": "1987年3月5日", "value": "41.2万",
           "topic": "公共卫生政策", "topic2": "临床培训", "kind": "医生", "a_kind": "一位医生"},
}
FILLER_PRONOUNS = {
    "place": ("place",), "organization": ("organization",), "work": ("work",), "person": ("male", "female"),
}
EN_BANNED = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|hundred|thousand|million|dozen|first|second|third|"
    r"once|twice|most|least|best|worst|largest|oldest|earliest|latest|greatest|biggest|highest|"
    r"born|birth|birthplace|founded|founder|founding|establish|established|located|situated|married|marriage|"
    r"spouse|wife|husband|capital|member|members|membership|wrote|written|author|authors|directed|director|"
    r"produced|producer|published|publisher|released|release|headquartered|headquarters|died|death|dead|"
    r"graduated|graduate|joined|employed|employer|father|mother|parents|census|population|formed|performed)\b",
    re.IGNORECASE,
)
ZH_BANNED = (
    "出生", "生于", "成立", "创立", "创办", "创建", "建于", "位于", "坐落", "结婚", "首都", "成员",
    "加入", "撰写", "导演", "执导", "出版", "发行", "上映", "毕业", "任职", "逝世", "去世", "总部",
    "父亲", "母亲", "配偶", "人口", "最", "第一", "首次", "两", "《", "》", "“", "”",
)


def _all_templates(lex: Lexicon):
    """(what, template) for every template of the lexicon."""
    for cls, variants in lex.leads.items():
        yield from ((f"lead {cls}", v) for v in variants)
    for key, variants in lex.facts.items():
        yield from ((f"fact {key}", v) for v in variants)
    for cls, variants in lex.filler.items():
        yield from ((f"filler {cls}", v) for v in variants)


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_lexicon_is_complete(lang):
    lex = LEXICONS[lang]
    assert lex.lang == lang
    assert check_lexicon(lex) == []


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_variant_counts_meet_the_brief(lang):
    lex = LEXICONS[lang]
    assert all(len(lex.leads[c]) >= 8 for c in set(CLASS_OF_TYPE.values()))
    assert all(len(lex.facts[k]) >= 4 for k in fact_keys())
    assert all(len(v) >= 3 for v in lex.sections.values())
    assert all(len(lex.filler[c]) >= 60 for c in set(CLASS_OF_TYPE.values()))
    assert all(len(v) >= 40 for v in lex.topics.values())
    for group in (*lex.leads.values(), *lex.facts.values(), *lex.filler.values(), *lex.topics.values()):
        assert len(set(group)) == len(group), [v for v in group if group.count(v) > 1]


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_every_template_fills_to_one_sentence(lang):
    lex, sample = LEXICONS[lang], SAMPLES[lang]
    end = "." if lang == "en" else "。"
    for what, template in _all_templates(lex):
        cls = what.split()[1]
        for pron_key in FILLER_PRONOUNS.get(cls, ("work",)):
            pron, inner = lex.pronouns[pron_key]
            text = template.format(**sample, Pron=pron, pron=inner)
            assert text.endswith(end), (what, template)
            assert split_sentences(text) == [text], (what, template)
    for section, headings in lex.sections.items():
        assert all(h and not fields_of(h) and h.strip() == h for h in headings), section


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_fact_templates_carry_the_time_of_their_relation(lang):
    lex = LEXICONS[lang]
    for key in fact_keys():
        relation = RELATION_BY_NAME[key.split(":")[0]]
        for template in lex.facts[key]:
            fields = fields_of(template)
            assert fields <= FACT_FIELDS
            assert ("o" in fields) == bool(relation.objects), (key, template)
            if relation.time == "none":
                assert not fields & {"year", "date"}, (key, template)
            elif relation.time == "year":
                assert "year" in fields and "date" not in fields, (key, template)
            else:
                assert fields & {"year", "date"}, (key, template)
            assert ("value" in fields) == (relation.name == "population"), (key, template)


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_filler_and_topics_state_nothing_checkable(lang):
    lex = LEXICONS[lang]
    for cls, frames in lex.filler.items():
        for frame in frames:
            assert fields_of(frame) <= FILLER_FIELDS
            bare = re.sub(r"\{\w+\}", "", frame)
            assert not re.search(r"[0-9０-９]", bare), frame
            if lang == "en":
                assert not EN_BANNED.search(bare), (frame, EN_BANNED.search(bare).group())
                assert not re.search(r"\ban? \{kind\}", frame), frame  # the article depends on the noun
                assert not re.findall(r"(?<!^)\b[A-Z][a-z]+", bare.lstrip()), frame  # no proper names
                if cls == "person":
                    assert not re.search(r"\b(his|her|hers|him|himself|herself)\b", frame, re.IGNORECASE), frame
            else:
                assert not [w for w in ZH_BANNED if w in bare], (frame, [w for w in ZH_BANNED if w in bare])
                assert not re.search(r"[〇一二三四五六七八九十百千万两]\s*[年月日]", bare), frame
                assert not re.search(r"[A-Za-z]", bare), frame
                if cls in ("place", "organization"):  # one pronoun per class cannot fit every type
                    assert not fields_of(frame) & {"Pron", "pron"}, frame
    for topics in lex.topics.values():
        for topic in topics:
            assert not re.search(r"[0-9０-９]", topic) and not fields_of(topic), topic
            if lang == "en":
                assert topic == topic.lower(), topic


@pytest.mark.parametrize("lang", sorted(LEXICONS))
def test_hops_nest_and_ask_for_their_answer(lang):
    lex = LEXICONS[lang]
    for hop in HOPS:
        desc, ask = lex.hops[hop.id]
        assert ask.format(x="X").count("X") == 1
        if hop.answer == "year":
            assert desc == ""
        if lang == "en":
            assert not ask.startswith("{x}") and ask[0].isupper() and ask.endswith("?"), hop.id
            if hop.answer == "entity":
                # lowercase, and {x} last so that nested descriptions do not pile up verbs at the end
                assert desc.startswith("the ") and desc.endswith("{x}"), hop.id
            else:
                assert ask.startswith("In what year"), hop.id
        else:
            assert ask.endswith("？") and "？" not in ask[:-1], hop.id
            if hop.answer == "year":
                assert "哪一年" in ask, hop.id


def test_descriptions_nest_into_questions():
    def compose(lex: Lexicon, start: str, hop_ids: list[str]) -> str:
        x = start
        for hop_id in hop_ids[:-1]:
            x = lex.hops[hop_id][0].format(x=x)
        return lex.hops[hop_ids[-1]][1].format(x=x)

    path = ["produced_by>company", "founded_by>person", "born_in>city"]
    assert all(HOP_BY_ID[h].answer == "entity" for h in path)
    assert compose(lexicon_en.LEXICON, "The Silent Garden", path) == (
        "In which city was the founder of the company that produced The Silent Garden born?"
    )
    assert compose(lexicon_zh.LEXICON, "《寂静的花园》", path) == "出品《寂静的花园》的公司的创始人出生于哪座城市？"
    assert compose(lexicon_en.LEXICON, "Tavi Korello", ["mother>person", "born_in>year"]) == (
        "In what year was the mother of Tavi Korello born?"
    )


def test_kind_nouns_take_the_right_article_or_measure_word():
    en, zh = lexicon_en.LEXICON.kinds, lexicon_zh.LEXICON.kinds
    for kind in KINDS:
        noun, with_article = en[kind.id]
        article = "an" if noun[0] in "aeio" else "a"  # "university" is the only u-word, and takes "a"
        assert with_article == f"{article} {noun}", kind.id
        noun, with_measure = zh[kind.id]
        assert re.fullmatch(r"一[个家位座条所部首本支份]" + re.escape(noun), with_measure), kind.id
    assert zh["river"][1] == "一条河流" and zh["song"][1] == "一首歌曲" and zh["rock_band"][1] == "一支摇滚乐队"


def test_leads_use_only_the_kind():
    for lex in LEXICONS.values():
        for variants in lex.leads.values():
            for lead in variants:
                fields = fields_of(lead)
                assert "s" in fields and fields & {"kind", "a_kind"} and fields <= LEAD_FIELDS, lead


def test_dates_counts_and_separators():
    en, zh = lexicon_en.LEXICON, lexicon_zh.LEXICON
    assert en.date_format.format(year=1987, month=en.months[2], month_num=3, day=5) == "5 March 1987"
    assert zh.date_format.format(year=1987, month=zh.months[2], month_num=3, day=5) == "1987年3月5日"
    assert zh.months[0] == "1月" and zh.months[11] == "12月"
    assert en.format_count(412_000) == "412,000" and en.format_count(950) == "950"
    cases = {
        0: "0", 9_999: "9999", 10_000: "1万", 10_499: "1万", 10_500: "1.1万", 412_000: "41.2万", 99_999: "10万",
        1_234_567: "123.5万", 99_999_999: "1亿", 250_000_000: "2.5亿",
    }
    assert {n: zh.format_count(n) for n in cases} == cases
    assert (en.see_also, en.list_sep, en.sentence_sep) == ("See also", ", ", " ")
    assert (zh.see_also, zh.list_sep, zh.sentence_sep) == ("参见", "、", "")


def _terms(template: str, lang: str) -> set[str]:
    """What BM25 matches of a template (EMB-S's analysis: plain words, Chinese as character bigrams), fields removed."""
    from builders.retrieval.analysis import plain_analyze
    from builders.retrieval.ladder import cjk_bigrams

    text = re.sub(r"\{\w+\}", " ", template)
    return set(plain_analyze([cjk_bigrams(text) if lang == "zh" else text])[0])


def _fact_terms(lex: Lexicon, relation: str) -> set[str]:
    return {t for key, variants in lex.facts.items() if key.split(":")[0] == relation
            for v in variants for t in _terms(v, lex.lang)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reworded_questions_share_no_term_with_the_articles_facts(lang: str) -> None:
    """Issue 39: a reworded hop, clause or kind noun gives a lexical retriever nothing of the article's wording for
    that relation or kind to match (only the names the question carries), as a paraphrasing person's question would."""
    lex = LEXICONS[lang]
    for hop in HOPS:
        for template in lex.reworded.hops[hop.id]:
            assert not _terms(template, lang) & _fact_terms(lex, hop.relation), (hop.id, template)
        assert lex.reworded.hops[hop.id] != lex.hops[hop.id]
    for relation, template in lex.reworded.clauses.items():
        assert not _terms(template, lang) & _fact_terms(lex, relation), (relation, template)
    for kind in KINDS:
        assert not _terms(lex.reworded.kinds[kind.id], lang) & _terms(lex.kinds[kind.id][0], lang), kind.id
