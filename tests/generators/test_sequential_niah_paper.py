"""Sequential-NIAH's ``paper`` preset rules and the needle-uniqueness guarantee, on crafted samples.

Source of truth: the official code, miraclefish/Sequential-NIAH-Benchmark (read, not copied):

* ``Sequential_NIAH_building_PPL.py``: ``encoding = tiktoken.encoding_for_model("gpt-4")`` measures
  every prompt (cl100k_base); ``build_data`` wraps the text in one of five prefixes and five
  question headings (``random.choice`` of each; the question-first branch has weight 0).
* ``Sequential_NIAH_building_PPL_with_noise.py``: ``make_little_moving`` / ``check_moving_idx_box``
  (tiny movement: a box of periods 3 either way, split between neighbours), ``make_large_moving``
  (significant movement: ``random.sample(period_positions, k)`` sorted).
* ``Sequential_NIAH_building_PPL_with_sem_noise.py``: ``gen_syn_semantic_noise`` (near name and date,
  irrelevant protagonist; variations [1], [2], [1+2]), ``gen_open_semantic_noise`` (three sentences
  about the subject), ``insert_needles_to_text_new`` (distinct segments, a random period in each).

Issue 24: no needle may stand in its haystack a second time.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import date
from itertools import combinations

import numpy as np
import pytest

from generators.seeding import rng_for
from generators.sequential_niah.assemble import (
    Layout,
    check_stated_once,
    generate_samples,
    official_frame,
    sentence_boundaries,
)
from generators.sequential_niah.dates import format_date
from generators.sequential_niah.noise import (
    NoiseRules,
    noise_layouts,
    official_noise_cuts,
    official_significant_movement,
    official_tiny_boxes,
    official_tiny_movement,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.semantic import find_date, look_alike, noise_sets
from generators.sequential_niah.tkg import looks_like_person
from generators.sequential_niah.spec import (
    OFFICIAL_PREFIXES,
    OFFICIAL_SEPARATOR,
    OFFICIAL_SUFFIXES,
    PROMPT_FRAMES,
    SHORT_BUCKET,
    LengthBucket,
)
from generators.sequential_niah.splits import fits_text, pair_texts
from generators.sequential_niah.texts import LongText, SourceText, bucket_texts
from needlework.errors import BudgetError, SpecError
from needlework.tokenizers import load_tokenizer

# The official lists, typed from build_data in Sequential_NIAH_building_PPL.py (document-first branch).
OFFICIAL_EN = (["Document: ", "Document: \n", "Document:", "Document:\n", ""],
               ["Question: ", "Question: \n", "Question:", "Question:\n", "Please answer the question:\n"])
OFFICIAL_ZH = (["文档：", "文档：\n", "文档:", "文档:\n", ""],
               ["问题：", "问题：\n", "问题:", "问题:\n", "回答以下问题：\n"])


@pytest.fixture(scope="module")
def cl100k():
    return load_tokenizer("cl100k_base")


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer("qwen2.5")


def diary_qa(lang: str = "en") -> SequentialQA:
    """A crafted synthetic-temporal QA: three dated entries of Ann Cole's diary."""
    days = (date(2006, 2, 1), date(2006, 2, 15), date(2006, 3, 4))
    events = ("visited the harbour with a cousin.", "baked bread for the neighbours.", "repaired the garden fence.")
    needles = tuple(f"Ann Cole's Diary, {format_date(d, 'month_day_year')}: {e[:1].upper() + e[1:]}"
                    for d, e in zip(days, events))
    answers = tuple(f"{format_date(d, 'month_day_year')}: {e}" for d, e in zip(days, events))
    return SequentialQA("synthetic-temporal/en/000001", lang, "synthetic-temporal",
                        "What did Ann Cole's Diary record in February and March 2006?", answers, needles, True,
                        "\n".join(answers), (), "syn", subject="Ann Cole")


def crafted_text(tokens, n_sentences: int = 700, text_id: str = "doc/1", lang: str = "en") -> LongText:
    """A long text of numbered sentences, in the 4k-7k bucket of ``tokens``."""
    raw = " ".join(f"The lantern number {i} hangs above the quiet blue door of the old mill." for i in range(n_sentences))
    texts, _ = bucket_texts([SourceText(text_id, lang, "crafted", raw)], tokens, buckets=(SHORT_BUCKET,))
    assert len(texts) == 1
    return texts[0]


# --- cl100k buckets ----------------------------------------------------------------------------


