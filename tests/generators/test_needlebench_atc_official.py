"""ATC in OpenCompass NeedleBench v2's official style (``AtcSpec(style="official")``, the paper preset's ATC).

Source of truth (open-compass/opencompass, read, not copied):

- ``opencompass/datasets/needlebench_v2/atc.py``: the ten relation terms and the link sentences, including
  "During {B}'s upbringing, {A} was not only {B}'s {relationship}, but also {B}'s guardian." / "{A}在{B}的成长过程中，
  不仅仅是{B}的{relationship}，还是{B}的监护人。"; terms' generations (parents 1, grandparents 2); the four
  prompts; every question is about the whole chain (``NeedleBenchATCDataset.load``: the eldest ancestor of
  ``names[-1]``; the ``total_generations``-th ancestor of ``names[-1]``; the ``total_generations``-th
  descendant of ``names[0]``; the distance between ``names[0]`` and ``names[-1]``); the shuffled sentences are
  joined with ``''``;
- ``opencompass/configs/datasets/needlebench_v2/atc/atc_0shot_nocot_2_power_en.py``: needle counts 2..512,
  10 repeats;
- ``opencompass/datasets/needlebench_v2/atc_elder_only.py`` (``style="official-elder-only"``): the same link
  sentences with "{B} is the child of {A}." / "{B}是{A}所生的孩子。" in place of the guardian form.

Answers are re-derived here from the sentences alone with this file's own patterns.
"""

from __future__ import annotations

import re

import pytest

from builders.sources.person_names import faker_person_names
from generators.needlebench.atc import generate_atc
from generators.needlebench.official import (
    ELDER_ONLY_LINKS,
    OFFICIAL_ATC_PROMPTS,
    OFFICIAL_LINKS,
    OFFICIAL_TERMS,
)
from generators.needlebench.spec import AtcSpec

TERMS_EN = {"father": 1, "mother": 1, "dad": 1, "mom": 1, "grandfather": 2, "grandmother": 2,
            "maternal grandmother": 2, "maternal grandfather": 2, "paternal grandfather": 2, "paternal grandmother": 2}
TERMS_ZH = {"父亲": 1, "母亲": 1, "爸爸": 1, "妈妈": 1, "爷爷": 2, "奶奶": 2, "姥姥": 2, "姥爷": 2, "外公": 2, "外婆": 2}
N = r"(?P<{}>[A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*)+)"
T = "(?P<t>" + "|".join(sorted(TERMS_EN, key=len, reverse=True)) + ")"
E, Y, Y2, E2 = N.format("e"), N.format("y"), "(?P=y)", "(?P=e)"
LINKS_EN = [re.compile(p) for p in (
    rf"{E} is {Y}'s {T}\.", rf"{Y}'s {T} is {E}\.", rf"{E}, as {Y}'s {T}, has a significant impact on {Y2}'s upbringing\.",
    rf"{E} is not only {Y}'s {T} but also {Y2}'s role model\.", rf"{Y} is the child of {E}\.",
    rf"During {Y}'s upbringing, {E} was not only {Y2}'s {T}, but also {Y2}'s guardian\.",
    rf"For {Y}, {E} is not just a {T}, but also a friend\.",
    rf"For {Y}, {E} is more than just a {T}; {E2} is a lifelong mentor of {Y2}\.",
)]
ZN = r"(?P<{}>[\u4e00-\u9fff]{{2}})"
ZT = "(?P<t>" + "|".join(TERMS_ZH) + ")"
ZE, ZY = ZN.format("e"), ZN.format("y")
LINKS_ZH = [re.compile(p) for p in (
    rf"{ZE}是{ZY}的{ZT}。", rf"{ZY}的{ZT}是{ZE}。", rf"{ZE}作为{ZY}的{ZT}，对(?P=y)的成长有重要影响。",
    rf"{ZE}不仅是{ZY}的{ZT}，还是(?P=y)的榜样。", rf"{ZY}是{ZE}所生的孩子。", rf"{ZE}对{ZY}来说，不只是一个{ZT}，还是一个朋友。",
    rf"{ZE}在{ZY}的成长过程中，不仅仅是(?P=y)的{ZT}，还是(?P=y)的监护人。",
)]


