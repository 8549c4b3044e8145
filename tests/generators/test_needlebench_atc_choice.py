"""The multiple-choice ATC (``AtcChoiceSpec``, tasks ``atc-choice`` and ``atc-choice-reasoning``).

Source of truth (open-compass/opencompass, read, not copied):

- ``opencompass/datasets/needlebench/atc_choice.py``: ``num_needles`` names per question linked by
  ``num_needles - 1`` sentences of the eight ``relationship_templates`` with the ten ``relationship_terms``,
  shuffled and joined with ``''``; the question ``shuffled_story + ' ' + '\\n' + prompt`` about ``names[-1]``;
  options ``names[0:4]`` (padded with other names below four people), answer ``A``; ``get_circular_example``
  rotates them by ``ABCD``, ``BCDA``, ``CDAB``, ``DABC`` and appends ``get_number`` (``"A. name\\n"``);
- ``opencompass/configs/datasets/needlebench/atc/atc_choice.py``: the four few-shot conversations, the last turn
  ``Question: {question}`` / ``问题: {question}``, ``needle_num_list = range(2, 20)``, ``repeats = 10``.

Answers are re-derived from the sentences alone with this file's own patterns.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest

from builders.sources.person_names import faker_person_names
from generators.needlebench.atc_choice import choice_prompt, generate_atc_choice, rotate
from generators.needlebench.official_choice import (
    CHOICE_EXAMPLE_NAMES,
    CHOICE_FEW_SHOT,
    CHOICE_QUESTION,
)
from generators.needlebench.spec import (
    CHOICE_NEEDLE_PRESETS,
    DEFAULT_CHOICE_NEEDLES,
    AtcChoiceSpec,
    parse_choice_needles,
    show_choice_needles,
)
from needlework.errors import SpecError

TERMS_EN = ("father", "mother", "dad", "mom", "grandfather", "grandmother", "maternal grandmother",
            "maternal grandfather", "paternal grandfather", "paternal grandmother")
TERMS_ZH = ("父亲", "母亲", "爸爸", "妈妈", "爷爷", "奶奶", "姥姥", "姥爷", "外公", "外婆")
N = r"(?P<{}>[A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*)+)"
T = "(?:" + "|".join(sorted(TERMS_EN, key=len, reverse=True)) + ")"
E, Y = N.format("e"), N.format("y")
LINKS_EN = [re.compile(p) for p in (
    rf"{E} is {Y}'s {T}\.", rf"{Y}'s {T} is {E}\.", rf"{E}, as {Y}'s {T}, has a significant impact on (?P=y)'s upbringing\.",
    rf"{E} is not only {Y}'s {T} but also (?P=y)'s role model\.", rf"{Y} is the child of {E}\.",
    rf"For {Y}, {E} is not just a {T}, but also a friend\.", rf"{E} plays the role of {Y}'s {T} in (?P=y)'s life\.",
    rf"{Y} considers {E} as their {T}\.",
)]
ZE, ZY, ZT = r"(?P<e>[\u4e00-\u9fff]{2})", r"(?P<y>[\u4e00-\u9fff]{2})", "(?:" + "|".join(TERMS_ZH) + ")"
LINKS_ZH = [re.compile(p) for p in (
    rf"{ZE}是{ZY}的{ZT}。", rf"{ZY}的{ZT}是{ZE}。", rf"{ZE}作为{ZY}的{ZT}，对(?P=y)的成长有重要影响。",
    rf"{ZE}不仅是{ZY}的{ZT}，还是(?P=y)的榜样。", rf"{ZY}是{ZE}所生的孩子。", rf"{ZE}对{ZY}来说，不只是一个{ZT}，还是一个朋友。",
    rf"{ZE}在{ZY}的生命中扮演着{ZT}的角色。", rf"{ZY}把{ZE}视为其{ZT}。",
)]
QUESTION_EN = ("Given the scrambled family relationships described above, who is the eldest relative that '{}' can "
               "trace back to in the context?")
QUESTION_ZH = "在上面提供的打乱的家族关系文本中，'{}'的能够向上追溯到的最年长的亲人是谁？"


def chain(sentences: list[str], lang: str) -> list[str]:
    """The people of a chain stated by its link sentences in any order, eldest first."""
    up: dict[str, str] = {}
    for sentence in sentences:
        match = next((m for p in (LINKS_EN if lang == "en" else LINKS_ZH) if (m := p.fullmatch(sentence))), None)
        assert match is not None, f"not an atc_choice.py link sentence: {sentence!r}"
        up[match["y"]] = match["e"]
    (person,) = set(up) - set(up.values())
    people = [person]
    while person in up:
        person = up[person]
        people.append(person)
    return people[::-1]


@pytest.fixture(scope="module")
def names():
    return faker_person_names()[0]


@pytest.fixture(scope="module")
def rows(names, cl100k) -> dict[str, list[dict]]:
    made = {}
    for lang in ("en", "zh"):
        for reasoning in (False, True):
            spec = AtcChoiceSpec(lang, needle_counts=(2, 3, 4, 7, 19), repeats=3, reasoning=reasoning)  # type: ignore[arg-type]
            made[spec.task + "-" + lang] = list(generate_atc_choice(spec, seed=0, tokens=cl100k, names=names))
    return made


def test_prompt_is_the_official_question_word_for_word():
    """English: the config's first example is exactly what atc_choice.py builds for its story and options."""
    story = "Jasmine Lane plays the role of James Hill's father in James Hill's life."
    options = ("Jasmine Lane", "James Hill", "Christopher Flores", "Paula Reeves")
    built = choice_prompt(story, CHOICE_QUESTION["en"].format(last_person="James Hill"), options, "en")
    assert built == CHOICE_FEW_SHOT[("en", False)][0][1]
    assert built == ("Question: Jasmine Lane plays the role of James Hill's father in James Hill's life. \nGiven the "
                     "scrambled family relationships described above, who is the eldest relative that 'James Hill' "
                     "can trace back to in the context?\nA. Jasmine Lane\nB. James Hill\nC. Christopher Flores\n"
                     "D. Paula Reeves\n")
    # Chinese: the dataset quotes the name with '' (the config's examples happen to use "").
    assert choice_prompt("毕东作为刘红的爸爸，对刘红的成长有重要影响。", CHOICE_QUESTION["zh"].format(last_person="刘红"),
                         ("毕东", "刘红", "李清亮", "王展"), "zh") == (
        "问题: 毕东作为刘红的爸爸，对刘红的成长有重要影响。 \n在上面提供的打乱的家族关系文本中，'刘红'的能够向上追溯到的最年长的亲人是谁？"
        "\nA. 毕东\nB. 刘红\nC. 李清亮\nD. 王展\n")


