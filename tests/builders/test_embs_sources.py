"""EMB-S real-source adapters on small files in the real formats: the official release's layout and three raw sources."""

from __future__ import annotations

import collections
import json
import pickle
import sys
import unicodedata
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders.hashing import file_sha256
from builders.sources.embs_hub import load_plain_pickle, read_embs_hub
from builders.sources.embs_raw import (
    estimate_tokens,
    read_babilong,
    read_longbench,
    read_ragbench,
    read_raw,
    split_document,
)
from builders.sources.embs_source import DOC_SCHEMA, TRIPLE_SCHEMA, concat_sources
from needlework.errors import InputError, SpecError

A, B = "Aspirin lowers fever.", "Insulin regulates blood sugar."
C, D = "民法典规定了合同的成立条件和效力。", "A contract needs offer and acceptance."
E, F = "Bonds pay a fixed coupon.", "Café au lait is coffee with milk."  # F is NFC; a reference gives it as NFD
BANK = [A, B, C, D, E, F]
UNPICKLED: list[str] = []


def write_pickle(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(value))
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    root = tmp_path / "EverMemBench-Static"
    corpora = {"64K/medical": [B, A], "64K/law": [D, C], "128K/medical": [B, A, D], "512K": [A, B, C, D], "1M": BANK}
    for folder, texts in corpora.items():
        write_pickle(root / "data" / folder / "unique_reference.pkl", texts)
        write_pickle(root / "data" / folder / "data.pkl", [{"query": "q", "answer": "a", "reference_list": texts[:1]}])
    write_jsonl(root / "qar/test.jsonl", [
        {"query": "What lowers fever?", "answer": "Aspirin", "reference_list": [A]},
        {"query": "合同何时成立？", "answer": "要约和承诺", "reference_list": [C, D]},
        {"query": "What do bonds pay?", "answer": "A coupon", "reference_list": [E, unicodedata.normalize("NFD", F)],
         "domain": "finance"},
    ])
    write_jsonl(root / "qar/train_sft.jsonl", [{"query": "What regulates sugar?", "answer": "Insulin", "reference_list": [B, A, B]}])
    return root


def test_hub_ids_are_bank_positions_and_gold_is_matched_by_text(hub):
    source = read_embs_hub(hub)
    assert source.docs.schema == DOC_SCHEMA and source.triples.schema == TRIPLE_SCHEMA
    assert source.docs.column("text").to_pylist() == BANK
    assert source.docs.column("lang").to_pylist() == ["en", "en", "zh", "en", "en", "en"]
    assert source.docs.column("domain").to_pylist() == ["medical", "medical", "law", "law", None, None]
    triples = source.triples.to_pylist()
    assert [(t["qid"], t["ref_docs"], t["split"], t["lang"], t["domain"]) for t in triples] == [
        ("embs-hub/test/00000", [0], "test", "en", "medical"),
        ("embs-hub/test/00001", [2, 3], "test", "zh", "law"),
        ("embs-hub/test/00002", [4, 5], "test", "en", "finance"),
        ("embs-hub/train/00000", [1, 0], "train", "en", "medical"),
    ]
    assert triples[1]["answers"] == ["要约和承诺"] and triples[1]["answer"] == "要约和承诺"


def test_hub_ladder_is_positions_with_stable_ids_across_scales(hub):
    source = read_embs_hub(hub)
    assert [(c.scale, c.domain, c.docs) for c in source.ladder] == [
        ("64K", "law", (3, 2)), ("64K", "medical", (1, 0)), ("128K", "medical", (1, 0, 3)),
        ("512K", "all", (0, 1, 2, 3)), ("1M", "all", (0, 1, 2, 3, 4, 5)),
    ]
    texts = source.docs.column("text").to_pylist()
    for corpus in source.ladder:
        folder = corpus.scale if corpus.domain == "all" else f"{corpus.scale}/{corpus.domain}"
        assert [texts[i] for i in corpus.docs] == pickle.loads((hub / "data" / folder / "unique_reference.pkl").read_bytes())
    smaller = read_embs_hub(hub, scales=["64K", "1M"], splits=["test"])
    assert smaller.ladder[:2] == source.ladder[:2] and smaller.triples.num_rows == 3