def solve(sentences: list[str], lang: str) -> tuple[str, str, int]:
    """(eldest, youngest, total generations) of a chain stated by its link sentences in any order."""
    up: dict[str, tuple[str, int]] = {}
    for sentence in sentences:
        for pattern in (LINKS_EN if lang == "en" else LINKS_ZH):
            m = pattern.fullmatch(sentence)
            if m:
                gap = (TERMS_EN if lang == "en" else TERMS_ZH)[m["t"]] if "t" in m.groupdict() and m["t"] else 1
                up[m["y"]] = (m["e"], gap)
                break
        else:
            raise AssertionError(f"not an official link sentence: {sentence!r}")
    elders = {e for e, _ in up.values()}
    (youngest,) = set(up) - elders
    person, total = youngest, 0
    while person in up:
        person, gap = up[person]
        total += gap
    return person, youngest, total


@pytest.fixture(scope="module")
def names():
    return faker_person_names()[0]


@pytest.fixture(scope="module", params=["official", "official-elder-only"])
def rows(request, names, cl100k):
    return {lang: list(generate_atc(AtcSpec(lang, (2, 5, 16), repeats=3, style=request.param), seed=7, tokens=cl100k,
                                    names=names))
            for lang in ("en", "zh")}


def test_official_vocabulary():
    """atc.py's ten terms, generations and link sentences (the guardian form); atc_elder_only.py's, with the child
    form in its place."""
    assert dict(OFFICIAL_TERMS["en"]) == TERMS_EN and dict(OFFICIAL_TERMS["zh"]) == TERMS_ZH
    guardian_en = "During {younger}'s upbringing, {elder} was not only {younger}'s {role}, but also {younger}'s guardian."
    guardian_zh = "{elder}在{younger}的成长过程中，不仅仅是{younger}的{role}，还是{younger}的监护人。"
    assert OFFICIAL_LINKS["en"][4] == guardian_en and len(OFFICIAL_LINKS["en"]) == 7
    assert OFFICIAL_LINKS["zh"][4] == guardian_zh and len(OFFICIAL_LINKS["zh"]) == 6
    assert ELDER_ONLY_LINKS["en"][4] == "{younger} is the child of {elder}." and len(ELDER_ONLY_LINKS["en"]) == 7
    assert ELDER_ONLY_LINKS["zh"][4] == "{younger}是{elder}所生的孩子。" and len(ELDER_ONLY_LINKS["zh"]) == 6
    for lang in ("en", "zh"):
        assert [f for i, f in enumerate(OFFICIAL_LINKS[lang]) if i != 4] == \
               [f for i, f in enumerate(ELDER_ONLY_LINKS[lang]) if i != 4]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_style_writes_its_own_fifth_form(names, cl100k, lang):
    """The paper preset's ATC (atc.py) has guardian sentences and no child sentence; atc_elder_only.py the reverse."""
    marks = {"en": ("guardian", "is the child of"), "zh": ("监护人", "所生的孩子")}[lang]
    for style, (present, absent) in (("official", marks), ("official-elder-only", marks[::-1])):
        spec = AtcSpec(lang, (64,), repeats=2, style=style)
        sentences = [n["text"] for row in generate_atc(spec, seed=3, tokens=cl100k, names=names) for n in row["needles"]]
        assert any(present in s for s in sentences) and not any(absent in s for s in sentences), style