FEW_SHOT_SHA256 = {
    ("en", False): "387fb9137372e8fdfcbd4130f616ba87e7c5a450f15762d1322210ac90824ebc",
    ("zh", False): "74408c29da973aae8ab497d152fc6c9063e6af2200f79b3233938ed42e906000",
    ("en", True): "fec47dc52a5f42c18acd1ca73113674afe5207d1e0b3cda2406e73904356b6a6",
    ("zh", True): "675c3d4c23e025eaaf76d5619816340edd8b5c1c0905791d0db89a7b1087f6d6",
}
"""sha256 of ``role \x1f text`` per turn joined by ``\x1e`` (HUMAN -> user, BOT -> assistant), computed from the
rounds of ``single_choice_{en,cn}{,_reasoning}`` in atc_choice.py before the final ``{question}`` turn."""


def test_few_shot_text_is_the_configs_word_for_word():
    for key, digest in FEW_SHOT_SHA256.items():
        joined = "\x1e".join(f"{role}\x1f{text}" for role, text in CHOICE_FEW_SHOT[key])
        assert hashlib.sha256(joined.encode("utf-8")).hexdigest() == digest, key


def test_few_shot_turns_are_the_configs_conversations(rows, cl100k):
    """Four worked questions (user, assistant) per variant; plain answers ``Answer: X`` / ``回答: X``."""
    for config, made in rows.items():
        lang, reasoning = config[-2:], "reasoning" in config
        turns = CHOICE_FEW_SHOT[(lang, reasoning)]
        assert [role for role, _ in turns] == ["user", "assistant"] * 4
        assert all(r["few_shot"] == [{"role": role, "content": text} for role, text in turns] for r in made)
        first = made[0]
        assert first["n_tokens"] == cl100k.count("\n".join([t for _, t in turns] + [first["input"]]))
    assert [t for role, t in CHOICE_FEW_SHOT[("en", False)] if role == "assistant"] == [
        "Answer: A", "Answer: C", "Answer: D", "Answer: B"]
    assert [t for role, t in CHOICE_FEW_SHOT[("zh", False)] if role == "assistant"] == [
        "回答: A", "回答: D", "回答: C", "回答: D"]
    assert CHOICE_FEW_SHOT[("en", True)][1][1].endswith("The answer is: C")
    assert CHOICE_FEW_SHOT[("zh", True)][7][1].endswith("所以答案是：D")
    assert "扮演着奶奶的角色" in CHOICE_FEW_SHOT[("zh", True)][6][1]  # atc_choice.py's, not _20.py's "扮演着w奶奶"


