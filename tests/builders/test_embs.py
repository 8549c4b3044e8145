"""EMB-S built on the synthetic world: the build checks of spec §9 (1-4, 6, 10) on a small release.

The release checks read the EMB-S demo release (``demo.folder / "embs"``, built once per test run by the
session ``demo`` fixture and never changed here); determinism (check 1) is checked on a small 4K-base
ladder built three times, and the query oracle (check 4) on a small world composed once.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import datasets
import numpy as np
import pytest

from builders import embs_world
from builders.embs import EmbsBuild, build, context_config, demo_spec
from builders.embs_world import compose_queries, grow
from builders.options import reproducing_command
from builders.retrieval import ladder
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.cache import RetrievalCache
from builders.retrieval.dense import DenseRetriever
from builders.retrieval.ladder import Bank, rank_corpus, rank_ladder, retrieval_rows
from builders.validate import validate_release
from generators.embs.calibration import hashed_bag_of_words
from generators.embs.collisions import oracle_label, with_mirrors
from generators.embs.ladder import Corpus
from generators.embs.spec import QuerySpec, scale_sort_key, scale_tokens
from generators.embs.world_bank import render_entry, stated_facts
from generators.embs.world_queries import (
    Wording,
    answer_in_question,
    candidate_order,
    needs_every_reference,
    plan_atomization,
    rewrite_query,
    single_query,
    surplus,
)
from generators.world.model import Fact
from generators.world.solver import FactSolver
from needlework.errors import SpecError

SPEC = demo_spec(0, "qwen2.5")
"""The release the checks read: the demo's (2,000 entities, 4 queries per domain, BM25, contexts up to 512K)."""


@pytest.fixture(scope="module")
def release(demo) -> Path:
    """The EMB-S demo release, built once per test run and shared by every worker: read, never changed."""
    out = demo.folder / "embs"
    assert json.loads((out / "manifest.json").read_text())["build"]["command"] == reproducing_command("embs", SPEC)
    return out


def load(folder: Path, config: str) -> datasets.Dataset:
    return datasets.load_dataset(str(folder), config, split="test")


def hashes(folder: Path) -> dict[str, str]:
    configs = json.loads((folder / "manifest.json").read_text())["configs"]
    return {c: v["splits"]["test"]["content_sha256"] for c, v in configs.items()}


def test_every_config_loads_and_validates(release: Path) -> None:
    """Check 10 (small): load_dataset(folder, c) works offline for every config, and validate passes."""
    manifest = json.loads((release / "manifest.json").read_text())
    expected = {"memorybank", "queries", "collisions", "ladder", "qrels", "rankings", "retrieval",
                "contexts-64K", "contexts-128K", "contexts-256K", "contexts-512K"}
    assert set(manifest["configs"]) == expected
    for config in expected:
        assert load(release, config).num_rows == manifest["configs"][config]["splits"]["test"]["rows"] > 0
    assert validate_release(release) == []


def test_queries_fill_every_domain_and_track(release: Path) -> None:
    queries = load(release, "queries")
    tracks = {(q["domain"], q["track"]) for q in queries}
    assert len(queries) == 8 * 4 and len(tracks) == 8 * 3
    for q in queries:
        assert (q["kind"] == "single") == (q["n_refs"] == 1) == (len(q["ref_list"]) == 1)
        assert q["track"] == "none" or q["n_refs"] >= 2


def test_ladder_nesting_and_gold(release: Path) -> None:
    """Check 2 on the release: gold in C_d^64K, the nested chain, 512K = union, mixing rule, no duplicates."""
    ladder = load(release, "ladder")
    bank = load(release, "memorybank")
    by = {(r["scale"], r["domain"]): set(r["doc_ids"]) for r in ladder}
    domains = sorted({r["domain"] for r in ladder if r["domain"] != "all"})
    for q in load(release, "queries"):
        assert set(q["ref_list"]) <= by[("64K", q["domain"])]
    for d in domains:
        assert by[("64K", d)] <= by[("128K", d)] <= by[("256K", d)] <= by[("512K", "all")]
        assert by[("256K", d)] - by[("64K", d)] <= set().union(*(by[("64K", o)] for o in domains if o != d))
    assert by[("512K", "all")] == set().union(*(by[("64K", d)] for d in domains))
    chain = sorted((r for r in ladder if r["domain"] == "all"), key=lambda r: scale_sort_key(r["scale"]))
    for small, big in zip(chain, chain[1:]):
        assert set(small["doc_ids"]) <= set(big["doc_ids"])
    assert set(chain[-1]["doc_ids"]) == set(bank["doc_id"]) and chain[-1]["scale"] == "max"
    text_hash = {r["doc_id"]: hashlib.sha256(r["text"].encode()).hexdigest() for r in bank}
    for r in ladder:
        assert len(set(r["doc_ids"])) == len(r["doc_ids"]) == len({text_hash[d] for d in r["doc_ids"]})


