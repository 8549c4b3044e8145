"""EMB-S on a real (raw) source, with and without the LLM stages (a scripted model stands in for one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import pytest

import builders.embs_llm as embs_llm
from builders.embs import EmbsBuild, build
from builders.embs_llm import LlmCache, LlmStages
from builders.validate import validate_release
from needlework.errors import BudgetError, SpecError

TOPICS = ("influenza", "measles", "cholera", "malaria", "tuberculosis", "smallpox", "typhoid", "dengue", "rabies", "polio")


def ragbench_file(folder: Path) -> Path:
    """Ten covidqa-style RAGBench records, each with its own reference and one shared distractor."""
    rows = []
    for i, topic in enumerate(TOPICS):
        ref = f"{topic.title()} spreads mainly through route {i}. It was first described in year {1800 + i}. Vaccines exist."
        rows.append({"id": str(i), "question": f"How does {topic} spread?", "response": f"Through route {i}.",
                     "documents": [ref, "Washing hands helps against many diseases."],
                     "documents_sentences": [[["0a", ref]], [["1a", "Washing hands helps against many diseases."]]],
                     "all_relevant_sentence_keys": ["0a"]})
    path = folder / "covidqa.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def scripted(prompts: list[str]) -> list[str | None]:
    """A model that rewrites, atomizes (splitting at sentences) and calls every candidate a hard negative."""
    out: list[str | None] = []
    for prompt in prompts:
        topic = re.search(r"Question: How does (\w+) spread", prompt)
        if prompt.startswith("Classify the document"):
            out.append("medical")
        elif "Second document:" in prompt:
            out.append(json.dumps({"usable": True, "query": f"By which route does {topic.group(1)} spread, and which habit helps?",
                                   "answer": "route; washing"}))
        elif "Split the reference document" in prompt:
            ref = re.search(r"Reference document:\n<<<\n(.*?)\n>>>", prompt, re.S).group(1)
            first, rest = ref.split(". ", 1)
            out.append(json.dumps({"pieces": [first + ".", rest], "query": f"When was {topic.group(1)} described, and how does it spread?",
                                   "answer": "year; route"}))
        else:
            out.append("hard_negative")
    return out


def test_raw_source_with_llm_stages(tmp_path: Path, qwen, monkeypatch) -> None:
    calls: list[int] = []

    def fake_open_llm(base_url, model, *, engine, cache_path, **_):
        calls.append(1)
        return LlmStages(scripted, model, LlmCache(cache_path))

    monkeypatch.setattr(embs_llm, "open_llm", fake_open_llm)
    spec = EmbsBuild(raw=(f"ragbench:{ragbench_file(tmp_path)}",), llm_model="scripted", llm_cache=str(tmp_path / "llm.jsonl"),
                     domains=("medical",), queries_per_domain=10, retrievers=("bm25",), materialize="64K")
    out = tmp_path / "release"
    build(spec, out, tokens=qwen, progress=False)
    assert calls == [1] and validate_release(out) == []
    queries = datasets.load_dataset(str(out), "queries", split="test").to_list()
    tracks = {q["track"] for q in queries}
    assert tracks == {"none", "rewrite", "atomize"} and len(queries) == 10
    bank = {r["doc_id"]: r for r in datasets.load_dataset(str(out), "memorybank", split="test")}
    for q in queries:
        assert (q["kind"] == "multi") == (q["track"] != "none")
        if q["track"] == "atomize":
            assert all(bank[d]["origin"] == "atom" for d in q["ref_list"]) and len(q["ref_list"]) == 2
    collisions = datasets.load_dataset(str(out), "collisions", split="test")
    assert set(collisions["labeler"]) == {"scripted"} and set(collisions["label"]) == {"hard_negative"}
    ladder = datasets.load_dataset(str(out), "ladder", split="test")
    gold = {d for q in queries for d in q["ref_list"]}
    assert gold <= set(next(r for r in ladder if r["scale"] == "64K")["doc_ids"])


def test_raw_source_without_llm_records_unverified_collisions(tmp_path: Path, qwen) -> None:
    spec = EmbsBuild(raw=(f"ragbench:{ragbench_file(tmp_path)}",), domains=("medical",), queries_per_domain=10,
                     retrievers=(), materialize="none")
    out = tmp_path / "release"
    build(spec, out, tokens=qwen, progress=False)
    queries = datasets.load_dataset(str(out), "queries", split="test")
    assert set(queries["track"]) == {"none"} and all(not h for h in queries["hard_negatives"])
    collisions = datasets.load_dataset(str(out), "collisions", split="test")
    assert set(collisions["label"]) == {"unverified"} and set(collisions["labeler"]) == {"none"}


def test_llm_without_a_real_source_and_bad_raw_are_refused(tmp_path: Path, qwen) -> None:
    with pytest.raises(SpecError, match="give --hub or --raw"):
        EmbsBuild(llm_model="m")
    with pytest.raises(SpecError, match="kind:path"):
        build(EmbsBuild(raw=("covidqa.jsonl",)), tmp_path / "x", tokens=qwen, progress=False)


from tests.builders.test_embs_sources import hub  # noqa: E402,F401  (the fake official release)


def test_an_official_query_whose_references_span_two_domains_is_named_not_placed_in_one(hub: Path, tmp_path: Path,
                                                                                        qwen) -> None:
    """Issue 39: a RefList in two domain corpora (no 64K corpus holds it all) was given its first reference's domain,
    so its other gold document was a sure miss at 64K. It is now left out of the queries and named in the manifest."""
    from tests.builders.test_embs_sources import A, D, write_jsonl

    rows = [json.loads(line) for line in (hub / "qar/test.jsonl").read_text(encoding="utf-8").splitlines()]
    write_jsonl(hub / "qar/test.jsonl", [*rows, {"query": "Aspirin and contracts?", "answer": "both", "reference_list": [A, D]}])
    out = tmp_path / "release"
    build(EmbsBuild(hub=str(hub), retrievers=("bm25",), materialize="none"), out, tokens=qwen, progress=False)
    queries = datasets.load_dataset(str(out), "queries", split="test")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert len(queries) == 3 and manifest["stages"]["cross_domain"] == ["embs/embs-hub/test/00003"]


def test_an_official_corpus_over_its_budget_is_named_with_scale_domain_and_tokens(hub: Path, tmp_path: Path,
                                                                                   qwen) -> None:
    """Issue 39: the release's 64K law corpus made longer than 64K tokens under qwen2.5 stops the build with a message
    naming it, not with "document counts did not add up" at the end."""
    from tests.builders.test_embs_sources import BANK, C, D, write_pickle

    long_text = "Contracts bind the parties who sign them. " * 9000
    write_pickle(hub / "data/64K/law/unique_reference.pkl", [D, C, long_text])
    for folder in ("512K", "1M"):
        write_pickle(hub / "data" / folder / "unique_reference.pkl", [*BANK, long_text])
    with pytest.raises(BudgetError, match=r"official 64K corpus of law has [\d,]+ tokens .* over its budget of 65,536"):
        build(EmbsBuild(hub=str(hub), retrievers=("bm25",), materialize="none"), tmp_path / "release", tokens=qwen,
              progress=False)


def test_official_release_keeps_its_queries_ids_and_ladder(hub: Path, tmp_path: Path, qwen) -> None:
    """--hub: documents keep their position as doc_id, every test query is kept, the release's own ladder is used."""
    out = tmp_path / "release"
    build(EmbsBuild(hub=str(hub), retrievers=("bm25",), materialize="none"), out, tokens=qwen, progress=False)
    assert validate_release(out) == []
    bank = datasets.load_dataset(str(out), "memorybank", split="test")
    queries = datasets.load_dataset(str(out), "queries", split="test")
    ladder = {(r["scale"], r["domain"]): r["doc_ids"] for r in datasets.load_dataset(str(out), "ladder", split="test")}
    texts = bank["text"]
    assert bank["doc_id"] == list(range(6)) and texts[0] == "Aspirin lowers fever."
    assert [texts[d] for d in queries[0]["ref_list"]] == ["Aspirin lowers fever."] and len(queries) == 3
    assert set(queries["track"]) == {"release"} and queries["domain"] == ["medical", "law", "finance"]
    assert set(ladder) == {("64K", "medical"), ("64K", "law"), ("128K", "medical"), ("512K", "all"), ("1M", "all")}
    assert [texts[d] for d in ladder[("64K", "law")]] == ["A contract needs offer and acceptance.", "民法典规定了合同的成立条件和效力。"]
    assert bank["domain"][4] is None
    train = datasets.load_dataset(str(out), "queries", split="train")  # issue 39: the train pairs are written too
    assert train["query"] == ["What regulates sugar?"] and [texts[d] for d in train[0]["ref_list"]] == [
        "Insulin regulates blood sugar.", "Aspirin lowers fever."] and train["track"] == ["release"]
    assert sorted(datasets.load_dataset(str(out), "qrels", split="train")["corpus-id"]) == sorted(train[0]["ref_list"])
