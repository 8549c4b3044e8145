"""EMB-S's pure parts: scales, metrics (A.5 worked examples, spec §9 check 5), the oracle, the ladder on arrays."""

from __future__ import annotations

import re

import numpy as np
import pytest

from generators.embs.calibration import difficulty, keep_distinct
from generators.embs.collisions import Verdict, apply_verdicts, oracle_label
from generators.embs.ladder import build_ladder
from generators.embs.prompts import localize_prompt, render_document, serialize_corpus
from generators.embs.scoring import (
    canonicalize_ids,
    fr_at_k,
    mean_defined,
    r_at_1,
    sr_at_k,
)
from generators.embs.spec import (
    DOMAIN_SCALES,
    SHARED_SCALE,
    LadderSpec,
    QuerySpec,
    global_scales,
    scale_label,
    scale_tokens,
)
from generators.embs.world_bank import BankEntries, Entry, EntryDocIds
from generators.world.model import Fact
from needlework.errors import BudgetError, SpecError
from needlework.lengths import parse_tokens


def test_metric_worked_examples() -> None:
    """Spec §9 check 5: G={1,2}, R=[2,9,1] -> SR@10=1, FR@10=1, SR@1=0.5; G={5}, R=[3,5] -> R@1=0, SR@10=1."""
    assert sr_at_k([2, 9, 1], [1, 2], 10) == 1.0
    assert fr_at_k([2, 9, 1], [1, 2], 10) == 1.0
    assert sr_at_k([2, 9, 1], [1, 2], 1) == 0.5
    assert fr_at_k([2, 9, 1], [1, 2], 1) == 0.0
    assert r_at_1([3, 5], [5]) == 0.0 and sr_at_k([3, 5], [5], 10) == 1.0
    assert r_at_1([2, 9], [1, 2]) is None and fr_at_k([5], [5], 10) is None
    assert canonicalize_ids("IDs: 12, 7, 12, 3", 2) == [12, 7]
    assert canonicalize_ids("none", 3) == []
    # FR is averaged over |G| > 1 only: the single-source None is left out of the mean.
    assert mean_defined([fr_at_k([1], [1], 10), fr_at_k([1, 2], [1, 2], 10), fr_at_k([1], [1, 3], 10)]) == (0.5, 2)


def test_scale_labels_are_read_in_any_case() -> None:
    """Issue 41: a ladder scale is a label, not a token count (64K is 64 x 1,024 tokens, or 64 x 1,000 with --decimal),
    read in any case: ``64k`` is ``64K`` (it was refused); any other form is refused in one line."""
    assert scale_label("64k") == scale_label("64K") == scale_label(" 64K ") == "64K"
    assert (scale_label("1m"), scale_label("326m"), scale_label("MAX"), scale_label("064K")) == ("1M", "326M", "max", "64K")
    assert scale_tokens(scale_label("64k")) == parse_tokens("64ki") and scale_tokens(scale_label("64k"), 1000) == parse_tokens("64k")
    for bad in ("64", "64kb", "1.5M", "64Ki", "0K", "-1K", "", "maximum"):
        with pytest.raises(SpecError, match=rf"^scale {re.escape(repr(bad))} is not a ladder label: write <n>K or <n>M in any case"):
            scale_label(bad)


def test_scales() -> None:
    assert scale_tokens("64K") == 65_536 and scale_tokens("64K", 1000) == 64_000 and scale_tokens("1M") == 1_048_576
    with pytest.raises(SpecError, match="<n>K or <n>M"):
        scale_tokens("64k tokens")
    assert global_scales(5_000_000) == ("1M", "2M", "4M", "max")
    assert global_scales(40_000_000)[-4:] == ("16M", "30M", "32M", "max")
    assert QuerySpec(per_domain=24).quotas() == {"none": 12, "rewrite": 6, "atomize": 6}
    assert QuerySpec(per_domain=5).quotas() == {"none": 2, "rewrite": 2, "atomize": 1}