def test_contexts_fit_and_are_maximal(release: Path, qwen) -> None:
    """Check 3: each serialized corpus, counted with one encode, fits budget - reserve, and the next doc would not."""
    ladder = {(r["scale"], r["domain"]): r for r in load(release, "ladder")}
    bank = load(release, "memorybank")
    n_tokens = dict(zip(bank["doc_id"], bank["n_tokens"]))
    domain_docs = {d: {i for i, dd in zip(bank["doc_id"], bank["domain"]) if dd == d} for d in set(bank["domain"])}
    longest: dict[str, int] = {}  # the longest instruction + query asked of a domain's corpora, and of all ("all")
    for q in load(release, "queries"):
        n = max(qwen.count(t) for t in _instructions(q))
        for key in (q["domain"], "all"):
            longest[key] = max(longest.get(key, 0), n)
    for config in ("contexts-64K", "contexts-128K", "contexts-256K", "contexts-512K"):
        for row in load(release, config):
            corpus = ladder[(row["scale"], row["domain"])]
            measured = len(qwen.encode(row["input"]))
            assert measured == row["n_tokens"] == corpus["corpus_tokens"] == sum(n_tokens[d] for d in corpus["doc_ids"])
            assert measured + longest[row["domain"]] + SPEC.generation_reserve <= corpus["budget_tokens"]
            if corpus["next_tokens"]:
                assert measured + corpus["next_tokens"] > corpus["budget_tokens"] - corpus["reserve_tokens"]
            elif row["scale"] == "64K":  # its fill order ran out: every document of the domain is in
                assert domain_docs[row["domain"]] <= set(corpus["doc_ids"])
            assert row["input"].startswith(f"[DocID={corpus['doc_ids'][0]}]\n")


SMALL = EmbsBuild(entities=280, queries_per_domain=2, base_scale="4K", retrievers=("bm25",), materialize="32K")
"""A base of 4K (OURS): the smallest corpora fit a short-window model (SmolLM2-135M reads 8,192 tokens).

All eight domains, so the mixed 8K and 16K tiers and the shared 32K differ from each other. A 4K corpus has
about 3,000 tokens for gold documents and a Track 1 query brings two articles; a query that would overflow is
passed over for the next candidate, and with 280 entities every domain still fills its quota (seeds 0 and 1)."""


@pytest.fixture(scope="module")
def small(tmp_path_factory, qwen) -> Path:
    out = tmp_path_factory.mktemp("embs-small") / "small"
    build(SMALL, out, tokens=qwen, progress=False)
    return out


def test_same_seed_same_hashes_other_seed_other_rows(small: Path, tmp_path: Path, qwen) -> None:
    """Check 1: the same seed gives identical content hashes; seed + 1 other ladder doc ids and query order.

    On the 4K-base ladder (every config of a release, contexts to 32K), whose scales are distinct corpora."""
    by = {(r["scale"], r["domain"]): frozenset(r["doc_ids"]) for r in load(small, "ladder")}
    assert all(len({by[("4K", d)], by[("8K", d)], by[("16K", d)], by[("32K", "all")]}) == 4 for d in SMALL.domains)
    again, other = tmp_path / "again", tmp_path / "other"
    build(SMALL, again, tokens=qwen, progress=False)
    build(EmbsBuild(**{**vars(SMALL), "seed": 1}), other, tokens=qwen, progress=False)
    assert hashes(again) == hashes(small)
    assert load(other, "ladder")["doc_ids"] != load(small, "ladder")["doc_ids"]
    assert load(other, "queries")["qid"] != load(small, "queries")["qid"]