def test_official_prompt_wording():
    """atc.py's prompts, word for word (spot lines of each; the eldest-ancestor Chinese prompt keeps its blank
    line of 16 spaces)."""
    en, zh = OFFICIAL_ATC_PROMPTS["en"], OFFICIAL_ATC_PROMPTS["zh"]
    assert en["eldest_ancestor"].startswith(
        "Here is a test for multi-step reasoning ability called the Ancestral Trace Challenge. In this test, we will "
        "simulate different people's familial relationships, and your task is to continuously reason through them "
        "until you identify the eldest ancestor.\n\nFor example:\nExample 1: If James Hill's father is Jasmine Lane,")
    assert en["eldest_ancestor"].endswith(
        "Now, the scrambled family relationships are provided below:\n{shuffled_story}\n\nGiven the scrambled family "
        "relationships described above, who is the eldest relative that '{last_person}' can trace back to in the context?\n")
    assert ("3. Father/mother/dad/mom count as 1 generation, while grandfather/grandmother/maternal grandmother/maternal "
            "grandfather/paternal grandfather/paternal grandmother count as 2 generations.\n") in en["nth_ancestor"]
    assert en["nth_descendant"].endswith("who is the {n}th generation descendant of '{person}'?\n")
    assert en["relationship_distance"].endswith("what is the relationship distance between '{person_a}' and '{person_b}'?\n")
    assert zh["eldest_ancestor"].startswith(
        "下面是对你的多步推理能力的测试，这个测试叫做祖先追溯测试，我们会模拟不同人的家庭亲属关系，你的任务是在其中不断推理，"
        "直到找到最年长的祖先。\n" + " " * 16 + "\n例如：\n")
    assert zh["eldest_ancestor"].endswith("在上面提供的打乱的家族关系文本中，'{last_person}'的能够向上追溯到的最年长的亲人是谁？\n")
    assert zh["nth_ancestor"].endswith("在上面提供的打乱的家族关系文本中，'{person}'的{n}代祖先是谁？\n")
    assert zh["nth_descendant"].endswith("在上面提供的打乱的家族关系文本中，'{person}'的{n}代子孙是谁？\n")
    assert zh["relationship_distance"].endswith("在上面提供的打乱的家族关系文本中，'{person_a}'和'{person_b}'之间的关系距离是多少？\n")
    for lang in ("en", "zh"):
        for template in OFFICIAL_ATC_PROMPTS[lang].values():
            assert "\\boxed{{}}" in template and "{shuffled_story}" in template


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_rows_are_the_official_prompt_around_the_story(rows, lang):
    for row in rows[lang]:
        story = "".join(n["text"] for n in row["needles"])  # atc.py: ''.join of the shuffled sentences
        eldest, youngest, total = solve([n["text"] for n in row["needles"]], lang)
        fields = {"shuffled_story": story, "last_person": youngest, "person": youngest, "n": total,
                  "person_a": eldest, "person_b": youngest}
        if row["question_type"] == "nth_descendant":
            fields["person"] = eldest
        assert row["input"] == OFFICIAL_ATC_PROMPTS[lang][row["question_type"]].format(**fields), row["id"]
        for needle in row["needles"]:
            assert row["input"][needle["char_offset"]:].startswith(needle["text"])
        assert row["query"] == row["input"].rstrip("\n").rsplit("\n", 1)[-1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_question_is_about_the_whole_chain(rows, lang):
    """atc.py: answers are names[0], names[0], names[-1] and str(total_generations)."""
    seen = set()
    for row in rows[lang]:
        eldest, youngest, total = solve([n["text"] for n in row["needles"]], lang)
        assert len(row["needles"]) == row["needle_count"]
        expected = {"eldest_ancestor": eldest, "nth_ancestor": eldest, "nth_descendant": youngest,
                    "relationship_distance": str(total)}[row["question_type"]]
        assert row["answers"] == [expected], row["id"]
        seen.add(row["question_type"])
    assert len(seen) == 4


def test_official_style_is_deterministic_and_seeded(names, cl100k):
    spec = AtcSpec("en", (4,), repeats=2, style="official")
    a = list(generate_atc(spec, seed=1, tokens=cl100k, names=names))
    assert a == list(generate_atc(spec, seed=1, tokens=cl100k, names=names))
    assert [r["input"] for r in a] != [r["input"] for r in generate_atc(spec, seed=2, tokens=cl100k, names=names)]


def test_no_person_has_an_example_name(rows):
    examples = {"James Hill", "Jasmine Lane", "Andrew Williams", "Dan Newton", "Jeff White", "Kevin Le", "Shelley Mills",
                "Christopher Baker", "Mary Johnson", "张强", "马克", "李明", "张红", "小明", "王华", "王刚", "王鹏", "刘芳"}
    for lang in ("en", "zh"):
        for row in rows[lang]:
            story = "".join(n["text"] for n in row["needles"])
            assert not any(name in story for name in examples), row["id"]
