"""Sequential-NIAH samples: long texts and buckets, Algorithm 1, noise variants and splits.

Samples are built on the real slices (the authors' QA and long-text records) and on the filler
folders, and every property is checked against the prompt text with the test's own reading of
it: needles found by search, offsets checked against an independent encode, positions counted in
the raw text's sentence ends.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import generators.pipeline as pipeline
from builders.sources.long_texts import read_long_texts
from needlework.errors import BudgetError, InputError, SpecError
from generators.sequential_niah.assemble import generate_samples, layout_of_row, rebuild_row
from generators.sequential_niah.noise import NOISE_TYPES, generate_noise
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import (
    FULL_SPLIT_SIZES, LENGTH_BUCKETS, PIPELINES, PROMPT_FRAMES, QA_SHARES, TEXT_SHARES, LengthBucket,
)
from generators.sequential_niah.splits import (
    assign_splits, pair_texts, paired, scaled_counts, split_sizes, stratum_of,
)
from generators.sequential_niah.texts import LongText, SourceText, bucket_texts
from generators.text import sentence_ends

SLICE = "sequential_niah/source"
BUCKETS = {b.name: b for b in LENGTH_BUCKETS}
PIPELINE_OF = {"tkg": "real-temporal", "syn": "synthetic-temporal"}


# --- the test's own reading of the slice's QA records ------------------------------------------


def parse_qa(path: Path) -> SequentialQA:
    """A SequentialQA from an authors' QA record: answer items are the reference's ``- `` lines.

    The records carry no near-miss needles; two are made here by shifting a needle's years (a
    needle of the same subject outside the period), for the semantic-noise variant.
    """
    record = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    items = tuple(line[2:].strip() for line in record["answer"].split("\n") if line.startswith("- "))
    needles = tuple(record["needles"])
    assert len(items) == len(needles)
    distractors = tuple(re.sub(r"20(\d\d)", lambda m: f"19{m.group(1)}", needles[i]) for i in (0, 1))
    return SequentialQA(record["md5"], record["meta"]["lang"], PIPELINE_OF[record["meta"]["ppl"]], record["question"],
                        items, needles, True, record["answer"], distractors, record["meta"]["source"])


@pytest.fixture(scope="module")
def qas(shared_data) -> dict[str, SequentialQA]:
    found = {}
    for lang in ("en", "zh"):
        path = shared_data / SLICE / "QA" / f"QA_{lang}.jsonl"
        if not path.is_file():
            pytest.skip(f"missing {path}")
        found[lang] = parse_qa(path)
    return found


@pytest.fixture(scope="module")
def slice_texts(shared_data, qwen) -> list[LongText]:
    read = read_long_texts(str(shared_data / SLICE / "LongText"))
    texts, report = bucket_texts(read.documents, qwen)
    assert report.whole == 2
    return texts


@pytest.fixture(scope="module")
def filler_texts(shared_data, qwen) -> dict[str, list[LongText]]:
    out = {}
    for folder, lang in (("paul_graham_essays", "en"), ("zh_prose", "zh")):
        read = read_long_texts(str(shared_data / folder), lang)
        out[lang], _ = bucket_texts(read.documents, qwen)
    return out


@pytest.fixture(scope="module")
def texts(slice_texts, filler_texts) -> list[LongText]:
    """The two slice texts, two joined filler texts per language and the cut (64k-128k) novel."""
    chosen = list(slice_texts) + filler_texts["en"][:2] + filler_texts["zh"][:2]
    chosen += [t for t in filler_texts["zh"] if t.origin == "cut"]
    return chosen


@pytest.fixture(scope="module")
def originals(qas, texts, qwen) -> list[dict]:
    return list(generate_samples([(qas[t.lang], t) for t in texts], seed=7, tokens=qwen))


@pytest.fixture(scope="module")
def noisy(qas, texts, originals, qwen) -> list[dict]:
    by_id = {t.text_id: t for t in texts}
    return list(generate_noise([(r, qas[r["lang"]], by_id[r["text_id"]]) for r in originals], seed=7, tokens=qwen))


# --- checks shared by originals and variants ---------------------------------------------------


def check_row(row: dict, qa: SequentialQA, text: LongText, tokens) -> None:
    """Every property a row of any variant must have, read from its input."""
    prompt = row["input"]
    before, between = PROMPT_FRAMES[row["lang"]]
    assert prompt.startswith(before) and prompt.endswith(between + qa.question)
    assert row["answers"] == list(qa.answers) and row["question"] == qa.question
    assert (row["qid"], row["lang"], row["pipeline"], row["text_id"]) == (qa.qid, qa.lang, qa.pipeline, text.text_id)
    # Every needle exactly once, at its offset, in the recorded text order.
    assert sorted(n["answer_index"] for n in row["needles"]) == list(range(len(qa.needles)))
    for n in row["needles"]:
        assert n["text"] == qa.needles[n["answer_index"]]
        assert prompt.count(n["text"]) == 1
        assert prompt.find(n["text"]) == n["char_offset"]
    offsets = [n["char_offset"] for n in row["needles"]]
    assert offsets == sorted(offsets)
    assert [n["segment"] for n in row["needles"]] == list(range(len(qa.needles)))
    # Token offsets and count from an independent encode.
    ids, starts = tokens.encode_with_offsets(prompt)
    assert row["n_tokens"] == len(ids) == len(tokens.encode(prompt))
    bucket = BUCKETS[row["length_bucket"]]
    assert bucket.low <= row["n_tokens"] < bucket.high
    for item in row["needles"] + row["distractors"]:
        t, c = item["token_offset"], item["char_offset"]
        assert starts[t] <= c and (t + 1 == len(starts) or starts[t + 1] > c or starts[t] == c)
        assert t == 0 or starts[t - 1] < c
    # The text between insertions is the raw text, cut at the recorded cuts.
    raw = text.text
    assert row["cuts"] == sorted(row["cuts"]) and len(row["cuts"]) == len(qa.needles)
    ends = set(sentence_ends(raw, line_breaks=False))
    assert row["text_end"] == len(raw) or row["text_end"] in ends
    inserted = sorted([(n["char_offset"], n["text"], c) for n, c in zip(row["needles"], row["cuts"])]
                      + [(d["char_offset"], d["text"], d["cut"]) for d in row["distractors"]])
    at, raw_at = len(before), 0
    for char, sentence, cut in inserted:
        assert cut in ends and cut < row["text_end"]
        segment = prompt[at:char]
        assert segment in (raw[raw_at:cut], raw[raw_at:cut] + "\n")
        at, raw_at = char + len(sentence) + 1, cut
        assert prompt[at - 1] == "\n"
    assert prompt[at : len(prompt) - len(between + qa.question)] == raw[raw_at : row["text_end"]]


def positions(row: dict, raw: str) -> dict[int, int]:
    """Answer index -> sentence position of its needle (index of its cut among the raw text's sentence ends)."""
    ends = sentence_ends(raw, line_breaks=False)
    return {n["answer_index"]: ends.index(c) for n, c in zip(row["needles"], row["cuts"])}


def text_order(row: dict) -> list[int]:
    return [n["answer_index"] for n in row["needles"]]


# --- long texts --------------------------------------------------------------------------------


def test_the_authors_layout_reads_ids_languages_and_sources(shared_data):
    read = read_long_texts(str(shared_data / SLICE / "LongText"))
    assert [(d.lang, d.text_id) for d in read.documents] == [
        ("en", "9abedafbcf3315b8fe2f946c1afc0c84"), ("zh", "3e5b5f54b3e2fefc893b19dd015ac994")]
    assert read.documents[0].source.startswith("RedPajamaCommonCrawl")
    record = json.loads((shared_data / SLICE / "LongText" / "doc_zh.jsonl").read_text(encoding="utf-8"))
    only_zh = read_long_texts(str(shared_data / SLICE / "LongText" / "doc_zh.jsonl"))
    assert only_zh.documents == (SourceText(record["md5"], "zh", record["source"], record["text"]),)
    assert [d.lang for d in read_long_texts(str(shared_data / SLICE / "LongText"), "zh").documents] == ["zh"]


def test_tables_take_a_text_column_an_id_field_and_a_lang_field(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"body": ["One. Two.", "三。四。"], "key": ["a", "b"], "lang": ["en", "zh"]}),
                   tmp_path / "docs.parquet")
    read = read_long_texts(str(tmp_path / "docs.parquet"), field="body", id_field="key")
    assert read.documents == (SourceText("a", "en", "docs", "One. Two."), SourceText("b", "zh", "docs", "三。四。"))
    (tmp_path / "plain.jsonl").write_text('{"text": "A."}\n{"text": "B."}\n', encoding="utf-8")
    assert [d.text_id for d in read_long_texts(str(tmp_path / "plain.jsonl"), "en").documents] == [
        "plain.jsonl/000000", "plain.jsonl/000001"]
    with pytest.raises(InputError, match="lang"):
        read_long_texts(str(tmp_path / "plain.jsonl"))
    with pytest.raises(InputError, match="'body'.*missing"):
        read_long_texts(str(tmp_path / "plain.jsonl"), "en", field="body")
    (tmp_path / "dupes.jsonl").write_text('{"text": "A.", "id": 1}\n{"text": "B.", "id": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="duplicate text id '1'"):
        read_long_texts(str(tmp_path / "dupes.jsonl"), "en")
    with pytest.raises(InputError, match="no such file"):
        read_long_texts(str(tmp_path / "absent"))


def test_a_language_outside_en_zh_names_the_source_record_and_field(tmp_path):
    """Sequential-NIAH long texts are Chinese or English (paper Section 3.2, LongData-Corpus); another language is refused by name."""
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "A.", "lang": "en"}\n{"text": "B.", "lang": "fr"}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_long_texts(str(path))
    assert (caught.value.record, caught.value.field) == (2, "lang")
    assert str(caught.value) == f"{path}, record 2, field 'lang': language must be one of 'en', 'zh'; got 'fr'"
    with pytest.raises(InputError) as caught:
        read_long_texts(str(path), "de")
    assert str(caught.value) == f"{path}, field 'lang': language must be one of 'en', 'zh'; got 'de'"