def test_hub_fingerprints_attribution_and_scale_checks(hub):
    source = read_embs_hub(hub)
    assert source.fingerprints["local-copy/qar/test.jsonl"] == file_sha256(hub / "qar/test.jsonl")
    assert source.fingerprints["local-copy/data/1M/unique_reference.pkl"] == file_sha256(hub / "data/1M/unique_reference.pkl")
    assert not any("data.pkl" in name for name in source.fingerprints)
    moved = hub.parent / "elsewhere"  # issue 39: the same files elsewhere are the same inputs
    hub.rename(moved)
    again = read_embs_hub(moved)
    moved.rename(hub)
    assert again.fingerprints == source.fingerprints and again.label == source.label and str(hub) not in source.label
    for needle in ("cc-by-nc-sa-4.0", "1,225", "4,924", "483", "EverMind-AI/EverMemBench-Static"):
        assert needle in source.attribution
    with pytest.raises(SpecError, match="present: 64K, 128K, 512K, 1M"):
        read_embs_hub(hub, scales=["2M"])
    with pytest.raises(SpecError, match="no flat scale"):
        read_embs_hub(hub, scales=["64K"])
    with pytest.raises(SpecError, match="valid: test, train"):
        read_embs_hub(hub, splits=["dev"])


def test_hub_missing_gold_text_names_file_record_and_field(hub):
    path = write_jsonl(hub / "qar/test.jsonl", [
        {"query": "q1", "answer": "a", "reference_list": [A]},
        {"query": "q2", "answer": "a", "reference_list": [B, "A text no corpus holds."]},
    ])
    with pytest.raises(InputError) as caught:
        read_embs_hub(hub)
    assert (caught.value.file, caught.value.record, caught.value.field) == (str(path), 2, "reference_list")
    assert str(caught.value).startswith(f"{path}, record 2, field 'reference_list': reference 2 of 2")


@pytest.mark.parametrize("domain", ["sports", ["law"]])
def test_hub_query_domain_outside_the_papers_eight_names_file_record_field_and_choices(hub, domain):
    """EMB-S assigns every query one of 8 broad domains (paper Section 3.1, Appendix A.1); a query naming another, or a list, is refused by name."""
    path = write_jsonl(hub / "qar/test.jsonl", [
        {"query": "q1", "answer": "a", "reference_list": [A]},
        {"query": "q2", "answer": "a", "reference_list": [A], "domain": domain},
    ])
    with pytest.raises(InputError) as caught:
        read_embs_hub(hub)
    assert (caught.value.file, caught.value.record, caught.value.field) == (str(path), 2, "domain")
    assert str(caught.value) == (f"{path}, record 2, field 'domain': domain must be one of 'medical', 'history', "
                                 f"'education', 'math', 'literature', 'law', 'technology', 'finance'; got {domain!r}")


def test_hub_corpus_text_outside_the_bank_is_an_error(hub):
    path = write_pickle(hub / "data/64K/law/unique_reference.pkl", [D, "stray"])
    with pytest.raises(InputError, match="record 2: text not in the bank") as caught:
        read_embs_hub(hub)
    assert caught.value.file == str(path)


def _record_unpickling() -> str:
    UNPICKLED.append("ran")
    return "side effect"


class Boom:
    def __reduce__(self):
        return (_record_unpickling, ())


@pytest.mark.parametrize("value", [collections.OrderedDict(a=1), [Boom()], ("a", "tuple"), [b"bytes"]])
def test_pickle_of_anything_but_plain_data_is_refused(tmp_path, value):
    path = write_pickle(tmp_path / "unique_reference.pkl", value)
    with pytest.raises(InputError) as caught:
        load_plain_pickle(path)
    assert caught.value.file == str(path) and UNPICKLED == []
    assert load_plain_pickle(write_pickle(tmp_path / "ok.pkl", [{"k": [1, 2.5, True, None, "s"]}])) == [{"k": [1, 2.5, True, None, "s"]}]


def test_hub_refuses_a_non_plain_bank_and_an_lfs_pointer(hub):
    write_pickle(hub / "data/1M/unique_reference.pkl", collections.OrderedDict(a=A))
    with pytest.raises(InputError, match="refused collections.OrderedDict"):
        read_embs_hub(hub)
    (hub / "data/1M/unique_reference.pkl").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\n")
    with pytest.raises(InputError, match="Git LFS pointer"):
        read_embs_hub(hub)


def test_split_document_keeps_pieces_under_the_cap_as_exact_substrings():
    text = "\n\n".join(f"Paragraph {i} says something about topic {i}. It has a second sentence." for i in range(12))
    text += "\n\n" + "x" * 500  # no boundary at all: cut by characters
    pieces = split_document(text, 40)
    assert len(pieces) > 12 and all(estimate_tokens(p) <= 40 for p in pieces)
    assert all(p in text for p in pieces) and "".join(pieces).replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")
    assert split_document("短句。" * 5, 2000) == ["短句。" * 5]
    assert estimate_tokens("abcdef中文") == 4


