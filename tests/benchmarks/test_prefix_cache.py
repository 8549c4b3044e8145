"""benchmarks/prefix_cache.py, the sequential model of vLLM's prefix caching that
``benchmarks/eval_overhead.py --sections embs-prefix`` runs: exact token counts on small prompts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

# benchmarks/ is a folder of scripts, not a package: load the module from its file.
_spec = importlib.util.spec_from_file_location(
    "prefix_cache", Path(__file__).resolve().parents[2] / "benchmarks" / "prefix_cache.py")
assert _spec is not None and _spec.loader is not None
prefix_cache = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prefix_cache)

BLOCK = prefix_cache.BLOCK_SIZE


def prompt(ids: list[int]) -> tuple[list[int], int]:
    return prefix_cache.block_hashes(ids), len(ids)


A = list(range(48))  # 3 full blocks
B = list(range(1000, 1048))
C = list(range(2000, 2048))


def test_block_hashes_are_chained_by_prefix():
    assert BLOCK == 16
    first, second = prefix_cache.block_hashes(A[:32] + [7] * 21), prefix_cache.block_hashes(A[:32] + [8] * 21)
    assert len(first) == 3 == len(second)  # 53 tokens: 3 full blocks, 5 tokens without a hash
    assert first[:2] == second[:2] and first[2] != second[2]
    # The same block after a different prefix hashes differently.
    assert prefix_cache.block_hashes(B[:16] + A[16:32])[1] != prefix_cache.block_hashes(A[:32])[1]
    assert prefix_cache.block_hashes(list(range(15))) == []


def test_block_hashes_continue_a_chain():
    corpus, instruction = list(range(40)), list(range(500, 530))
    head = prefix_cache.block_hashes(corpus)
    tail = prefix_cache.block_hashes(corpus[len(head) * BLOCK:] + instruction, parent=head[-1])
    assert head + tail == prefix_cache.block_hashes(corpus + instruction)
    short = list(range(5))
    assert prefix_cache.block_hashes(short + instruction, parent=0) == prefix_cache.block_hashes(short + instruction)


def test_a_shared_prefix_is_computed_once():
    shared, other = A[:32] + list(range(100, 121)), A[:32] + list(range(200, 221))  # 53 tokens each
    assert prefix_cache.simulate([prompt(shared), prompt(other)], capacity=10) == [53, 53 - 32]


def test_a_partial_trailing_block_is_always_computed():
    aligned, ragged = A, A + [9, 9]
    # A fully cached block-aligned prompt recomputes its last block (vLLM needs one token's logits).
    assert prefix_cache.simulate([prompt(aligned), prompt(aligned)], capacity=10) == [48, 16]
    assert prefix_cache.simulate([prompt(ragged), prompt(ragged)], capacity=10) == [50, 2]
    # The partial block is never cached: a longer prompt over the same 20 tokens reuses 16.
    assert prefix_cache.simulate([prompt(A[:20]), prompt(A[:40])], capacity=10) == [20, 24]


def test_eviction_takes_the_least_recent_prompt_tail_first():
    cache = prefix_cache.PrefixCache(4)
    assert [cache.run(*prompt(ids)) for ids in (A, B, A)] == [48, 48, 32]
    # B took the empty block and A's last two; A's first block survived (blocks are freed last first).
    assert cache.evicted == 2 + 2  # then A's rerun took B's last two blocks
    assert prefix_cache.simulate([prompt(ids) for ids in (A, B, A)], capacity=6) == [48, 48, 16]


def test_lru_keeps_the_prompt_used_last():
    # A is used again after B, so C evicts B, not A.
    assert prefix_cache.simulate([prompt(ids) for ids in (A, B, A, C, A)], capacity=6) == [48, 48, 16, 48, 16]
    assert prefix_cache.simulate([prompt(ids) for ids in (A, B, C, A)], capacity=6) == [48, 48, 48, 48]


def test_a_prompt_must_fit_and_match_its_hashes():
    with pytest.raises(ValueError, match="needs 4 blocks; the cache holds 3"):
        prefix_cache.simulate([prompt(A + [1])], capacity=3)
    assert prefix_cache.simulate([prompt(A + [1])], capacity=4) == [49]
    with pytest.raises(ValueError, match="block hashes for a prompt of 48 tokens"):
        prefix_cache.PrefixCache(4).run(prefix_cache.block_hashes(A[:32]), 48)
    with pytest.raises(ValueError):
        prefix_cache.PrefixCache(0)