def test_text_folders_are_read_like_filler_with_ids_per_file(shared_data):
    read = read_long_texts(str(shared_data / "paul_graham_essays"), "en")
    assert len(read.documents) == 24 and {d.source for d in read.documents} == {"paul_graham_essays"}
    assert read.documents[0].text_id == "paul_graham_essays/addiction.txt"
    assert read.documents[0].text.startswith("July 2010What hard liquor")
    with pytest.raises(InputError, match="no language"):
        read_long_texts(str(shared_data / "paul_graham_essays"))
    zh = read_long_texts(str(shared_data / "zh_prose"), "zh")
    assert len(zh.documents) == 501 and zh.documents[0].text_id == "zh_prose/thucnews_cnews.test.txt#0"


def test_the_world_source_gives_articles_that_join_into_long_texts(qwen):
    read = read_long_texts("world", "zh", world_docs=60)
    assert len(read.documents) == 60 and {d.lang for d in read.documents} == {"zh"}
    assert len({d.text_id for d in read.documents}) == 60 and all(d.source == "world" for d in read.documents)
    texts, report = bucket_texts(read.documents, qwen)
    assert texts and {t.origin for t in texts} == {"joined"} and report.joined_parts + report.dropped_short == 60


SMALL = (LengthBucket("a", 40, 80), LengthBucket("b", 80, 160))


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i} is here." for i in range(n))  # each a sentence: the tags are capitalized