LONG_STORY = "\n\n".join(f"Chapter {i}. The travellers rested by the river and told old stories." for i in range(20))


@pytest.fixture
def longbench(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "longbench" / "mixed.jsonl", [
        {"input": "Where was Alpha born?", "answers": ["Paris"], "dataset": "hotpotqa", "language": "en", "_id": "h1",
         "context": "Passage 1:\nAlpha\nAlpha was born in Paris.\nPassage 2:\nBeta\nBeta lived in Rome.\nPassage 3:\nGamma\nNo city here."},
        {"input": "Who found the key?", "answers": ["Marguerite"], "dataset": "narrativeqa", "language": "en", "_id": "n1",
         "context": LONG_STORY.replace("Chapter 13.", "Chapter 13. Marguerite found the key.")},
        {"input": "Summarize.", "answers": ["A long trip by a river."], "dataset": "gov_report", "language": "en",
         "_id": "g1", "context": "Chapter 1. The travellers rested by the river."},
        {"input": "Was Beta Roman?", "answers": ["yes"], "dataset": "hotpotqa", "language": "en", "_id": "h2",
         "context": "Passage 1:\nBeta\nYes, Beta lived in Rome.\nPassage 2:\nAlpha\nAlpha was born in Paris."},
    ])


def test_longbench_refdoc_is_the_piece_holding_the_answer(longbench):
    read = read_longbench(longbench, max_doc_tokens=40)
    docs = read.source.docs.to_pylist()
    assert all(estimate_tokens(d["text"]) <= 40 for d in docs)
    assert [d["text"] for d in docs[:3]] == ["Alpha\nAlpha was born in Paris.", "Beta\nBeta lived in Rome.", "Gamma\nNo city here."]
    assert [d["title"] for d in docs[:3]] == ["longbench h1 (1/3)", "longbench h1 (2/3)", "longbench h1 (3/3)"]
    triples = {t["qid"]: t for t in read.source.triples.to_pylist()}
    assert list(triples) == ["longbench/hotpotqa/h1", "longbench/narrativeqa/n1"]
    assert triples["longbench/hotpotqa/h1"]["ref_docs"] == [0] and triples["longbench/hotpotqa/h1"]["domain"] is None
    story = triples["longbench/narrativeqa/n1"]
    assert story["domain"] == "literature" and len(story["ref_docs"]) == 1
    assert "Marguerite found the key" in docs[story["ref_docs"][0]]["text"]
    assert sum("Marguerite" in d["text"] for d in docs) == 1 and sum(d["title"].startswith("longbench n1") for d in docs) > 3
    assert [qid for qid, _ in read.dropped] == ["longbench/gov_report/g1", "longbench/hotpotqa/h2"]
    assert all(reason.startswith("no document piece contains an answer") for _, reason in read.dropped)
    assert read.source.fingerprints == {f"local-file/{longbench.parent.name}/{longbench.name}": file_sha256(longbench)}
    assert read_longbench(longbench, tasks=["narrativeqa"]).source.triples.column("qid").to_pylist() == ["longbench/narrativeqa/n1"]


class WordCounter:
    """A stand-in TokenCounter: one token per whitespace-separated word."""

    name, fingerprint = "words", "0"

    def count(self, text: str) -> int:
        return len(text.split())


def test_longbench_cap_counted_with_a_token_counter_and_bad_record(longbench, tmp_path):
    read = read_longbench(longbench, max_doc_tokens=25, tokens=WordCounter())
    assert all(len(d["text"].split()) <= 25 for d in read.source.docs.to_pylist())
    assert read.source.triples.num_rows == 2
    path = write_jsonl(tmp_path / "bad.jsonl", [json.loads(longbench.read_text().splitlines()[0]), {"input": "q", "_id": "x",
                       "answers": ["a"], "dataset": "hotpotqa", "language": "en"}])
    with pytest.raises(InputError) as caught:
        read_longbench(path)
    assert (caught.value.file, caught.value.record, caught.value.field) == (str(path), 2, "context")


FILLER = "The mist rolled over the old harbour town and nobody spoke of it."


def babilong_rows(facts: list[list[str]], question: str = "Where is Mary?") -> list[dict]:
    return [{"input": " ".join(f), "question": question, "target": "bathroom"} for f in facts]