def test_rows_hold_the_chain_the_question_and_rotated_options(rows):
    for config, made in rows.items():
        lang = config[-2:]
        turn = "Question: " if lang == "en" else "问题: "
        question = QUESTION_EN if lang == "en" else QUESTION_ZH
        assert len(made) == 5 * 3 * 4
        for r in made:
            people = chain([n["text"] for n in r["needles"]], lang)
            count = r["needle_count"]
            assert len(people) == count and len(r["needles"]) == count - 1
            story = "".join(n["text"] for n in r["needles"])
            assert r["query"] == question.format(people[-1])
            listed = "".join(f"{letter}. {name}\n" for letter, name in zip("ABCD", r["options"]))
            assert r["input"] == f"{turn}{story} \n{r['query']}\n{listed}"
            for needle in r["needles"]:
                assert r["input"][needle["char_offset"]:].startswith(needle["text"])
            letter = r["answers"][0]
            assert r["options"]["ABCD".index(letter)] == people[0]  # the eldest is the answer
            original = rotate_back(r["options"], r["circular_pattern"])
            assert original[:min(count, 4)] == people[:4]  # the chain's first four, eldest first
            assert len(set(original)) == 4 and not set(original[count:]) & set(people)
            assert not set(original) & CHOICE_EXAMPLE_NAMES


def rotate_back(shown: list[str], pattern: str) -> list[str]:
    """The options before ``get_circular_example`` put original option ``pattern[i]`` at position ``i``."""
    original = [""] * 4
    for position, letter in enumerate(pattern):
        original["ABCD".index(letter)] = shown[position]
    return original


def test_every_question_is_asked_in_the_four_rotations_with_a_shared_key(rows):
    made = rows["atc-choice-en"]
    groups: dict[str, list[dict]] = {}
    for r in made:
        groups.setdefault(r["question_id"], []).append(r)
        assert r["id"] == f"{r['question_id']}/circular={r['circular_pattern']}"
    assert len(groups) == 15
    for group in groups.values():
        assert [r["circular_pattern"] for r in group] == ["ABCD", "BCDA", "CDAB", "DABC"]
        assert [r["answers"] for r in group] == [["A"], ["D"], ["C"], ["B"]]
        assert len({r["input"].split("\nA. ")[0] for r in group}) == 1  # the same story and question
        assert len({tuple(rotate_back(r["options"], r["circular_pattern"])) for r in group}) == 1
    assert Counter(r["answers"][0] for r in made) == {"A": 15, "B": 15, "C": 15, "D": 15}
    assert rotate(("a", "b", "c", "d"), "CDAB") == (("c", "d", "a", "b"), "C")


def test_rows_are_deterministic_and_the_variants_share_their_questions(rows, names, cl100k):
    spec = AtcChoiceSpec("en", needle_counts=(2, 3, 4, 7, 19), repeats=3)
    assert list(generate_atc_choice(spec, seed=0, tokens=cl100k, names=names)) == rows["atc-choice-en"]
    other = list(generate_atc_choice(spec, seed=1, tokens=cl100k, names=names))
    assert [r["input"] for r in other] != [r["input"] for r in rows["atc-choice-en"]]
    for lang in ("en", "zh"):
        plain, reasoning = rows[f"atc-choice-{lang}"], rows[f"atc-choice-reasoning-{lang}"]
        assert [r["input"] for r in plain] == [r["input"] for r in reasoning]
        assert [r["id"].split("/", 1)[1] for r in plain] == [r["id"].split("/", 1)[1] for r in reasoning]
        assert {r["task"] for r in reasoning} == {"atc-choice-reasoning"}
    small = AtcChoiceSpec("en", needle_counts=(7,), repeats=3)
    assert list(generate_atc_choice(small, seed=0, tokens=cl100k, names=names)) == [
        r for r in rows["atc-choice-en"] if r["needle_count"] == 7]  # a row depends on its own key only


def test_link_forms_and_terms_are_drawn_from_the_whole_official_vocabulary(names, cl100k):
    spec = AtcChoiceSpec("zh", needle_counts=(60,), repeats=2)  # type: ignore[arg-type]
    sentences = [n["text"] for r in generate_atc_choice(spec, seed=3, tokens=cl100k, names=names) for n in r["needles"]]
    assert {i for s in sentences for i, p in enumerate(LINKS_ZH) if p.fullmatch(s)} == set(range(8))
    assert {t for s in sentences for t in TERMS_ZH if t in s} == set(TERMS_ZH)


def test_spec_grid_presets_and_validation():
    assert DEFAULT_CHOICE_NEEDLES == tuple(range(2, 20)) == CHOICE_NEEDLE_PRESETS["atc_choice"]
    assert parse_choice_needles("atc_choice_50") == tuple(range(2, 50))
    assert parse_choice_needles("atc_choice_80")[-1] == 79
    assert parse_choice_needles("2, 5,5,9") == (2, 5, 9)
    assert show_choice_needles(tuple(range(2, 50))) == "atc_choice_50" and show_choice_needles((2, 5)) == "2,5"
    assert AtcChoiceSpec("en").repeats == 10 and AtcChoiceSpec("en", reasoning=True).task == "atc-choice-reasoning"
    with pytest.raises(SpecError, match="neither an integer nor a preset"):
        parse_choice_needles("atc_choice_20x")
    with pytest.raises(SpecError, match=r"ATC choice needle counts must hold integers in \[2, "):
        AtcChoiceSpec("en", needle_counts=(1, 2))
    with pytest.raises(SpecError, match="langs"):
        AtcChoiceSpec("fr")  # type: ignore[arg-type]