def test_small_base_scale_builds_a_valid_nested_ladder(small: Path, qwen) -> None:
    """With base 4K the domain tiers are 4K, 8K, 16K, the shared 32K is the union of the 4K corpora, gold is in
    the 4K corpora, the chain nests, every serialized corpus fits its budget, and the release validates."""
    out = small
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["build"]["args"]["base_scale"] == "4K" and "--base-scale 4K" in manifest["build"]["command"]
    assert {"contexts-4K", "contexts-8K", "contexts-16K", "contexts-32K"} <= set(manifest["configs"])
    assert validate_release(out) == []
    ladder = load(out, "ladder")
    tiers = {(r["scale"], r["domain"]): r["tier"] for r in ladder}
    assert {k: v for k, v in tiers.items() if v != "global"} == {
        **{(s, d): "domain" if s == "4K" else "mixed" for s in ("4K", "8K", "16K") for d in SMALL.domains},
        ("32K", "all"): "shared"}
    by = {(r["scale"], r["domain"]): set(r["doc_ids"]) for r in ladder}
    for q in load(out, "queries"):
        assert set(q["ref_list"]) <= by[("4K", q["domain"])]
    for d in SMALL.domains:
        assert by[("4K", d)] <= by[("8K", d)] <= by[("16K", d)] <= by[("32K", "all")] <= by[("max", "all")]
    assert by[("32K", "all")] == set().union(*(by[("4K", d)] for d in SMALL.domains))
    for scale in ("4K", "8K", "16K", "32K"):
        for row in load(out, context_config(scale)):
            corpus = next(r for r in ladder if (r["scale"], r["domain"]) == (row["scale"], row["domain"]))
            assert len(qwen.encode(row["input"])) == row["n_tokens"] <= corpus["budget_tokens"] - corpus["reserve_tokens"]
            assert corpus["budget_tokens"] == scale_tokens(scale)


def test_bad_base_scale_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match="base_scale must be a scale from 1K to 64K"):
        EmbsBuild(base_scale="128K")
    with pytest.raises(SpecError, match="official release's ladder is the paper's, with 64K domain corpora"):
        EmbsBuild(hub="hub", base_scale="4K")


def _instructions(q: dict) -> tuple[str, str]:
    from generators.embs.prompts import instructions
    return instructions(q["query"])


WORLD = EmbsBuild(entities=300, twin_fraction=0.2, queries_per_domain=4, retrievers=("bm25",))
"""Check 4's world, composed once: every domain's 4 queries (single, Track 1 rewrites, Track 2 atomized
entities) from 300 entities; a larger twin share than the default 5% so a world this small has twins."""


@pytest.fixture(scope="module")
def composed(qwen):
    world = grow(WORLD.entities, WORLD.twin_fraction, WORLD.seed)
    spec = WORLD.query_spec()
    return world, *compose_queries(world, spec, "bm25", lambda t, x: Bank(t, x), WORLD.seed, qwen, False)


def test_oracle_guarantees(composed) -> None:
    """Check 4: ref docs state required facts, atomized pieces alone do not suffice, no tested doc states one, twins are hard negatives."""
    world, wbank, bank, queries, collisions, stages = composed
    solver = FactSolver(world.facts())
    langs = wbank.langs
    spec = WORLD.query_spec()
    orders = {d: candidate_order(world, d, WORLD.seed) for d in spec.domains}
    wants = {track: surplus(quota, spec.surplus) for track, quota in spec.quotas().items()}
    atoms, atomized = plan_atomization(world, solver, langs, orders, wants, WORLD.seed,
                                       Wording(spec.described_share, spec.reworded_share))
    assert atomized.keys() == {e.entity for e in wbank.entries if e.pieces}
    assert {q["track"] for q in queries} == {"none", "rewrite", "atomize"}  # the small world has every kind
    by_key = {f"embs/{q.key}": q for q in atoms}
    for q in queries:
        if q["track"] != "atomize":
            continue
        composed_query = by_key[q["qid"]]
        pieces = [e for e in wbank.entries if e.entity == composed_query.path[0]]
        required = set(composed_query.required)
        states = [set(stated_facts(world, e, langs[e.entity])) & required for e in pieces]
        assert all(s != required for s in states) and set().union(*states) == required
        for doc in q["ref_list"]:
            entry = wbank.entries[int(wbank.entry_of_doc[doc])]
            assert set(stated_facts(world, entry, langs[entry.entity])) & required
    labels = {(c["qid"], c["doc_id"]): c for c in collisions}
    twins = [c for c in collisions if c["origin"] == "twin"]
    assert twins and all(c["label"] == "hard_negative" for c in twins)
    for q in queries:
        assert all(labels[(q["qid"], d)]["label"] == "hard_negative" for d in q["hard_negatives"])
        assert not any(c["label"] == "conflict" for (qid, _), c in labels.items() if qid == q["qid"])
    assert stages.conflicts == 0