def test_texts_are_kept_cut_or_joined_to_reach_a_bucket(qwen):
    docs = [SourceText("long", "en", "s", words(120, "X")), SourceText("mid", "en", "s", words(20, "Y"))]
    docs += [SourceText(f"s{i}", "en", "s", words(4, f"Z{i}_")) for i in range(9)]
    docs += [SourceText("other", "en", "t", words(4, "W"))]
    texts, report = bucket_texts(docs, qwen, buckets=SMALL, join_to="a")
    assert report.whole + report.cut + report.joined_parts + report.dropped_short + report.dropped_uncuttable == len(docs)
    by_origin = defaultdict(list)
    for t in texts:
        by_origin[t.origin].append(t)
        assert t.n_tokens == len(qwen.encode(t.text))
        bucket = {b.name: b for b in SMALL}[t.length_bucket]
        assert bucket.low <= t.n_tokens < bucket.high
    (cut,) = by_origin["cut"]
    assert docs[0].text.startswith(cut.text) and len(cut.text) < len(docs[0].text)
    assert len(cut.text) in sentence_ends(docs[0].text, line_breaks=False) and cut.length_bucket == "b"
    assert [t.text_id for t in by_origin["whole"]] == ["mid"]
    parts = {d.text_id: d for d in docs}
    for joined in by_origin["joined"]:
        assert joined.text == "\n\n".join(parts[p].text for p in joined.parts) and len(joined.parts) > 1
        assert {parts[p].source for p in joined.parts} == {"s"}
        assert joined.text_id == f"{joined.parts[0]}..{joined.parts[-1]}"
    assert "other" in {p for p in parts if not any(p in t.parts for t in texts)}  # alone in its source: dropped
    dropped, report = bucket_texts(docs, qwen, buckets=SMALL, join=False)
    assert {t.origin for t in dropped} == {"whole", "cut"} and report.dropped_short == 10
    with pytest.raises(SpecError, match="^length bucket must be one of 'a', 'b'; got 'zzz'$"):
        bucket_texts(docs, qwen, buckets=SMALL, join_to="zzz")