def test_babilong_refdocs_are_the_pieces_holding_the_facts(tmp_path):
    facts = [["Mary moved to the bathroom.", "John went to the hallway."],
             ["Mary moved to the bathroom.", "Sandra journeyed to the garden."]]
    long_inputs = [" ".join([FILLER] * 6 + [facts[0][0]] + [FILLER] * 6 + [facts[0][1]] + [FILLER] * 6),
                   " ".join([FILLER] * 6 + [facts[1][0]] + [FILLER] * 6)]  # the second fact was lost
    long = write_jsonl(tmp_path / "128k" / "qa1.jsonl", [{**row, "input": text} for row, text in zip(babilong_rows(facts), long_inputs)])
    zero = write_jsonl(tmp_path / "0k" / "qa1.jsonl", babilong_rows(facts))
    read = read_babilong(long, facts=zero, max_doc_tokens=60)
    docs = read.source.docs.column("text").to_pylist()
    assert all(estimate_tokens(d) <= 60 for d in docs)
    [triple] = read.source.triples.to_pylist()
    assert triple["qid"] == "babilong/128k/qa1/00000" and triple["answers"] == ["bathroom"]
    assert [[f in docs[i] for f in facts[0]] for i in triple["ref_docs"]] == [[True, False], [False, True]]
    assert read.dropped == (("babilong/128k/qa1/00001", "fact sentence(s) in no document piece: ['Sandra journeyed to the garden.']"),)
    assert set(read.source.fingerprints) == {f"local-file/{p.parent.name}/{p.name}" for p in (long, zero)}
    own = read_babilong(zero)  # the 0k config: its own sentences are the facts
    assert own.source.triples.column("ref_docs").to_pylist() == [[0], [1]] and own.dropped == ()


def test_babilong_facts_from_another_task_are_refused(tmp_path):
    long = write_jsonl(tmp_path / "long.jsonl", babilong_rows([["Mary moved to the bathroom."]]))
    zero = write_jsonl(tmp_path / "zero.jsonl", babilong_rows([["Mary moved to the bathroom."]], "Where is John?"))
    with pytest.raises(InputError) as caught:
        read_babilong(long, facts=zero)
    assert (caught.value.file, caught.value.record, caught.value.field) == (str(zero), 1, "question")


SENTENCES = [f"Sentence {i} discusses coronavirus transmission in detail." for i in range(20)]


def ragbench_rows() -> list[dict]:
    long_doc = " ".join(SENTENCES)
    return [
        {"id": "7", "question": "How does it spread?", "response": "By droplets.",
         "documents": ["Droplets spread the virus.", "Masks help.", long_doc],
         "documents_sentences": [[["0a", "Droplets spread the virus."]], [["1a", "Masks help."]],
                                 [[f"2{chr(97 + i)}", s] for i, s in enumerate(SENTENCES)]],
         "all_relevant_sentence_keys": ["0a", "2p"]},
        {"id": "8", "question": "Unrelated?", "response": "No idea.", "documents": ["Masks help."],
         "documents_sentences": [[["0a", "Masks help."]]], "all_relevant_sentence_keys": []},
    ]


def test_ragbench_refdocs_from_relevance_keys(tmp_path):
    path = tmp_path / "covidqa" / "test-00000-of-00001.parquet"
    path.parent.mkdir()
    pq.write_table(pa.Table.from_pylist(ragbench_rows()), path)
    read = read_ragbench(path, max_doc_tokens=40)
    docs = read.source.docs.to_pylist()
    assert all(estimate_tokens(d["text"]) <= 40 for d in docs) and len(docs) > 3
    assert sum(d["text"] == "Masks help." for d in docs) == 1  # shared by both records: one document
    [triple] = read.source.triples.to_pylist()
    assert triple["qid"] == "ragbench/covidqa/7" and triple["domain"] == "medical" and triple["answer"] == "By droplets."
    assert docs[triple["ref_docs"][0]]["text"] == "Droplets spread the virus."
    assert [SENTENCES[15] in docs[i]["text"] for i in triple["ref_docs"][1:]] == [True]
    assert read.dropped == (("ragbench/covidqa/8", "no all_relevant_sentence_keys"),)
    assert read_raw("ragbench", path, max_doc_tokens=40) == read
    # issue 41: a raw file is named by its folder and name, not where it lies, so a copy elsewhere fingerprints alike
    assert read.source.fingerprints == {"local-file/covidqa/test-00000-of-00001.parquet": file_sha256(path)}
    elsewhere = tmp_path / "moved" / "covidqa" / path.name
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_bytes(path.read_bytes())
    assert read_ragbench(elsewhere, max_doc_tokens=40).source.fingerprints == read.source.fingerprints


def test_ragbench_key_naming_no_document_and_unknown_kind(tmp_path):
    path = write_jsonl(tmp_path / "finqa.jsonl", [{**ragbench_rows()[0], "all_relevant_sentence_keys": ["0a", "5b"]}])
    with pytest.raises(InputError) as caught:
        read_ragbench(path)
    assert (caught.value.record, caught.value.field) == (1, "all_relevant_sentence_keys") and "'5b'" in str(caught.value)
    with pytest.raises(SpecError, match="^raw EMB-S source must be one of 'longbench', 'babilong', 'ragbench'; got 'loong'$"):
        read_raw("loong", path)