def test_no_query_is_answered_by_one_document_or_by_its_own_question(composed) -> None:
    """Issue 39: a multi-source query needs every reference (A.1.2) and a single-source one has one. With every
    entity a near neighbour, today's spouse paths are on offer: "Who was the father of the spouse of X?" is answered
    by the spouse's article alone (it names X as spouse and states the father), "the spouse of the spouse of X" is
    X. Each composed query is checked against what every article of the world states, either direction; queries that
    describe their entity ("the novelist who was born in Lolan") are checked with the description's facts."""
    world, wbank, *_ = composed
    solver = FactSolver(world.facts())
    statements = [set(with_mirrors(world.facts_of[e])) for e in range(len(world.entities))]
    everyone = lambda _: range(len(world.entities))
    spouses = sum(1 for e in range(len(world.entities)) for f in world.facts_of[e] if f.relation == "spouse")
    assert spouses >= 20, "the test world has marriages to tempt the composer"
    made: Counter = Counter()
    for entity in range(len(world.entities)):
        if world.entities[entity].twin_of is not None:
            continue
        wording = Wording(described_share=1.0, reworded_share=0.5)
        for query in (rewrite_query(world, solver, entity, wbank.langs, "x", WORLD.seed, everyone, set(), wording),
                      single_query(world, solver, entity, wbank.langs[entity], "x", WORLD.seed, wording)):
            if query is None:
                continue
            made[query.track] += 1
            made[query.mention] += 1
            made[query.wording] += 1
            alone = [e for e, stated in enumerate(statements) if set(query.required) <= stated]
            assert alone == ([query.path[0]] if query.track == "none" else []), (query.query, query.answer, alone)
            stating = {e for f in query.required for e, stated in enumerate(statements) if f in stated}
            assert stating == set(query.path), (query.query, stating)
            assert query.answer.casefold() not in query.query.casefold()
            assert "spouse>person" not in query.hops
    assert made["rewrite"] >= 20 and made["none"] >= 50 and made["description"] >= 50 and made["name"] >= 20
    assert made["reworded"] >= 20 and made["article"] >= 20


def test_the_card_gives_the_track_1_hop_mix_of_the_release(release: Path) -> None:
    """Issue 39: the card records which relations Track 1's first hops walk (never a spouse), counted from the rows."""
    firsts = sorted(q["hop_ids"][0] for q in load(release, "queries") if q["track"] == "rewrite")
    card = (release / "README.md").read_text(encoding="utf-8")
    line = next(line for line in card.splitlines() if "Track 1's first hops in this release:" in line)
    assert firsts and all(f"`{hop}` {firsts.count(hop)}" in line for hop in set(firsts)) and "spouse" not in line


def test_evidence_rules_on_hand_made_facts() -> None:
    """Symmetric evidence: a spouse's article states the marriage too, so it is a false negative (A.1.3) and a
    query asking it has two documents that answer; a Track 1 path through a spouse is answered by the spouse alone."""
    married = Fact(1, "spouse", 2, "2022")
    assert oracle_label([married], [Fact(2, "spouse", 1, "2022")]) == "false_negative"
    assert oracle_label([married], [Fact(3, "spouse", 1, "2022")]) == "conflict"
    assert oracle_label([married], [Fact(2, "born_in", 7, "1990")]) == "hard_negative"
    assert not needs_every_reference([married], [1])
    assert not needs_every_reference([married, Fact(2, "born_in", 7, "1990")], [1, 2])
    assert needs_every_reference([Fact(1, "father", 2, None), Fact(2, "born_in", 7, "1990")], [1, 2])
    assert needs_every_reference([Fact(1, "born_in", 7, "1990")], [1])
    assert answer_in_question("Who was the spouse of the spouse of Ann?", "Ann", 1, (1, 2))
    assert answer_in_question("Where is Ann's company?", "Ann's company", 9, (1,))
    assert not answer_in_question("Who was the father of Ann?", "Bob", 3, (1,))