def test_oracle_labels_and_stage_three() -> None:
    """Spec §9 check 4 on the oracle alone: a contradicting statement is a conflict that drops the query."""
    required = [Fact(3, "born_in", 10, "1950-03-14"), Fact(10, "located_in", 20, None)]
    assert oracle_label(required, [Fact(3, "born_in", 10, "1950-03-14")]) == "false_negative"
    assert oracle_label(required, [Fact(3, "born_in", 11, "1950-03-14")]) == "conflict"
    assert oracle_label(required, [Fact(3, "born_in", 10, "1951-03-14")]) == "conflict"
    assert oracle_label(required, [Fact(4, "born_in", 10, "1950-03-14"), Fact(3, "spouse", 7, None)]) == "hard_negative"
    verdicts = [Verdict(8, 2, 0.5, "hard_negative", "oracle", "retrieved"), Verdict(9, 1, 0.6, "false_negative", "oracle", "retrieved"),
                Verdict(7, 5, 0.1, "hard_negative", "oracle", "twin")]
    tested = apply_verdicts([1], verdicts)
    assert tested == apply_verdicts([1], verdicts[::-1])
    assert (tested.ref_list, tested.hard_negatives, tested.dropped) == ((1, 9), (8, 7), False)
    assert apply_verdicts([1], [*verdicts, Verdict(6, 3, 0.2, "conflict", "oracle", "retrieved")]).dropped


def test_dedup_and_difficulty() -> None:
    vectors = np.array([[1.0, 0.0], [0.999, 0.01], [0.0, 1.0], [0.0, 0.0]])
    assert keep_distinct(vectors, 0.95).tolist() == [True, False, True, True]
    assert [difficulty(r) for r in ([1, 10], [3, 100], [101])] == ["easy", "medium", "hard"]


def test_serialization_is_prefix_shared() -> None:
    corpus = serialize_corpus([render_document(7, "T", "x"), render_document(12, "U", "y")])
    assert corpus == "[DocID=7]\nT\nx\n\n[DocID=12]\nU\ny\n\n"
    assert localize_prompt(corpus, "q?", 3).startswith(corpus + "Question: q?\n")


def _toy_ladder(seed: int = 0, spec: LadderSpec | None = None, shrink: int = 1):
    """Eight domains of 3,000 documents in all; ``shrink`` divides document sizes (for a smaller base scale)."""
    rng = np.random.default_rng(5)
    tokens = rng.integers(500, 3000, size=3000).astype(np.int64) // shrink
    domains = (np.arange(3000) % 8).astype(np.int8)
    names = ("medical", "history", "education", "math", "literature", "law", "technology", "finance")
    gold = {d: [i * 8 + k for i in range(5)] for k, d in enumerate(names)}
    negatives = {d: [i * 8 + k for i in range(5, 9)] for k, d in enumerate(names)}
    reserves = {d: 1500 for d in (*names, "all")}
    return build_ladder(tokens, domains, names, gold, negatives, reserves, spec or LadderSpec(), seed, names), tokens, gold


@pytest.mark.parametrize(("spec", "shrink", "global_tiers"), [
    (LadderSpec(), 1, ["1M", "2M", "4M", "max"]),
    (LadderSpec(base_scale="4K"), 16, ["max"]),  # OURS: a 4K base; the bank (~330K) is under 1M
], ids=["64K", "4K"])
def test_ladder_nests_fits_and_is_maximal(spec: LadderSpec, shrink: int, global_tiers: list[str]) -> None:
    """Spec §9 checks 2-3 on arrays: nesting, gold in C_d^B, the mixing rule, budgets, maximality (B = 64K or 4K)."""
    ladder, tokens, gold = _toy_ladder(spec=spec, shrink=shrink)
    base, middle, top = spec.domain_scales
    shared = spec.shared_scale
    by = {(c.scale, c.domain): set(c.doc_ids.tolist()) for c in ladder}
    names = sorted({c.domain for c in ladder if c.domain != "all"})
    assert {(c.scale, c.tier) for c in ladder if c.tier != "global"} == {
        (base, "domain"), (middle, "mixed"), (top, "mixed"), (shared, "shared")}
    for d in names:
        assert set(gold[d]) <= by[(base, d)]
        assert by[(base, d)] <= by[(middle, d)] <= by[(top, d)] <= by[(shared, "all")]
        others = set().union(*(by[(base, o)] for o in names if o != d))
        assert by[(top, d)] - by[(base, d)] <= others
    assert by[(shared, "all")] == set().union(*(by[(base, d)] for d in names))
    globals_ = [c for c in ladder if c.tier == "global"]
    assert [c.scale for c in globals_] == global_tiers
    for small, big in zip(globals_, globals_[1:]):
        assert set(small.doc_ids.tolist()) <= set(big.doc_ids.tolist())
    assert by[("max", "all")] == set(range(len(tokens)))
    for c in ladder:
        assert len(set(c.doc_ids.tolist())) == len(c.doc_ids)
        assert c.corpus_tokens == int(tokens[c.doc_ids].sum())
        if c.tier != "shared" and c.scale != "max":
            limit = c.budget_tokens - c.reserve_tokens
            assert c.corpus_tokens <= limit < c.corpus_tokens + c.next_tokens