def test_joins_aim_at_the_named_buckets_in_turn(qwen):
    """A corpus of short documents fills every bucket a build names, not only the lowest."""
    docs = [SourceText(f"s{i:02d}", "en", "s", words(4, f"Z{i}_")) for i in range(60)]
    texts, report = bucket_texts(docs, qwen, buckets=SMALL, join_to=("a", "b"))
    assert {t.origin for t in texts} == {"joined"} and report.joined == len(texts) >= 4
    assert [t.length_bucket for t in texts[:4]] == ["a", "b", "a", "b"]
    lowest_only, _ = bucket_texts(docs, qwen, buckets=SMALL)
    assert {t.length_bucket for t in lowest_only} == {"a"}


def test_filler_folders_bucket_by_joining_and_cutting(filler_texts, qwen):
    for lang, texts in filler_texts.items():
        assert texts and all(t.lang == lang for t in texts)
        for t in texts:
            bucket = BUCKETS[t.length_bucket]
            assert bucket.low <= t.n_tokens < bucket.high
    (novel,) = [t for t in filler_texts["zh"] if t.origin == "cut"]
    assert novel.length_bucket == "64k-128k" and novel.n_tokens == len(qwen.encode(novel.text))
    assert all(t.origin == "joined" for t in filler_texts["en"])


# --- Algorithm 1 -------------------------------------------------------------------------------


def test_every_needle_appears_once_in_text_order_with_exact_offsets(originals, qas, texts, qwen):
    assert len(originals) == len(texts)
    for row, text in zip(originals, texts):
        qa = qas[row["lang"]]
        check_row(row, qa, text, qwen)
        assert row["variant"] == "original" and row["original_id"] == row["id"] == f"{qa.qid}@{text.text_id}"
        assert row["distractors"] == [] and len(set(row["cuts"])) == len(row["cuts"])
        assert (row["reference"], row["ordered"], row["source"]) == (qa.reference, qa.ordered, qa.source)


def test_needles_are_shuffled(originals):
    orders = {tuple(text_order(r)) for r in originals}
    assert len(orders) > 1 and any(o != tuple(sorted(o)) for o in orders)


def test_a_text_over_its_bucket_is_trimmed_at_a_sentence_end(originals, texts):
    trimmed = [(r, t) for r, t in zip(originals, texts) if t.origin == "cut"]
    assert trimmed
    for row, text in trimmed:
        assert row["text_end"] < len(text.text) and row["n_tokens"] < BUCKETS["64k-128k"].high
        assert row["n_tokens"] > 0.9 * BUCKETS["64k-128k"].high
    for row, text in zip(originals, texts):
        if text.origin != "cut":
            assert row["text_end"] == len(text.text)


def test_rows_are_rebuilt_from_raw_text_cuts_and_order(originals, qas, texts, qwen):
    for row, text in zip(originals, texts):
        rebuilt = rebuild_row(qas[row["lang"]], text, cuts=row["cuts"], order=text_order(row), text_end=row["text_end"],
                              tokens=qwen)
        assert rebuilt == row