def test_injected_conflict_drops_its_query(composed, qwen, monkeypatch) -> None:
    """Check 4: a document stating a required (subject, relation) with another object drops the query."""
    world, _, _, clean, _, _ = composed  # the clean composition of this world and query spec
    spec = QuerySpec(per_domain=4)
    assert spec == WORLD.query_spec()
    bank_of = lambda t, x: Bank(t, x)
    victim = clean[0]
    real = embs_world.stated_facts

    def poisoned(world_, entry, lang):
        facts = real(world_, entry, lang)
        if entry.entity == victim["entity_id"] + 10**9:
            return facts
        return facts + [Fact(victim["entity_id"], r.relation, -1, r.time) for r in world_.facts_of[victim["entity_id"]][:3]]

    monkeypatch.setattr(embs_world, "stated_facts", poisoned)
    *_, queries, _, stages = compose_queries(world, spec, "bm25", bank_of, WORLD.seed, qwen, False)
    assert victim["qid"] not in {q["qid"] for q in queries} and stages.conflicts >= 1


class HashingEncoder:
    """A deterministic bag-of-words encoder with sentence-transformers' ``encode`` signature (no model download)."""

    prompts: dict[str, str] = {}

    def encode(self, texts: Sequence[str], **_: object) -> np.ndarray:
        from builders.retrieval.bm25 import tokenize
        from builders.retrieval.ladder import cjk_bigrams
        vectors = hashed_bag_of_words(tokenize([cjk_bigrams(t) for t in texts]))
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def _ladder(release: Path) -> list[Corpus]:
    return [Corpus(r["scale"], r["tier"], r["domain"], r["budget_tokens"], r["reserve_tokens"], r["corpus_tokens"],
                   r["next_tokens"], np.asarray(r["doc_ids"], dtype=np.int64)) for r in load(release, "ladder")]


def test_gold_first_retriever_scores_one_everywhere(release: Path) -> None:
    """Check 6: a retriever that ranks the gold documents first scores R@1 = SR@10 = FR@10 = 1 at every scale."""
    queries = load(release, "queries").to_list()
    gold_of = {q["query"]: set(q["ref_list"]) for q in queries}

    def gold_first(corpus: np.ndarray) -> Callable[[Sequence[str]], np.ndarray]:
        return lambda texts: np.array([[1.0 if d in gold_of[t] else 0.0 for d in corpus.tolist()] for t in texts],
                                      dtype=np.float32)

    ranked = []
    for corpus in _ladder(release):
        mine = [q for q in queries if corpus.domain in ("all", q["domain"])]
        ranked += rank_corpus("gold", gold_first, corpus, [q["qid"] for q in mine], [q["query"] for q in mine],
                              [q["ref_list"] for q in mine])
    rows = retrieval_rows(ranked)
    assert len(rows) == len({c.scale for c in _ladder(release)})
    assert all((r["r1"], r["sr10"], r["fr10"]) == (1.0, 1.0, 1.0) for r in rows)


def test_dense_recall_never_rises_with_scale(release: Path) -> None:
    """Check 6: masked dense scores over nested corpora make SR@10 and FR@10 non-increasing along the chain."""
    bank_rows = load(release, "memorybank")
    bank = Bank(bank_rows["title"], bank_rows["text"])
    bank._dense = DenseRetriever(bank_rows["title"], bank_rows["text"], render=lambda t, x: f"{t}\n{x}",
                                 model=HashingEncoder(), model_id="hashing-test")
    queries = load(release, "queries").to_list()
    rows = retrieval_rows(list(rank_ladder(["dense"], bank, _ladder(release), queries)))
    rows.sort(key=lambda r: scale_sort_key(r["scale"]))
    for metric in ("sr10", "fr10"):
        values = [r[metric] for r in rows]
        assert values == sorted(values, reverse=True), (metric, values)
    assert rows[0]["sr10"] > rows[-1]["sr10"]