def test_ladder_is_seeded() -> None:
    a, _, _ = _toy_ladder(0)
    b, _, _ = _toy_ladder(0)
    c, _, _ = _toy_ladder(1)
    assert all(np.array_equal(x.doc_ids, y.doc_ids) for x, y in zip(a, b))
    assert any(not np.array_equal(x.doc_ids, y.doc_ids) for x, y in zip(a, c))


def test_gold_that_does_not_fit_names_the_domain() -> None:
    tokens = np.full(100, 20_000, dtype=np.int64)
    domains = np.zeros(100, dtype=np.int8)
    with pytest.raises(BudgetError, match=r"domain medical: its 4 gold documents need 80,000 tokens, but its 64K corpus has 64,512 available"):
        build_ladder(tokens, domains, ("medical",), {"medical": [0, 1, 2, 3]}, {}, {"medical": 1024, "all": 1024},
                     LadderSpec(), 0, ("medical",))
    with pytest.raises(BudgetError, match=r"its 1 gold documents need 20,000 tokens, but its 8K corpus has 7,168 available"):
        build_ladder(tokens, domains, ("medical",), {"medical": [0]}, {}, {"medical": 1024, "all": 1024},
                     LadderSpec(base_scale="8K"), 0, ("medical",))


def test_base_scale_labels_the_domain_and_shared_tiers() -> None:
    """The paper's base (64K) is the default; a base B gives tiers B, 2B, 4B and the shared 8B (OURS below 64K)."""
    assert LadderSpec().base_scale == "64K"
    assert (LadderSpec().domain_scales, LadderSpec().shared_scale) == (DOMAIN_SCALES, SHARED_SCALE)
    assert (LadderSpec(base_scale="4K").domain_scales, LadderSpec(base_scale="4K").shared_scale) == (("4K", "8K", "16K"), "32K")
    assert LadderSpec(base_scale="8K", unit=1000).shared_scale == "64K"


@pytest.mark.parametrize("base", ["128K", "0K", "4k", "064K", "1M", "max", ""])
def test_bad_base_scale_is_a_spec_error(base: str) -> None:
    with pytest.raises(SpecError, match=f"base_scale must be a scale from 1K to 64K written <n>K .*got '{base}'"):
        LadderSpec(base_scale=base)


def test_generation_reserve_is_below_half_the_base() -> None:
    with pytest.raises(SpecError, match=r"generation_reserve must be in \[0, 1,024\) tokens \(half the 2K base corpus\), got 1024"):
        LadderSpec(base_scale="2K")
    assert LadderSpec(base_scale="2K", generation_reserve=512).domain_scales == ("2K", "4K", "8K")
    with pytest.raises(SpecError, match=r"\[0, 32,768\)"):
        LadderSpec(generation_reserve=32_768)


def test_bank_entries_list_whole_articles_and_pieces_in_entity_order() -> None:
    """The array-backed entries read as the documents of the bank: entity 1 in two pieces, 3 in one, 4 in none."""
    entries = BankEntries(5, {1: [(0, 2), (2, 5)], 3: [(0, 1)], 4: []})
    assert list(entries) == [Entry(0), Entry(1, 1, 2, (0, 2)), Entry(1, 2, 2, (2, 5)), Entry(2), Entry(3, 1, 1, (0, 1))]
    assert entries[-1] == Entry(3, 1, 1, (0, 1)) and entries[1:3] == [Entry(1, 1, 2, (0, 2)), Entry(1, 2, 2, (2, 5))]
    doc_ids = EntryDocIds(entries, np.array([40, 41, 42, 43, 44]))
    assert dict(doc_ids) == {(0, 0): 40, (1, 1): 41, (1, 2): 42, (2, 0): 43, (3, 1): 44}
    assert (1, 0) not in doc_ids and (1, 3) not in doc_ids and (4, 0) not in doc_ids and (5, 0) not in doc_ids
    with pytest.raises(KeyError):
        doc_ids[(3, 0)]
