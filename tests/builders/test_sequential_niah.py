"""Sequential-NIAH release: a small build on the real slices, read back from disk and checked.

One release is built per module (ICEWS14 real-temporal needles, world synthetic-temporal and
real-logical needles, Paul Graham essays and Chinese prose as long texts) and every property is
checked on the parquet files the builder wrote, as a user of the release would read them: the
needles found by search in ``input``, lengths counted by the build's tokenizer, prompts spliced
back together from the ``texts`` config, sentence positions counted with the noise module's own
sentence ends, dates read by this file's own parser. The QAs the rows were built from are drawn
again with the builder's reader, to check that each row carries its QA's needles and answers.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import replace
from datetime import date
from pathlib import Path

import datasets
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from builders.options import reproducing_command
from builders.sequential_niah import SequentialNiahBuild, build, demo_spec, read_questions
from builders.sources.names import WORLD
from builders.validate import validate_release
from generators.sequential_niah.assemble import official_frame
from generators.sequential_niah.logical import LogicalSpec
from generators.sequential_niah.world_qa import world_logical_qas
from generators.world.spec import WorldSpec
from generators.world.tables import corpus_rows, generate_world
from needlework.errors import InputError, NeedleworkError, SpecError
from generators.sequential_niah.assemble import layout_of_row, rebuild_row, sentence_boundaries
from generators.sequential_niah.judge import GROUPS
from generators.sequential_niah.noise import NOISE_TYPES, VARIATIONS, far_distance
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import (
    FULL_SPLIT_SIZES, LENGTH_BUCKETS, OFFICIAL_PREFIXES, OFFICIAL_SUFFIXES, PIPELINES, PROMPT_FRAMES, bucket_named,
)
from generators.sequential_niah.texts import LongText
from needlework.lengths import parse_tokens
from needlework.tokenizers import load_tokenizer
from tests.support.build_options import build_error, build_spec

BUCKETS = {b.name: b for b in LENGTH_BUCKETS}
SPLITS = tuple(FULL_SPLIT_SIZES)
NOISE_CONFIGS = tuple(f"noise-{t}" for t in NOISE_TYPES)
CONFIG_SPLITS = {"default": SPLITS, **{c: ("test",) for c in NOISE_CONFIGS}, "texts": ("test",),
                 "judge-train": ("train",), "judge-test": ("test",)}
TEMPORAL = ("real-temporal", "synthetic-temporal")
NEEDLE_LINE = "\n"


# --- the build ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec(shared_file) -> SequentialNiahBuild:
    folders = {name: shared_file(f"{name}/{probe}").parent for name, probe in (
        ("tkg_icews14", "train.txt"), ("paul_graham_essays", "addiction.txt"), ("zh_prose", "thucnews_cnews.test.txt"))}
    return SequentialNiahBuild(size=60, buckets=("8k-16k", "16k-32k"), tkg=str(folders["tkg_icews14"]),
                               texts_en=str(folders["paul_graham_essays"]), texts_zh=str(folders["zh_prose"]),
                               noise_samples=6, judge_train=60, judge_test=24, world_docs=200)


@pytest.fixture(scope="module")
def built(spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "sequential-niah"
    return build(spec, out, progress=False)


@pytest.fixture(scope="module")
def release(built, tmp_path_factory) -> dict[str, dict[str, list[dict]]]:
    """config -> split -> rows, loaded with ``datasets`` from the release folder."""
    cache = tmp_path_factory.mktemp("hf-cache")
    out: dict[str, dict[str, list[dict]]] = {}
    for config, splits in CONFIG_SPLITS.items():
        loaded = datasets.load_dataset(str(built.out), config, cache_dir=str(cache))
        assert set(loaded) == set(splits), config
        out[config] = {split: loaded[split].to_list() for split in splits}
    return out


@pytest.fixture(scope="module")
def tokens(spec):
    return load_tokenizer(spec.tokenizer)


@pytest.fixture(scope="module")
def qas(spec) -> dict[str, SequentialQA]:
    """The QA source of the build, drawn again (the builder's reader is deterministic)."""
    return {q.qid: q for q in read_questions(spec, {})}


@pytest.fixture(scope="module")
def originals(release) -> dict[str, dict]:
    rows = {}
    for split, split_rows in release["default"].items():
        for row in split_rows:
            assert row["id"] not in rows, f"{row['id']} is in two splits"
            rows[row["id"]] = {**row, "split": split}
    return rows


@pytest.fixture(scope="module")
def texts(release) -> dict[str, LongText]:
    out = {}
    for r in release["texts"]["test"]:
        assert r["text_id"] not in out
        out[r["text_id"]] = LongText(r["text_id"], r["lang"], r["source"], r["text"], r["n_tokens"],
                                     r["length_bucket"], r["origin"], tuple(r["parts"]))
    return out


def noise_rows(release) -> list[dict]:
    return [row for config in NOISE_CONFIGS for row in release[config]["test"]]


# --- the test's own readings ---------------------------------------------------------------------

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
ABBREVIATIONS = {"Jan.": 1, "Feb.": 2, "Mar.": 3, "Apr.": 4, "Jun.": 6, "Jul.": 7, "Aug.": 8, "Sept.": 9,
                 "Sep.": 9, "Oct.": 10, "Nov.": 11, "Dec.": 12}
MONTH_OF = {**{m: i for i, m in enumerate(MONTHS, start=1)}, **ABBREVIATIONS}
_MONTH = "|".join(re.escape(m) for m in sorted(MONTH_OF, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
DATE_PATTERNS = (  # (pattern, group order of year, month, day)
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), (1, 2, 3)),
    (re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日"), (1, 2, 3)),
    (re.compile(rf"({_MONTH})\s*-?\s*{_DAY}\s*[,-]\s*(\d{{4}})"), (3, 1, 2)),
    (re.compile(rf"(?<!\d){_DAY}\s+(?:of\s+)?({_MONTH}),?\s+(\d{{4}})"), (3, 2, 1)),
    (re.compile(rf"({_MONTH})\s+(\d{{4}}),\s+on\s+the\s+{_DAY}"), (2, 1, 3)),
)


def dates_in(text: str) -> set[date]:
    """Every full date written in ``text``, in any of the formats the needles and answers use."""
    found = set()
    for pattern, (y, m, d) in DATE_PATTERNS:
        for match in pattern.finditer(text):
            month = match.group(m)
            found.add(date(int(match.group(y)), MONTH_OF[month] if month in MONTH_OF else int(month), int(match.group(d))))
    return found


def the_date(text: str) -> date:
    found = dates_in(text)
    assert len(found) == 1, f"expected one date in {text!r}, found {sorted(found)}"
    return found.pop()


def text_order(row: dict) -> list[int]:
    """Answer index of each needle, in text order."""
    return [n["answer_index"] for n in row["needles"]]


def positions(row: dict, raw: str) -> dict[int, int]:
    """Answer index -> sentence position of its needle (index of its cut among the raw text's sentence ends)."""
    bounds = sentence_boundaries(raw)
    at = np.searchsorted(bounds, row["cuts"])
    assert np.all(at < len(bounds)) and np.array_equal(bounds[at], row["cuts"]), "a cut is not a sentence end"
    return {n["answer_index"]: int(p) for n, p in zip(row["needles"], at)}


def sentence_count(raw: str, text_end: int) -> int:
    """Sentence ends of the text used (the positions a needle may take)."""
    return int(np.searchsorted(sentence_boundaries(raw), text_end, side="left"))


def check_needles(row: dict, qa: SequentialQA, tokens) -> None:
    """Each needle once in ``input``, at its offset, in text order; the needles are the QA's, one per answer."""
    prompt, needles = row["input"], row["needles"]
    assert row["qid"] == qa.qid and (row["lang"], row["pipeline"], row["source"]) == (qa.lang, qa.pipeline, qa.source)
    assert row["answers"] == list(qa.answers) and row["question"] == tokens.normalize(qa.question)
    assert row["ordered"] == qa.ordered and row["reference"] == qa.reference
    assert len(needles) == len(row["answers"])
    assert sorted(n["answer_index"] for n in needles) == list(range(len(row["answers"])))
    for i, n in enumerate(needles):
        assert prompt.count(n["text"]) == 1, f"{row['id']}: needle {i} occurs {prompt.count(n['text'])} times"
        assert prompt.find(n["text"]) == n["char_offset"]
        assert n["text"] == tokens.normalize(qa.needles[n["answer_index"]]) and n["segment"] == i
    offsets = [n["char_offset"] for n in needles]
    assert offsets == sorted(set(offsets))
    assert {n["text"] for n in needles} == {tokens.normalize(x) for x in qa.needles}


def check_splice(row: dict, raw: str) -> None:
    """``input`` is the frame, the raw text cut at ``cuts`` with a needle (or distractor) on its own line
    at each cut, the raw text up to ``text_end``, then the question: read from the row without the builder."""
    prompt = row["input"]
    before, between = PROMPT_FRAMES[row["lang"]]
    assert prompt.startswith(before) and prompt.endswith(between + row["question"])
    assert row["text_end"] == len(raw) or row["text_end"] in set(sentence_boundaries(raw).tolist())
    inserted = sorted([(n["char_offset"], n["text"], c) for n, c in zip(row["needles"], row["cuts"])]
                      + [(d["char_offset"], d["text"], d["cut"]) for d in row["distractors"]])
    at, raw_at = len(before), 0
    for char, sentence, cut in inserted:
        assert raw_at <= cut < row["text_end"]
        segment = raw[raw_at:cut]  # empty only between needles sharing a cut, which follow each other
        line_break = NEEDLE_LINE if segment and not segment.endswith(NEEDLE_LINE) else ""
        assert prompt[at:char] == segment + line_break, (row["id"], cut)
        assert prompt[char : char + len(sentence) + 1] == sentence + NEEDLE_LINE
        at, raw_at = char + len(sentence) + 1, cut
    assert prompt[at : len(prompt) - len(between + row["question"])] == raw[raw_at : row["text_end"]]


# --- tests -------------------------------------------------------------------------------------


def test_the_release_has_every_config_and_split_the_report_and_manifest_name(built, release, spec):
    manifest = json.loads((built.out / "manifest.json").read_text(encoding="utf-8"))
    assert built.skipped == {} and manifest["skipped"] == {}
    counts = {f"{c}/{s}": len(rows) for c, splits in release.items() for s, rows in splits.items() if rows}
    assert counts == built.rows
    assert {f"{c}/{s}": v["rows"] for c, conf in manifest["configs"].items() for s, v in conf["splits"].items()} == counts
    assert sum(len(release["default"][s]) for s in SPLITS) == spec.size == manifest["pairing"]["paired"]
    assert len(release["judge-train"]["train"]) == spec.judge_train and len(release["judge-test"]["test"]) == spec.judge_test
    for split in SPLITS:
        table = pq.read_table(sorted((built.out / "default").glob(f"{split}-*.parquet")))
        assert table.to_pylist() == release["default"][split]


def test_every_needle_occurs_once_at_its_offset_and_is_its_qas(originals, qas, tokens):
    assert {r["lang"] for r in originals.values()} == {"en", "zh"}
    assert {r["pipeline"] for r in originals.values()} == set(PIPELINES)
    assert {r["source"] for r in originals.values() if r["pipeline"] == "real-temporal"} == {"tkg_icews14"}
    for row in originals.values():
        check_needles(row, qas[row["qid"]], tokens)
        assert row["distractors"] == [] and len(set(row["cuts"])) == len(row["cuts"]) == len(row["needles"])
        assert row["variant"] == "original" and row["id"] == row["original_id"] == f"{row['qid']}@{row['text_id']}"


def test_needles_are_shuffled(originals):
    orders = [tuple(text_order(r)) for r in originals.values()]
    shuffled = [o for o in orders if list(o) != sorted(o)]
    assert len(shuffled) > len(orders) / 2  # an identity order has chance 1/k! <= 1/6 for k >= 3 needles
    assert len(set(orders)) > 1


def test_answers_are_in_true_order_and_each_needle_states_its_answer(originals):
    temporal = [r for r in originals.values() if r["pipeline"] in TEMPORAL]
    assert len(temporal) > len(originals) / 2
    for row in temporal:
        answer_dates = [the_date(a) for a in row["answers"]]
        assert answer_dates == sorted(answer_dates), f"{row['id']}: answers not chronological"
        for n in row["needles"]:
            assert the_date(n["text"]) == answer_dates[n["answer_index"]], (row["id"], n["text"])
    for row in originals.values():
        if row["pipeline"] == "real-logical":
            for n in row["needles"]:
                assert row["answers"][n["answer_index"]] in n["text"], (row["id"], n["text"])


def test_n_tokens_is_the_tokenizers_count_inside_the_bucket(originals, release, tokens):
    rows = list(originals.values()) + noise_rows(release)
    counts = tokens.count_batch([r["input"] for r in rows])
    for row, n in zip(rows, counts.tolist()):
        bucket = BUCKETS[row["length_bucket"]]
        assert row["n_tokens"] == n and bucket.low <= n < bucket.high, (row["id"], n, bucket)
    for row in originals.values():
        ids, starts = tokens.encode_with_offsets(row["input"])
        assert len(ids) == row["n_tokens"]
        for item in row["needles"]:
            t, c = item["token_offset"], item["char_offset"]
            assert starts[t] <= c and (t + 1 == len(starts) or starts[t + 1] > c or starts[t] == c)
            assert t == 0 or starts[t - 1] < c


def test_the_texts_config_holds_each_raw_text_once_in_its_bucket(originals, texts, tokens):
    assert set(texts) == {r["text_id"] for r in originals.values()}
    for row in originals.values():
        text = texts[row["text_id"]]
        assert (text.lang, text.length_bucket) == (row["lang"], row["length_bucket"])
    for text in texts.values():
        bucket = BUCKETS[text.length_bucket]
        assert text.n_tokens == tokens.count(text.text) and bucket.low <= text.n_tokens < bucket.high
        assert text.text == tokens.normalize(text.text)


def test_inputs_are_the_raw_texts_spliced_at_the_cuts(originals, release, texts):
    for row in list(originals.values()) + noise_rows(release):
        check_splice(row, texts[row["text_id"]].text)


def test_rows_rebuild_from_the_texts_config_cuts_order_and_text_end(originals, release, texts, qas, tokens):
    for row in originals.values():
        rebuilt = rebuild_row(qas[row["qid"]], texts[row["text_id"]], cuts=row["cuts"], order=text_order(row),
                              text_end=row["text_end"], tokens=tokens)
        assert rebuilt == {k: v for k, v in row.items() if k != "split"}, row["id"]
    for row in noise_rows(release)[::5]:
        layout = layout_of_row(row)
        rebuilt = rebuild_row(qas[row["qid"]], texts[row["text_id"]], cuts=layout.cuts, order=layout.order,
                              text_end=layout.text_end, noise=layout.noise, tokens=tokens, variant=row["variant"],
                              original_id=row["original_id"])
        assert rebuilt == row


def test_splits_are_disjoint_and_stratified(originals, release, spec):
    split_of = {r["id"]: r["split"] for r in originals.values()}
    assert len(split_of) == spec.size
    # A QA goes into one text only (pairing uses each QA once), so no question is in two splits.
    qids = Counter(r["qid"] for r in originals.values())
    assert max(qids.values()) == 1
    qid_splits = {s: {r["qid"] for r in release["default"][s]} for s in SPLITS}
    for a in SPLITS:
        for b in SPLITS:
            if a < b:
                assert not qid_splits[a] & qid_splits[b]
    total_weight = sum(FULL_SPLIT_SIZES.values())
    sizes = Counter(split_of.values())
    assert 0.6 <= sizes["train"] / spec.size <= 0.85 and sizes["dev"] and sizes["test"]
    for split, weight in FULL_SPLIT_SIZES.items():
        assert abs(sizes[split] - spec.size * weight / total_weight) < 1
    strata = defaultdict(Counter)
    for row in originals.values():
        strata[(row["lang"], row["length_bucket"], row["pipeline"])][row["split"]] += 1
    assert len(strata) >= 6
    for stratum, cells in strata.items():
        n = sum(cells.values())
        if n >= 5:
            assert cells["train"] > 0, stratum
        for split, weight in FULL_SPLIT_SIZES.items():  # controlled rounding: within one sample per stratum
            assert abs(cells[split] - n * weight / total_weight) < 1, (stratum, dict(cells))


def test_noise_variants_are_three_per_type_of_chosen_test_rows(originals, release, qas, spec):
    tests = {i for i, r in originals.items() if r["split"] == "test"}
    chosen = {r["original_id"] for r in noise_rows(release)}
    assert chosen <= tests and len(chosen) == min(spec.noise_samples, len(tests))
    for config, noise_type in zip(NOISE_CONFIGS, NOISE_TYPES):
        by_original = defaultdict(list)
        for row in release[config]["test"]:
            by_original[row["original_id"]].append(row)
        for original_id in chosen:
            original = originals[original_id]
            rows = by_original[original_id]
            if noise_type == "semantic-noise" and not qas[original["qid"]].distractors:
                assert rows == []
                continue
            assert sorted(r["variant"] for r in rows) == [f"{noise_type}/{v}" for v in range(1, VARIATIONS + 1)]
            inputs = {original["input"]}
            for row in rows:
                assert row["id"] == f"{original_id}/{row['variant']}"
                for key in ("qid", "text_id", "lang", "pipeline", "length_bucket", "answers", "question", "text_end"):
                    assert row[key] == original[key], (row["id"], key)
                inputs.add(row["input"])
            assert len(inputs) == len(rows) + 1  # each variation differs from the original and the others


def test_noise_rows_keep_every_needle_once_at_its_offset(release, qas, tokens):
    for row in noise_rows(release):
        check_needles(row, qas[row["qid"]], tokens)


def test_tiny_movement_moves_each_needle_at_most_two_sentences_in_order(originals, release, texts):
    rows = release["noise-tiny-movement"]["test"]
    assert rows
    for row in rows:
        original = originals[row["original_id"]]
        raw = texts[row["text_id"]].text
        before, after = positions(original, raw), positions(row, raw)
        moves = [after[a] - before[a] for a in before]
        assert text_order(row) == text_order(original)
        assert all(abs(m) <= 2 for m in moves) and any(moves), (row["id"], moves)
        assert row["distractors"] == []


def test_significant_movement_moves_each_needle_far_in_order(originals, release, texts):
    rows = release["noise-significant-movement"]["test"]
    assert rows
    for row in rows:
        original = originals[row["original_id"]]
        raw = texts[row["text_id"]].text
        n, k = sentence_count(raw, original["text_end"]), len(original["needles"])
        far = far_distance(n, k)
        assert far == max(3, (-(-n // (k + 1)) - 1) // 2)  # half the mean segment (§5.3 as documented), at least 3
        before, after = positions(original, raw), positions(row, raw)
        assert text_order(row) == text_order(original)
        assert all(abs(after[a] - before[a]) >= far for a in before), (row["id"], far, before, after)
        in_text = [after[a] for a in text_order(row)]
        assert in_text == sorted(set(in_text))
        assert row["distractors"] == []


def test_reorder_keeps_the_cuts_and_changes_the_order(originals, release):
    rows = release["noise-reorder"]["test"]
    assert rows
    for row in rows:
        original = originals[row["original_id"]]
        assert row["cuts"] == original["cuts"]
        assert text_order(row) != text_order(original)
        assert sorted(text_order(row)) == sorted(text_order(original))
        assert row["distractors"] == []


def test_semantic_noise_inserts_one_or_two_distractors_that_are_not_answers(originals, release, qas, texts, tokens):
    rows = release["noise-semantic-noise"]["test"]
    assert rows
    counts = Counter()
    for row in rows:
        original = originals[row["original_id"]]
        qa = qas[row["qid"]]
        assert row["cuts"] == original["cuts"]
        assert [(n["text"], n["answer_index"]) for n in row["needles"]] == [
            (n["text"], n["answer_index"]) for n in original["needles"]]
        assert 1 <= len(row["distractors"]) <= min(2, len(qa.distractors))
        counts[len(row["distractors"])] += 1
        bounds = set(sentence_boundaries(texts[row["text_id"]].text).tolist())
        forbidden = set(row["answers"]) | {n["text"] for n in row["needles"]}
        for d in row["distractors"]:
            assert d["text"] in {tokens.normalize(x) for x in qa.distractors}
            assert d["text"] not in forbidden
            assert row["input"].count(d["text"]) == 1 and row["input"].find(d["text"]) == d["char_offset"]
            assert d["cut"] in bounds and d["cut"] not in row["cuts"] and d["cut"] < row["text_end"]
        assert len({d["text"] for d in row["distractors"]}) == len(row["distractors"])
    assert set(counts) <= {1, 2}
    if sum(1 for r in rows if len(qas[r["qid"]].distractors) >= 2) >= 6:
        assert set(counts) == {1, 2}


def test_judge_sets_are_disjoint_and_labelled_by_the_rule(release, qas):
    train, test = release["judge-train"]["train"], release["judge-test"]["test"]
    assert {r["split"] for r in train} == {"train"} and {r["split"] for r in test} == {"test"}
    assert not {r["qid"] for r in train} & {r["qid"] for r in test}
    assert len({r["id"] for r in train + test}) == len(train) + len(test)
    for records in (train, test):
        for r in records:
            qa = qas[r["qid"]]
            assert r["ordered"] == qa.ordered and r["answers"] == list(qa.answers) and r["group"] in GROUPS
            n = len(r["answers"])
            refs = [i for i in r["item_answer_index"] if i >= 0]
            extras = len(r["item_answer_index"]) - len(refs)
            assert len(r["candidate_items"]) == len(r["item_answer_index"]) and len(set(refs)) == len(refs)
            assert r["shuffled"] == (refs != sorted(refs)), r["id"]
            if r["group"] == "gt":
                assert sorted(refs) == list(range(n)) and extras == 0
            elif r["group"] == "missing":
                assert 0 < len(refs) < n and extras == 0
            elif r["group"] == "redundant":
                assert sorted(refs) == list(range(n)) and extras > 0
            else:
                assert len(refs) < n and extras > 0
            correct = r["group"] == "gt" and (not r["shuffled"] or not r["ordered"])
            assert r["label"] == ("correct" if correct else "incorrect"), r["id"]
        assert {r["label"] for r in records} == {"correct", "incorrect"}
    assert any(r["group"] == "gt" and r["shuffled"] and not r["ordered"] for r in train + test)
    assert any(r["group"] == "gt" and r["shuffled"] and r["ordered"] for r in train + test)


def test_building_twice_gives_identical_content(built, spec, tmp_path_factory):
    again = build(spec, tmp_path_factory.mktemp("again") / "sequential-niah", progress=False)
    assert again.rows == built.rows and again.skipped == built.skipped
    first, second = (json.loads((r.out / "manifest.json").read_text(encoding="utf-8")) for r in (built, again))
    hashes = [{(c, s): v["content_sha256"] for c, conf in m["configs"].items() for s, v in conf["splits"].items()}
              for m in (first, second)]
    assert hashes[0] == hashes[1] and set(hashes[0]) == {(c, s) for c, ss in CONFIG_SPLITS.items() for s in ss}
    for split in SPLITS:
        a, b = (pq.read_table(sorted((r.out / "default").glob(f"{split}-*.parquet"))) for r in (built, again))
        assert a.equals(b)


def test_zero_noise_samples_and_judge_candidates_build_no_such_configs(spec, tmp_path):
    """--noise-samples 0 and --judge-train 0 ask for no rows: the configs are left out, not declared empty.
    (A small build: 12 samples, the world's temporal events instead of ICEWS, which take seconds to read.)"""
    report = build(replace(spec, tkg=WORLD, size=12, noise_samples=0, judge_train=0), tmp_path / "sequential-niah",
                   progress=False)
    configs = set(json.loads((report.out / "manifest.json").read_text(encoding="utf-8"))["configs"])
    assert configs == {"default", "texts", "judge-test"}
    assert validate_release(report.out) == []


def _left_clean(out: Path, before: set[Path]) -> None:
    """Nothing written beside ``out``: no release, no partial folder."""
    assert set(out.parent.iterdir()) == before


def test_a_missing_logical_source_raises_and_writes_nothing(spec, tmp_path):
    out = tmp_path / "release"
    before = set(tmp_path.iterdir())
    missing = tmp_path / "absent.jsonl"
    with pytest.raises(InputError, match=re.escape(str(missing)) + ".*not found"):
        build(replace(spec, tkg=WORLD, logical=str(missing)), out, progress=False)  # the world's events: no ICEWS to read
    assert not out.exists()
    _left_clean(out, before)


def test_texts_too_short_for_every_bucket_raise_and_leave_the_previous_release(spec, tmp_path):
    short = tmp_path / "short"
    short.mkdir()
    (short / "a.txt").write_text("A short essay. It has a few sentences. " * 20, encoding="utf-8")
    (short / "b.txt").write_text("Another one. Also short. " * 20, encoding="utf-8")
    out = tmp_path / "release"
    out.mkdir()
    (out / "manifest.json").write_text("{\"previous\": true}", encoding="utf-8")
    before = set(tmp_path.iterdir())
    with pytest.raises(SpecError, match="no en long text of short reaches the buckets 8k-16k, 16k-32k"):
        # zh has texts: en must not be dropped (the world's events: no ICEWS to read before the texts)
        build(replace(spec, tkg=WORLD, texts_en=str(short)), out, progress=False)
    assert [p.name for p in out.iterdir()] == ["manifest.json"]
    assert (out / "manifest.json").read_text(encoding="utf-8") == "{\"previous\": true}"
    _left_clean(out, before)
    assert issubclass(SpecError, NeedleworkError)


def test_bucket_names_are_labels_read_in_any_case():
    """Issue 41: ``--buckets 8K-16K`` is ``8k-16k`` (it was refused); a bucket name is a label whose bounds are in
    units of 1,024 (``8k-16k`` holds prompts of 8ki to 16ki tokens), as the help says."""
    assert build_spec("sequential-niah", "--buckets", "8K-16K,4K-7k").buckets == ("8k-16k", "4k-7k")
    assert build_spec("sequential-niah", "--buckets", "8k-16k").buckets == build_spec("sequential-niah", "--buckets", "8K-16K").buckets
    assert SequentialNiahBuild(buckets=("64K-128K",)).buckets == ("64k-128k",)
    assert build_spec("sequential-niah", "--buckets", "8k-16k,16k-32k,32k-64k,64k-128k") == build_spec("sequential-niah")
    assert (bucket_named("8K-16K").low, bucket_named("8k-16k").high) == (parse_tokens("8ki"), parse_tokens("16ki"))
    assert build_error("sequential-niah", "--buckets", "8K-16Ki").startswith("error: --buckets: length bucket must be one of")


def test_the_demo_has_a_bucket_an_8k_window_takes(demo):
    """Issue 20: a model with an 8K window has test rows it can read, leaving 1,024 tokens to answer."""
    frame = pl.read_parquet(sorted((demo.folder / "sequential-niah" / "default").glob("test*.parquet")))
    short = frame.filter(pl.col("length_bucket") == "4k-7k")
    assert short.height >= 4 and short["n_tokens"].max() < 8_192 - 1_024
    assert set(frame["length_bucket"]) == {"4k-7k", "8k-16k"}


# --- issue 24: needle uniqueness and the paper preset --------------------------------------------


def _rows(folder: Path, config: str) -> list[dict]:
    return pl.read_parquet(sorted((folder / config).glob("*.parquet"))).to_dicts()


@pytest.fixture(scope="module")
def demo_size(demo):
    """The demo's Sequential-NIAH build (world needles and world long texts): the demo release itself, built
    once per test run by the session ``demo`` fixture (read, never changed)."""
    spec = demo_spec(0, "qwen2.5")
    out = demo.folder / "sequential-niah"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["build"]["command"] == reproducing_command("sequential-niah", spec)  # built from this spec
    return spec, out


def test_every_needle_occurs_exactly_once_in_every_row_of_a_demo_size_build(demo_size):
    """Issue 24: with the world as the source of both needles and long texts, a needle's own sentence
    could stand in its haystack too. Every row of every sample config: each needle exactly once."""
    _, out = demo_size
    checked = 0
    for config in ("default", *NOISE_CONFIGS):
        for row in _rows(out, config):
            for n in row["needles"]:
                assert row["input"].count(n["text"]) == 1, (config, row["id"], n["answer_index"])
            checked += 1
    assert checked == 60 + 4 * 4 * VARIATIONS


def test_no_sample_of_a_demo_size_build_uses_an_article_about_its_needles_entities(demo_size):
    """The pairing excludes the articles of the needles' entities from each sample's long text."""
    spec, out = demo_size
    qas = {q.qid: q for q in read_questions(spec, {})}
    parts = {r["text_id"]: set(r["parts"]) for r in _rows(out, "texts")}
    with_articles = overlapping = 0
    for row in _rows(out, "default"):
        articles = set(qas[row["qid"]].articles)
        with_articles += bool(articles)
        overlapping += bool(articles & parts[row["text_id"]])
    assert with_articles == 60  # every world QA names the articles of its entities
    pairing = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["pairing"]
    assert overlapping == pairing["articles_kept"] == 0 and pairing["paired"] == 60


def test_a_chain_question_avoids_the_articles_of_its_subject_city_country_and_continent():
    """The issue's example is a containment chain (``real-logical/zh/world/chain/146``): its needles
    state facts the articles of the subject, the city, the country and the continent state too."""
    world = generate_world(WorldSpec(docs=300, langs=("zh",), questions=0), 0)[0]
    titles = {f"world/{row['doc_id']}": row["title"] for row, _ in corpus_rows(world)}
    chains = [q for q in world_logical_qas(world, "zh", LogicalSpec(), seed=0) if "/chain/" in q.qid]
    assert chains
    for qa in chains:
        assert {titles[a] for a in qa.articles} == {qa.subject, *qa.answers}


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    """A small build under ``--preset paper`` (world sources, the demo's buckets)."""
    spec = SequentialNiahBuild(size=40, buckets=("4k-7k", "8k-16k"), noise_samples=6, judge_train=20, judge_test=10,
                               world_docs=400, preset="paper")
    out = tmp_path_factory.mktemp("paper") / "sequential-niah"
    build(spec, out, progress=False)
    return spec, out


def test_the_paper_preset_sets_the_official_values_and_records_them(paper):
    """Official: cl100k (GPT-4) lengths, the 5 x 5 frames, the official noise rules; the manifest's
    ``preset`` records every value, the official files and the departures."""
    spec, out = paper
    assert (spec.tokenizer, spec.frames, spec.tiny_rule, spec.significant_rule, spec.semantic_rule) == (
        "cl100k_base", "official", "official", "official", "generated")
    record = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["preset"]
    assert record["name"] == "paper" and record["values"] == {
        "tokenizer": "cl100k_base", "frames": "official", "tiny_rule": "official", "significant_rule": "official",
        "semantic_rule": "generated"}
    assert record["official_files"] == ["Sequential_NIAH_building_PPL.py", "Sequential_NIAH_building_PPL_with_noise.py",
                                        "Sequential_NIAH_building_PPL_with_sem_noise.py"] and record["departures"]
    kept = SequentialNiahBuild(preset="paper", tokenizer="o200k_base", semantic_rule="distractors")
    assert (kept.tokenizer, kept.frames) == ("o200k_base", "official")  # an option given keeps its value
    assert kept.semantic_rule == "generated"  # a value equal to the default counts as left at it (as NeedleBench's preset)
    assert SequentialNiahBuild().preset_record() == {}
    with pytest.raises(SpecError, match="preset"):
        SequentialNiahBuild(preset="papers")
    with pytest.raises(SpecError, match="tiny_rule"):
        SequentialNiahBuild(tiny_rule="three")


def test_paper_rows_are_cl100k_measured_in_official_frames(paper):
    """Every prompt's cl100k count is its ``n_tokens``, inside its bucket; each prompt opens with one
    of the official prefixes and ends with ``"\\n\\n" + heading + question`` (build_data)."""
    spec, out = paper
    cl100k = load_tokenizer("cl100k_base")
    frames = Counter()
    for config in ("default", *NOISE_CONFIGS):
        for row in _rows(out, config):
            prefix, between = official_frame(spec.seed, row["original_id"], row["lang"])  # variants keep it
            assert row["input"].startswith(prefix) and row["input"].endswith(between + row["question"])
            assert row["n_tokens"] == len(cl100k.encode(row["input"]))
            assert BUCKETS[row["length_bucket"]].low <= row["n_tokens"] < BUCKETS[row["length_bucket"]].high
            heading = row["input"][: -len(row["question"])].rsplit("\n\n", 1)[1]
            assert heading in OFFICIAL_SUFFIXES[row["lang"]], row["id"]
            assert any(row["input"].startswith(p) for p in OFFICIAL_PREFIXES[row["lang"]])
            for n in row["needles"]:
                assert row["input"].count(n["text"]) == 1
            frames[(row["lang"], heading)] += config == "default"
    assert len(frames) >= 6  # frames vary from sample to sample


def test_paper_noise_variants_follow_the_official_rules(paper):
    """Tiny movement: each needle within 3 sentence ends (check_moving_idx_box); significant movement:
    order kept (make_large_moving); semantic noise: generated sentences, 1, 1 and 2 for temporal
    samples, 1 each for logical ones (gen_syn_semantic_noise, gen_open_semantic_noise)."""
    _, out = paper
    originals = {r["id"]: r for r in _rows(out, "default")}
    raw = {r["text_id"]: r["text"] for r in _rows(out, "texts")}
    for row in _rows(out, "noise-tiny-movement"):
        original = originals[row["original_id"]]
        old, new = positions(original, raw[row["text_id"]]), positions(row, raw[row["text_id"]])
        assert all(abs(new[a] - old[a]) <= 3 for a in old) and text_order(row) == text_order(original)
    for row in _rows(out, "noise-significant-movement"):
        original = originals[row["original_id"]]
        assert text_order(row) == text_order(original)
        assert row["cuts"] == sorted(set(row["cuts"]))
    by_original: dict[str, list[dict]] = defaultdict(list)
    for row in _rows(out, "noise-semantic-noise"):
        by_original[row["original_id"]].append(row)
    assert by_original
    for original_id, rows in by_original.items():
        rows.sort(key=lambda r: r["variant"])
        sizes = [len(r["distractors"]) for r in rows]
        texts = [[d["text"] for d in r["distractors"]] for r in rows]
        if originals[original_id]["pipeline"] == "real-logical":
            assert sizes == [1, 1, 1] and len({t[0] for t in texts}) == 3
        else:
            assert sizes == [1, 1, 2] and texts[2] == sorted(texts[0] + texts[1], key=texts[2].index)
            assert set(texts[2]) == set(texts[0] + texts[1])
        for r in rows:
            assert not {d["text"] for d in r["distractors"]} & set(r["answers"])