@pytest.mark.parametrize("kept", [0, 2_000, ladder.ANALYSED_TERMS_KEPT], ids=["none-kept", "some-kept", "all-kept"])
def test_bm25_corpus_scores_are_those_of_an_index_of_the_corpus_texts(release: Path, monkeypatch, kept: int) -> None:
    """A ladder corpus's BM25 index is built from the bank's documents analysed once (as many as fit
    ANALYSED_TERMS_KEPT); its scores are those of an index of the corpus's own texts, bit for bit."""
    monkeypatch.setattr(ladder, "ANALYSED_TERMS_KEPT", kept)
    bank_rows = load(release, "memorybank")
    bank = Bank(bank_rows["title"], bank_rows["text"])
    queries = [q["query"] for q in load(release, "queries").to_list()[:8]]
    chosen = np.random.default_rng(kept).permutation(len(bank_rows))
    for size in (40, 80):  # nested, as the ladder's corpora are
        corpus = np.sort(chosen[:size])
        texts = BM25Retriever([bank_rows["title"][i] for i in corpus.tolist()], [bank_rows["text"][i] for i in corpus.tolist()],
                              render=ladder.bm25_document)
        expected = texts.score_all([ladder.cjk_bigrams(q) for q in queries])
        assert np.array_equal(bank.scorer("bm25")(corpus)(queries), expected)
    assert bank._terms_kept <= kept and (bank._terms_kept > 0) == (kept > 0)


def test_the_bank_index_is_its_texts_index_and_leaves_its_documents_analysed(release: Path, tmp_path: Path,
                                                                              monkeypatch) -> None:
    """The whole-bank BM25 index is written from the bank's own analysis (Bank.bm25_term_ids): file for file the
    cached index of the bank's texts, and a ladder corpus indexed afterwards analyses no document again. (The
    release's first 300 documents as the bank: any bank shows it.)"""
    bank_rows = load(release, "memorybank")
    titles, texts = list(bank_rows["title"])[:300], list(bank_rows["text"])[:300]
    bank = Bank(titles, texts, cache_dir=str(tmp_path / "bank"))
    of_texts = BM25Retriever(titles, texts, render=ladder.bm25_document, cache=RetrievalCache(str(tmp_path / "texts")))
    of_terms = bank.bm25.postings.folder
    assert of_terms.parent.parent.parent == tmp_path / "bank" and not bank.bm25.loaded_from_cache
    files = sorted(p.name for p in of_texts.postings.folder.iterdir())
    assert files == sorted(p.name for p in of_terms.iterdir())
    for name in files:
        assert (of_terms / name).read_bytes() == (of_texts.postings.folder / name).read_bytes(), name

    def analysis_again(texts: Sequence[str]) -> list[list[str]]:
        raise AssertionError(f"{len(texts)} bank documents analysed again")
    monkeypatch.setattr(ladder, "tokenize", analysis_again)
    corpus = np.arange(0, len(titles), 3)
    queries = [q["query"] for q in load(release, "queries").to_list()[:4]]
    assert bank.scorer("bm25")(corpus)(queries).shape == (len(queries), len(corpus))


def test_render_entry_pieces_partition_the_article(composed) -> None:
    world, wbank, *_ = composed
    entity = next(e.entity for e in wbank.entries if e.pieces)
    pieces = [e for e in wbank.entries if e.entity == entity]
    whole = render_entry(world, type(pieces[0])(entity), wbank.langs[entity])[1]
    assert "\n\n".join(render_entry(world, p, wbank.langs[entity])[1] for p in pieces) == whole


def test_bank_texts_render_on_demand_as_a_sequence(composed, qwen) -> None:
    """The world bank holds no texts: ``titles``/``texts`` render a document from the world when indexed."""
    world, wbank, *_ = composed
    n = len(wbank.texts)
    assert not isinstance(wbank.texts, list) and len(wbank.titles) == n
    doc = n // 2
    entry = wbank.entries[int(wbank.entry_of_doc[doc])]
    title, text = render_entry(world, entry, wbank.langs[entry.entity])
    assert (wbank.titles[doc], wbank.texts[doc]) == (qwen.normalize(title), qwen.normalize(text))
    assert wbank.texts[-1] == wbank.texts[n - 1] and wbank.titles[1:3] == [wbank.titles[1], wbank.titles[2]]
    assert list(zip(wbank.titles, wbank.texts))[doc] == (wbank.titles[doc], wbank.texts[doc])
    with pytest.raises(IndexError, match="document .* out of range"):
        wbank.texts[n]


def test_the_card_names_the_dense_model_only_when_one_ran(release: Path) -> None:
    """Issue 39: the card says which dense model made the dense rows; the demo ran BM25 alone, so it names none
    rather than the default it never loaded."""
    card = (release / "README.md").read_text(encoding="utf-8")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert "dense" not in manifest["build"]["args"]["retrievers"]
    assert "This release's dense model: none (no dense retriever ran)." in " ".join(card.split())