def test_the_gpt4_tokenizer_buckets_a_crafted_text_where_qwen_does_not(cl100k, qwen):
    """Official: ``tiktoken.encoding_for_model("gpt-4")`` (cl100k_base) measures the prompts
    (Sequential_NIAH_building_PPL.py). The preset's counter is cl100k (GPT-4's ids for "hello world"
    are 15339, 1917), and a crafted Chinese text falls into 8k-16k by it but 4k-7k by Qwen2.5."""
    assert cl100k.encode("hello world").tolist() == [15339, 1917]
    raw = "".join(f"第{i}盏灯挂在磨坊那扇安静的蓝色木门上方。" for i in range(380))
    buckets = (SHORT_BUCKET, LengthBucket("8k-16k", 8_192, 16_384))
    doc = [SourceText("zh/1", "zh", "crafted", raw)]
    by_cl100k, _ = bucket_texts(doc, cl100k, buckets=buckets)
    by_qwen, _ = bucket_texts(doc, qwen, buckets=buckets)
    assert [(t.length_bucket, t.origin) for t in by_cl100k] == [("8k-16k", "whole")]
    assert by_cl100k[0].n_tokens == len(cl100k.encode(raw)) == 11_780
    assert [(t.length_bucket, t.origin) for t in by_qwen] == [("4k-7k", "whole")]


def test_a_crafted_sample_is_measured_and_bucketed_by_cl100k(cl100k):
    """The whole prompt of a sample built with the GPT-4 tokenizer has its cl100k length in its bucket."""
    qa, text = diary_qa(), crafted_text(cl100k)
    row = next(generate_samples([(qa, text)], seed=3, tokens=cl100k, buckets=(SHORT_BUCKET,), frames="official"))
    assert row["n_tokens"] == len(cl100k.encode(row["input"]))
    assert SHORT_BUCKET.low <= row["n_tokens"] < SHORT_BUCKET.high


# --- prompt frames -----------------------------------------------------------------------------


def test_the_frame_variants_are_the_official_ones_word_for_word():
    """build_data (Sequential_NIAH_building_PPL.py): prefix + text_with_needles + "\\n\\n" + heading + question."""
    assert (list(OFFICIAL_PREFIXES["en"]), list(OFFICIAL_SUFFIXES["en"])) == OFFICIAL_EN
    assert (list(OFFICIAL_PREFIXES["zh"]), list(OFFICIAL_SUFFIXES["zh"])) == OFFICIAL_ZH
    assert OFFICIAL_SEPARATOR == "\n\n"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_sample_draws_one_of_the_25_frames_uniformly_and_reproducibly(lang):
    """``random.choice`` of five prefixes and five headings, independently: all 25 pairs, about equally often."""
    frames = Counter(official_frame(0, f"sample/{i}", lang) for i in range(5_000))
    expected = {(p, OFFICIAL_SEPARATOR + h) for p in OFFICIAL_PREFIXES[lang] for h in OFFICIAL_SUFFIXES[lang]}
    assert set(frames) == expected
    assert all(130 <= c <= 270 for c in frames.values()), frames  # 200 expected each
    assert official_frame(0, "sample/7", lang) == official_frame(0, "sample/7", lang)
    assert any(official_frame(0, f"s/{i}", lang) != official_frame(1, f"s/{i}", lang) for i in range(20))


def test_a_sample_under_official_frames_wraps_text_and_question_in_its_frame(cl100k):
    """The rendered prompt is ``prefix + text + "\\n\\n" + heading + question``; the default keeps the fixed frame."""
    qa, text = diary_qa(), crafted_text(cl100k)
    official = next(generate_samples([(qa, text)], seed=5, tokens=cl100k, buckets=(SHORT_BUCKET,), frames="official"))
    prefix, between = official_frame(5, official["id"], "en")
    assert official["input"].startswith(prefix + text.text[:40]) and official["input"].endswith(between + qa.question)
    fixed = next(generate_samples([(qa, text)], seed=5, tokens=cl100k, buckets=(SHORT_BUCKET,)))
    before, after = PROMPT_FRAMES["en"]
    assert fixed["input"].startswith(before + text.text[:40]) and fixed["input"].endswith(after + qa.question)
    with pytest.raises(SpecError, match="frames"):
        next(generate_samples([(qa, text)], seed=5, tokens=cl100k, buckets=(SHORT_BUCKET,), frames="nice"))


# --- tiny movement: boxes of 3 periods either way ----------------------------------------------