def test_concat_sources_deduplicates_a_shared_text_and_remaps_refs(tmp_path, longbench):
    rag = write_jsonl(tmp_path / "hotpotqa.jsonl", [{"id": "1", "question": "Where was Alpha born?", "response": "Paris",
                      "documents": ["Alpha\nAlpha was born in Paris.", "Other text."], "all_relevant_sentence_keys": ["0a"]}])
    first, second = read_longbench(longbench, max_doc_tokens=40).source, read_ragbench(rag).source
    merged = concat_sources([first, second])
    texts = merged.docs.column("text").to_pylist()
    assert len(texts) == first.docs.num_rows + second.docs.num_rows - 1 and len(set(texts)) == len(texts)
    rows = merged.triples.to_pylist()
    assert rows[-1]["qid"] == "ragbench/hotpotqa/1" and rows[-1]["ref_docs"] == rows[0]["ref_docs"] == [0]
    assert merged.docs.column("source").to_pylist()[0] == "longbench" and texts[-1] == "Other text."


def fake_hub(monkeypatch, calls: list, **functions) -> None:
    """Stand-ins for huggingface_hub (and datasets), so the Hub code paths run without a network."""
    info = lambda repo_id, revision=None: calls.append(("info", repo_id, revision)) or SimpleNamespace(sha="c0ffee")
    monkeypatch.setitem(sys.modules, "huggingface_hub", SimpleNamespace(HfApi=lambda: SimpleNamespace(dataset_info=info), **functions))


def test_hub_download_resolves_the_commit_and_fetches_only_the_needed_files(monkeypatch, hub):
    calls: list = []
    snapshot = lambda repo_id, **kw: calls.append(("snapshot", repo_id, kw)) or str(hub)
    fake_hub(monkeypatch, calls, snapshot_download=snapshot)
    source = read_embs_hub(revision="v1", scales=["64K", "1M"])
    assert calls == [("info", "EverMind-AI/EverMemBench-Static", "v1"), ("snapshot", "EverMind-AI/EverMemBench-Static", {
        "repo_type": "dataset", "revision": "c0ffee", "allow_patterns": [
            "qar/test.jsonl", "qar/train_sft.jsonl", "data/64K/unique_reference.pkl", "data/64K/*/unique_reference.pkl",
            "data/1M/unique_reference.pkl", "data/1M/*/unique_reference.pkl"]})]
    assert source.fingerprints["hub:EverMind-AI/EverMemBench-Static"] == "c0ffee" and source.triples.num_rows == 4
    assert source.fingerprints["hub:EverMind-AI/EverMemBench-Static/data/64K/law/unique_reference.pkl"] == \
        file_sha256(hub / "data/64K/law/unique_reference.pkl")
    assert source.label == "embs-hub(hub:EverMind-AI/EverMemBench-Static, bank=1M, scales=2, test=3, train=1)"


def test_raw_hub_specs_read_longbench_zip_and_babilong_with_its_0k_facts(monkeypatch, tmp_path, longbench):
    calls: list = []
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(longbench, "data/hotpotqa.jsonl")
    fake_hub(monkeypatch, calls, hf_hub_download=lambda repo, name, **kw: calls.append((repo, name, kw)) or str(archive))
    read = read_longbench("hub:THUDM/LongBench:hotpotqa", max_doc_tokens=40)
    assert calls[-1] == ("THUDM/LongBench", "data.zip", {"repo_type": "dataset", "revision": "c0ffee"})
    assert read.source.fingerprints == {"hub:THUDM/LongBench:hotpotqa": "THUDM/LongBench@c0ffee"} and read.source.triples.num_rows == 2
    facts = ["Mary moved to the bathroom."]
    configs = {"128k": [{**babilong_rows([facts])[0], "input": f"{FILLER} {facts[0]} {FILLER}"}], "0k": babilong_rows([facts])}
    loads = lambda repo, config, split, revision: calls.append((repo, config, split)) or configs[config]
    monkeypatch.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset=loads))
    read = read_babilong("hub:RMT-team/babilong:128k@qa1")
    assert [c for c in calls if c[0] != "info"][-2:] == [("RMT-team/babilong", "128k", "qa1"), ("RMT-team/babilong", "0k", "qa1")]
    assert read.source.triples.column("qid").to_pylist() == ["babilong/128k/qa1/00000"] and read.dropped == ()