def test_samples_are_deterministic_and_depend_on_the_seed(originals, qas, texts, qwen, monkeypatch):
    pairs = [(qas[t.lang], t) for t in texts[:4]]
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: 1)  # encoded in place: the same rows
    assert list(generate_samples(pairs, seed=7, tokens=qwen)) == originals[:4]
    other = list(generate_samples(pairs, seed=8, tokens=qwen))
    assert all(a["cuts"] != b["cuts"] for a, b in zip(other, originals))


def test_a_text_too_short_for_its_bucket_is_reported(qas, slice_texts, qwen):
    text = replace(slice_texts[0], length_bucket="16k-32k")
    with pytest.raises(BudgetError, match="under the 16384"):
        list(generate_samples([(qas["en"], text)], seed=1, tokens=qwen))
    flat = re.sub(r"\n\s*\n", "\n", re.sub(r"[.!?;]", ",", slice_texts[0].text))
    few = replace(slice_texts[0], text=flat + " One. Two. Three. Four. Five.", text_id="few")
    errors = []
    rows = list(generate_samples([(qas["en"], few), (qas["en"], slice_texts[0])], seed=1, tokens=qwen,
                                 on_error=lambda key, err: errors.append((key, str(err)))))
    assert len(rows) == 1 and rows[0]["text_id"] == slice_texts[0].text_id
    ends = len(sentence_ends(few.text, line_breaks=False))
    message = f"text few: {ends} sentence ends in the text used, 8 needles to place"
    assert ends < 8 and errors == [(f"{qas['en'].qid}@few", message)]
    with pytest.raises(SpecError, match="is en but text"):
        list(generate_samples([(qas["en"], slice_texts[1])], seed=1, tokens=qwen))


# --- noise variants ----------------------------------------------------------------------------


def variants_of(noisy: list[dict], original: dict, noise_type: str) -> list[dict]:
    return [r for r in noisy if r["original_id"] == original["id"] and r["variant"].startswith(noise_type + "/")]


def test_each_noise_type_has_three_valid_variations(noisy, originals, qas, texts, qwen):
    by_id = {t.text_id: t for t in texts}
    assert len(noisy) == len(originals) * len(NOISE_TYPES) * 3
    for original in originals:
        for noise_type in NOISE_TYPES:
            rows = variants_of(noisy, original, noise_type)
            assert [r["variant"] for r in rows] == [f"{noise_type}/{v}" for v in (1, 2, 3)]
            for row in rows:
                assert row["id"] == f"{original['id']}/{row['variant']}"
                check_row(row, qas[row["lang"]], by_id[row["text_id"]], qwen)
                assert (row["input"] != original["input"]) and row["answers"] == original["answers"]


def test_tiny_movement_moves_each_needle_at_most_two_sentences_in_order(noisy, originals, texts):
    by_id = {t.text_id: t for t in texts}
    for original in originals:
        raw = by_id[original["text_id"]].text
        before = positions(original, raw)
        for row in variants_of(noisy, original, "tiny-movement"):
            after = positions(row, raw)
            moves = [after[a] - before[a] for a in before]
            assert all(abs(m) <= 2 for m in moves) and any(moves)
            assert text_order(row) == text_order(original)
            assert [after[a] for a in text_order(row)] == sorted(after.values())