def test_official_tiny_boxes_of_crafted_positions():
    """check_moving_idx_box: ``period_positions[id-3 : id+3+1]``; overlapping neighbours split at
    ``bound = (max(id-3, 0) + prev + 3 + 1) // 2`` (previous box up to ``bound``, current from
    ``bound + 1`` to ``id + 2``); a box of more than one period loses the needle's own."""
    assert official_tiny_boxes(np.array([5, 7, 20]), 30) == [[2, 3, 4, 6], [8, 9], [17, 18, 19, 21, 22, 23]]
    assert official_tiny_boxes(np.array([0, 28]), 30) == [[1, 2, 3], [25, 26, 27, 29]]
    # Three neighbours: the official code would rebuild the middle box from 7 - 3 = 4 (crossing the
    # first needle's box); the earlier split stands here (a documented departure).
    assert official_tiny_boxes(np.array([5, 7, 9]), 30) == [[2, 3, 4, 6], [8], [10, 11]]


def test_official_tiny_movement_moves_each_needle_at_most_3_periods_in_order():
    """make_little_moving: each needle drawn uniformly from its box; boxes are disjoint, so the order holds."""
    reached: Counter = Counter()
    for trial in range(400):
        rng = rng_for(0, "test", "tiny", str(trial))
        n = int(rng.integers(12, 60))
        k = int(rng.integers(2, min(8, n // 2)))
        old = np.sort(rng.choice(n, size=k, replace=False))
        try:
            new = official_tiny_movement(old, n, rng)
        except BudgetError:
            continue
        assert np.all(np.abs(new - old) <= 3) and np.all(np.diff(new) > 0)
        boxes = official_tiny_boxes(old, n)
        assert all(q in box for q, box in zip(new.tolist(), boxes))
        assert all(q != p for q, p, box in zip(new.tolist(), old.tolist(), boxes) if len(box) > 1)
    for _ in range(600):
        reached[int(official_tiny_movement(np.array([10]), 40, np.random.default_rng(_))[0])] += 1
    assert set(reached) == {7, 8, 9, 11, 12, 13} and min(reached.values()) > 60  # uniform over the box


# --- significant movement: every position drawn again -------------------------------------------


def test_official_significant_movement_draws_all_positions_uniformly_in_order():
    """make_large_moving: ``random.sample(period_positions, k)`` sorted: every k-subset equally likely."""
    counts: Counter = Counter()
    old = np.array([0, 1, 2])
    for i in range(11_200):
        new = official_significant_movement(old, 8, np.random.default_rng(i))
        assert np.all(np.diff(new) > 0)
        counts[tuple(new.tolist())] += 1
    assert set(counts) == set(combinations(range(8), 3))
    assert all(130 <= c <= 270 for c in counts.values())  # 200 expected each of 56


def test_official_movements_on_a_crafted_sample_keep_order_frame_and_sentence_ends(cl100k):
    """Through the noise layouts: cuts stay sentence ends, the needles' order and the frame are kept."""
    qa, text = diary_qa(), crafted_text(cl100k)
    bounds = sentence_boundaries(text.text)
    original = Layout(len(text.text), (int(bounds[10]), int(bounds[12]), int(bounds[300])), (2, 0, 1),
                      frame=official_frame(0, "x", "en"))
    rules = NoiseRules("official", "official", "generated", "official")
    for kind in ("tiny-movement", "significant-movement"):
        for layout in noise_layouts(original, qa, text.text, kind, np.random.default_rng(1), 3, rules):
            assert layout.order == original.order and layout.frame == original.frame
            assert set(layout.cuts) <= set(bounds.tolist()) and list(layout.cuts) == sorted(set(layout.cuts))
    tiny = noise_layouts(original, qa, text.text, "tiny-movement", np.random.default_rng(2), 3, rules)
    old = np.searchsorted(bounds, original.cuts)
    for layout in tiny:
        assert np.all(np.abs(np.searchsorted(bounds, layout.cuts) - old) <= 3)


# --- semantic noise: generated sentences of the official kinds -----------------------------------


def test_generated_noise_of_a_diary_is_near_then_irrelevant_then_both():
    """gen_syn_semantic_noise: sentence 1 keeps the surname with another given name, a close date no
    needle has, a new event, the needles' format; sentence 2 keeps the protagonist and has no time.
    The variations are [1], [2], [1, 2] (syn_1, syn_2, syn_1+2)."""
    qa = diary_qa()
    needle_days = {find_date(n)[0] for n in qa.needles}
    for seed in range(30):
        sets = noise_sets(qa, np.random.default_rng(seed))
        near, irrelevant = sets[0][0], sets[1][0]
        assert sets == [(near,), (irrelevant,), (near, irrelevant)]
        assert "Cole's Diary, " in near and "Ann Cole" not in near  # surname kept, given name changed
        day, style, _, _ = find_date(near)
        assert style == "month_day_year" and day not in needle_days and min(abs((day - d).days) for d in needle_days) <= 30
        assert not any(n.split(": ", 1)[1] in near for n in qa.needles)  # a new event
        assert irrelevant.startswith("Ann Cole ") and not re.search(r"\d", irrelevant)
        assert near not in qa.needles and irrelevant not in qa.needles


def test_generated_noise_of_a_logical_question_is_three_sentences_about_its_subject():
    """gen_open_semantic_noise: three sentences related to the question's subject, none repeated (open_1..3)."""
    qa = SequentialQA("real-logical/zh/x/1", "zh", "real-logical", "如何更换护照？", ("填表", "拍照", "提交"),
                      ("第一步，填表。", "第二步，拍照。", "第三步，提交。"), True, "- 填表", (), "x", subject="更换护照")
    sets = noise_sets(qa, np.random.default_rng(0))
    assert len(sets) == 3 and all(len(s) == 1 and "更换护照" in s[0] for s in sets)
    assert len({s[0] for s in sets}) == 3
    with pytest.raises(BudgetError, match="subject"):
        noise_sets(SequentialQA("a/b", "zh", "real-logical", "q", ("x", "y"), ("x。", "y。"), True, "r", (), "s"),
                   np.random.default_rng(0))


def test_generated_noise_of_a_real_temporal_question_is_near_then_about_its_subject():
    """Real-temporal (official ``tkg``: A-C and B-C events; a departure here): a needle with a
    look-alike name at a near date, then a sentence about the subject that answers nothing. A name
    in Latin script inside Chinese needles (ICEWS) takes the English look-alike rule."""
    needles = ("Julio Cobos于2014/03/02会见了Lawmaker (Argentina)。", "Julio Cobos于2014/04/21访问了South Sudan。")
    qa = SequentialQA("real-temporal/zh/icews14/000001", "zh", "real-temporal", "Julio Cobos在2014年有哪些活动？",
                      needles, needles, False, "r", (), "icews14", subject="Julio Cobos")
    for seed in range(20):
        sets = noise_sets(qa, np.random.default_rng(seed))
        near, other = sets[0][0], sets[1][0]
        assert sets[2] == (near, other)
        assert re.fullmatch(r"[A-Z][a-z]+ Cobos于2014/\d\d/\d\d(会见了Lawmaker \(Argentina\)|访问了South Sudan)。", near)
        assert "Julio Cobos" not in near and find_date(near)[0] not in {date(2014, 3, 2), date(2014, 4, 21)}
        assert "Julio Cobos" in other and not re.search(r"\d", other)


def test_a_real_temporal_subject_that_is_no_person_keeps_its_name_in_the_near_sentence():
    """Issue 38: only persons are renamed. For a sector actor (``Military (Thailand)``) the near sentence is one of
    the question's stored near misses, never a made-up "Dana (Thailand)"; without one, no near sentence can be made."""
    needles = ("On May 20, 2014, Military (Thailand) made demands of Media (Thailand).",
               "Military (Thailand) made an appeal to Media (Thailand) on May 21, 2014.")
    misses = ("On May 24th, 2014, Military (Thailand) consulted with Media (Thailand).",
              "Military (Thailand) used unconventional violence against Interim Government (Thailand) on May 22, 2014.")
    qa = SequentialQA("real-temporal/en/icews14/000002", "en", "real-temporal", "q", needles, needles, True, "r",
                      misses, "icews14", subject="Military (Thailand)", subject_is_person=False)
    nears = {noise_sets(qa, np.random.default_rng(seed))[0][0] for seed in range(20)}
    assert nears == set(misses)
    with pytest.raises(BudgetError, match="no person's name"):
        noise_sets(replace(qa, distractors=()), np.random.default_rng(0))


@pytest.mark.parametrize(("name", "person"), [
    ("Barack Obama", True), ("Cristina Fernández de Kirchner", True), ("Abu Bakr al-Baghdadi", True),
    ("Gen Prayut Chan-o-cha", True), ("Elizabeth II", True), ("Military (Thailand)", False),
    ("Citizen (Nigeria)", False), ("Sierra Leone", False), ("Hamas", False), ("Human Rights Watch", False),
    ("Communist Party of India", False), ("Security Council (Russia)", False), ("Associated Press", False),
])
def test_a_kg_name_is_taken_for_a_person_by_its_form(name, person):
    """ICEWS lists no entity types: two to five capitalized words (name particles allowed), no organization word,
    no country (the KG's parenthesized qualifiers)."""
    assert looks_like_person(name, {"Nigeria", "Thailand", "Russia", "Sierra Leone"}) is person


@pytest.mark.parametrize(("name", "lang", "keeps"), [("Ann Cole", "en", " Cole"), ("Veloria", "en", " Veloria"),
                                                     ("胡慧聪", "zh", "胡"), ("科雷洛·达文", "zh", "·达文"),
                                                     ("Julio Cobos", "zh", " Cobos")])
def test_a_look_alike_keeps_the_surname_and_changes_the_given_name(name, lang, keeps):
    """Official syn requirement 1: same surname, different given name."""
    for seed in range(10):
        other = look_alike(name, lang, np.random.default_rng(seed))
        assert other != name
        assert other.endswith(keeps) if keeps[0] in " ·" else other.startswith(keeps)


def test_noise_sentences_go_into_distinct_segments_never_at_a_needle():
    """insert_needles_to_text_new: ``random.sample(range(k + 1), m)`` segments, a random period in each."""
    positions = np.array([10, 20, 30])
    seen: Counter = Counter()
    for seed in range(800):
        cuts = official_noise_cuts(positions, 40, 2, np.random.default_rng(seed))
        segments = [int(np.searchsorted(positions, c)) for c in cuts]
        assert len(set(segments)) == 2 and not set(cuts) & set(positions.tolist())
        seen.update(segments)
    assert set(seen) == {0, 1, 2, 3} and min(seen.values()) > 300  # 400 expected each


def test_generated_semantic_layouts_on_a_crafted_sample(cl100k):
    """The three semantic-noise layouts of a diary sample: near, irrelevant, both; needles untouched."""
    qa, text = diary_qa(), crafted_text(cl100k)
    bounds = sentence_boundaries(text.text)
    original = Layout(len(text.text), tuple(int(bounds[i]) for i in (50, 150, 250)), (0, 1, 2))
    layouts = noise_layouts(original, qa, text.text, "semantic-noise", np.random.default_rng(4), 3,
                            NoiseRules(semantic="generated"))
    assert [len(x.noise) for x in layouts] == [1, 1, 2]
    assert all(x.cuts == original.cuts and x.order == original.order for x in layouts)
    assert layouts[2].noise[0][1] != layouts[2].noise[1][1]


# --- uniqueness --------------------------------------------------------------------------------


def test_pairing_skips_texts_that_state_a_needle_or_are_made_of_its_entities_articles(cl100k):
    """Issue 24: a QA never gets a text holding one of its needles, or an article about its entities."""
    qa = diary_qa()
    plain = crafted_text(cl100k, text_id="world/1")
    stating = LongText("world/2", "en", "world", plain.text + " " + qa.needles[1], plain.n_tokens, "4k-7k", "whole",
                       ("world/2",))
    about = LongText("world/3..world/5", "en", "world", plain.text, plain.n_tokens, "4k-7k", "joined",
                     ("world/3", "world/4", "world/5"))
    avoiding = replace(qa, articles=("world/4",))
    assert fits_text(qa, plain) and not fits_text(qa, stating) and fits_text(qa, about)
    assert not fits_text(avoiding, about) and fits_text(avoiding, plain)
    pairings, report = pair_texts([avoiding], [stating, about, plain], seed=0, size=1)
    assert [p.text_id for p in pairings] == ["world/1"] and report.articles_kept == 0
    # Every text of the bucket holds an article about its entities: one that states no needle.
    pairings, report = pair_texts([avoiding], [stating, about], seed=0, size=1)
    assert [p.text_id for p in pairings] == ["world/3..world/5"] and report.articles_kept == 1
    # Every text states a needle: the QA stays unpaired.
    pairings, report = pair_texts([avoiding], [stating], seed=0, size=1)
    assert pairings == [] and report.no_text == 1


def test_a_row_whose_needle_stands_twice_fails_the_check_naming_the_row():
    """Every row is checked at build time: each needle exactly once, no answer sentence elsewhere."""
    qa = diary_qa()
    needles = [{"text": n, "answer_index": i} for i, n in enumerate(qa.needles)]
    good = {"id": "q@t", "input": "Document: a.\n" + "\n".join(qa.needles) + "\nQ", "needles": needles}
    check_stated_once(good, qa)
    with pytest.raises(SpecError, match=r"row q@t: needle 1 .* occurs 2 times"):
        check_stated_once({**good, "input": good["input"] + qa.needles[1]}, qa)
    with pytest.raises(SpecError, match="row q@t: answer"):
        check_stated_once({**good, "input": good["input"] + qa.answers[0]}, qa)