def test_significant_movement_moves_each_needle_far_in_order(noisy, originals, texts):
    by_id = {t.text_id: t for t in texts}
    for original in originals:
        raw = by_id[original["text_id"]].text
        n = sum(1 for e in sentence_ends(raw, line_breaks=False) if e < original["text_end"])
        k = len(original["needles"])
        far = max(3, (-(-n // (k + 1)) - 1) // 2)  # half the mean segment, in sentence positions
        before = positions(original, raw)
        for row in variants_of(noisy, original, "significant-movement"):
            after = positions(row, raw)
            assert all(abs(after[a] - before[a]) >= far for a in before)
            assert text_order(row) == text_order(original)
            assert [after[a] for a in text_order(row)] == sorted(set(after.values()))


def test_reorder_keeps_the_cuts_and_changes_the_order(noisy, originals):
    for original in originals:
        rows = variants_of(noisy, original, "reorder")
        for row in rows:
            assert row["cuts"] == original["cuts"]
            assert text_order(row) != text_order(original)
        assert len({tuple(text_order(r)) for r in rows}) == 3


def test_semantic_noise_inserts_one_or_two_distractors_that_are_not_answers(noisy, originals, qas):
    counts = Counter()
    for original in originals:
        qa = qas[original["lang"]]
        for row in variants_of(noisy, original, "semantic-noise"):
            assert row["cuts"] == original["cuts"] and text_order(row) == text_order(original)
            assert 1 <= len(row["distractors"]) <= 2
            counts[len(row["distractors"])] += 1
            for d in row["distractors"]:
                assert d["text"] in qa.distractors
                assert d["text"] not in qa.answers and d["text"] not in qa.needles
                assert row["input"].count(d["text"]) == 1 and row["input"].find(d["text"]) == d["char_offset"]
                assert d["cut"] not in row["cuts"]
    assert set(counts) == {1, 2}


def test_variants_rebuild_and_are_deterministic(noisy, originals, qas, texts, qwen):
    by_id = {t.text_id: t for t in texts}
    for row in noisy[:: 7]:
        layout = layout_of_row(row)
        rebuilt = rebuild_row(qas[row["lang"]], by_id[row["text_id"]], cuts=layout.cuts, order=layout.order,
                              text_end=layout.text_end, noise=layout.noise, tokens=qwen, variant=row["variant"],
                              original_id=row["original_id"])
        assert rebuilt == row
    first = [(originals[0], qas[originals[0]["lang"]], by_id[originals[0]["text_id"]])]
    again = list(generate_noise(first, seed=7, tokens=qwen))
    assert again == [r for r in noisy if r["original_id"] == originals[0]["id"]]
    other = list(generate_noise(first, seed=9, tokens=qwen))
    assert [r["input"] for r in other] != [r["input"] for r in again]


def test_a_qa_without_distractors_gets_no_semantic_noise(originals, qas, texts, qwen):
    qa = replace(qas[originals[0]["lang"]], distractors=())
    rows = list(generate_noise([(originals[0], qa, texts[0])], seed=7, tokens=qwen, types=("semantic-noise", "reorder")))
    assert [r["variant"] for r in rows] == ["reorder/1", "reorder/2", "reorder/3"]
    with pytest.raises(SpecError, match="unknown noise types shuffle"):
        generate_noise([], seed=7, tokens=qwen, types=("shuffle",))


# --- pairing and splits ------------------------------------------------------------------------


def fake_qas(per_key: dict[tuple[str, str], int]) -> list[SequentialQA]:
    out = []
    for (pipeline_name, lang), n in per_key.items():
        for i in range(n):
            out.append(SequentialQA(f"{pipeline_name}/{lang}/{i:05d}", lang, pipeline_name, "q?", ("a", "b"),
                                    (f"n{i}a", f"n{i}b"), True, "a b", (), "test"))
    return out


def fake_texts(per_key: dict[tuple[str, str], int]) -> list[LongText]:
    return [LongText(f"{b}/{lang}/{i:04d}", lang, "test", "x", BUCKETS[b].low, b, "whole", (f"{b}/{lang}/{i:04d}",))
            for (b, lang), n in per_key.items() for i in range(n)]


def test_pairing_follows_the_paper_shares_and_reuses_texts_when_short():
    qas = fake_qas({k: v // 10 for k, v in QA_SHARES.items()})
    texts = fake_texts({k: v // 100 for k, v in TEXT_SHARES.items()})
    size = 700
    pairings, report = pair_texts(qas, texts, seed=3, size=size)
    assert len(pairings) == size == report.paired and len({p.qid for p in pairings}) == size
    total_qa = sum(QA_SHARES.values())
    per_key = Counter((p.pipeline, p.lang) for p in pairings)
    for key, share in QA_SHARES.items():
        assert abs(per_key[key] - size * share / total_qa) < 1
    by_lang = Counter(p.lang for p in pairings)
    per_bucket = Counter((p.length_bucket, p.lang) for p in pairings)
    for (bucket, lang), share in TEXT_SHARES.items():
        lang_total = sum(s for (_, text_lang), s in TEXT_SHARES.items() if text_lang == lang)
        assert abs(per_bucket[(bucket, lang)] - by_lang[lang] * share / lang_total) < 1
    text_by = {t.text_id: t for t in texts}
    uses = Counter()
    for p in pairings:
        text = text_by[p.text_id]
        assert (text.lang, text.length_bucket) == (p.lang, p.length_bucket)
        assert p.reuse == uses[p.text_id]
        uses[p.text_id] += 1
    for (bucket, lang), n in per_bucket.items():
        counts = [uses[t.text_id] for t in texts if (t.length_bucket, t.lang) == (bucket, lang)]
        assert max(counts) - min(counts) <= 1  # every text once before any twice
    assert report.reused == sum(1 for p in pairings if p.reuse) > 0
    assert [(q.qid, t.text_id) for q, t in paired(pairings, qas, texts)] == [(p.qid, p.text_id) for p in pairings]


def test_pairing_moves_shares_it_cannot_fill():
    qas = fake_qas({("real-logical", "en"): 5, ("real-temporal", "en"): 200, ("synthetic-temporal", "zh"): 100})
    texts = fake_texts({("8k-16k", "en"): 3, ("64k-128k", "en"): 2, ("16k-32k", "zh"): 4})
    pairings, report = pair_texts(qas, texts, seed=1, size=150)
    per_key = Counter((p.pipeline, p.lang) for p in pairings)
    assert len(pairings) == 150 and per_key[("real-logical", "en")] == 5
    assert report.qa_moved[("synthetic-temporal", "en")] > 0 and report.qa_moved[("real-logical", "en")] > 0
    assert {p.length_bucket for p in pairings if p.lang == "en"} == {"8k-16k", "64k-128k"}
    assert report.bucket_moved[("16k-32k", "en")] > 0 and {p.length_bucket for p in pairings if p.lang == "zh"} == {"16k-32k"}
    everything, _ = pair_texts(qas, texts, seed=1)
    assert len(everything) == len(qas)
    assert pair_texts(qas, texts, seed=1, size=150)[0] == pairings
    assert pair_texts(qas, texts, seed=2, size=150)[0] != pairings


def test_a_bucket_outside_table_1_gets_the_share_of_the_smallest():
    """``4k-7k`` is not in Table 1; a build that asks for it gets as many samples there as in 8k-16k."""
    qas = fake_qas({("synthetic-temporal", "en"): 200})
    texts = fake_texts({("4k-7k", "en"): 5, ("8k-16k", "en"): 5})
    pairings, _ = pair_texts(qas, texts, seed=1, size=100)
    per_bucket = Counter(p.length_bucket for p in pairings)
    assert per_bucket == {"4k-7k": 50, "8k-16k": 50}


def test_split_sizes_follow_the_paper():
    assert split_sizes(14_000) == FULL_SPLIT_SIZES
    assert split_sizes(700) == {"train": 500, "dev": 100, "test": 100}
    assert sum(split_sizes(1_001).values()) == 1_001
    assert scaled_counts({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}


@pytest.mark.parametrize("size", [14_000, 700, 333])
def test_splits_are_disjoint_sized_and_stratified(size):
    qas = fake_qas(QA_SHARES)
    texts = fake_texts({k: 3 for k in TEXT_SHARES})
    pairings, _ = pair_texts(qas, texts, seed=5, size=size)
    strata = {f"{p.qid}@{p.text_id}": (p.lang, p.length_bucket, p.pipeline) for p in pairings}
    splits = assign_splits(strata, seed=5)
    assert set(splits) == set(strata) and set(splits.values()) <= set(FULL_SPLIT_SIZES)
    sizes = Counter(splits.values())
    total = sum(FULL_SPLIT_SIZES.values())
    for name, full in FULL_SPLIT_SIZES.items():
        assert abs(sizes[name] - size * full / total) < 1
    assert sum(sizes.values()) == size
    members = Counter(strata.values())
    cells = Counter((strata[s], split) for s, split in splits.items())
    for stratum, n in members.items():
        for name, full in FULL_SPLIT_SIZES.items():
            assert abs(cells[(stratum, name)] - n * full / total) < 1
    assert assign_splits(strata, seed=5) == splits
    assert assign_splits(strata, seed=6) != splits


def test_built_rows_split_by_their_strata(originals):
    strata = {r["id"]: stratum_of(r) for r in originals}
    splits = assign_splits(strata, seed=0)
    assert set(splits) == set(strata)
    assert all(stratum[2] in PIPELINES for stratum in strata.values())
    assert np.isclose(sum(Counter(splits.values()).values()), len(originals))
