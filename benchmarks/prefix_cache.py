"""A sequential model of vLLM's automatic prefix caching: the prefill tokens an order of prompts costs.

Pure functions and one small class, no I/O; ``benchmarks/eval_overhead.py --embs-prefix`` feeds it
the token ids of EMB-S prompts in the harness's order and in naive orders. The model follows vLLM's
(v1) KV cache manager:

- A prompt's token ids are cut into blocks of ``block_size`` (16) tokens. Every *full* block gets a
  hash chained by prefix, ``hash((parent hash, block tokens))``, so one hash names the whole prefix
  up to the end of its block (:func:`block_hashes`). A partial trailing block has no hash: it is
  always computed and never reused.
- A prompt reuses the longest run of leading full blocks whose hashes are cached, at most
  ``(n - 1) // block_size`` blocks: vLLM recomputes the last token of a fully cached prompt to get
  its logits, so a block-aligned prompt whose every block is cached recomputes its last block. It
  computes every token after that run.
- The pool holds ``capacity`` blocks. A prompt holds ``ceil(n / block_size)`` of them while it runs:
  its cache hits and new blocks taken from the front of the free queue (least recently used first),
  evicting the cached prefix a taken block held. When it finishes, all its blocks go back to the
  end of the free queue, last block first (vLLM frees in reverse so a prefix's tail is evicted
  before its head), and its full blocks stay cached until evicted.

Simplifications: prompts run one at a time (no concurrency or batching, so nothing else holds
blocks); decode is ignored (the completion's blocks are neither allocated nor cached). Hashes are
Python's ``hash`` (64-bit, stable within one process), not vLLM's SHA-256; only equality matters.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np

BLOCK_SIZE = 16
"""vLLM's default KV cache block size in tokens."""


def blocks_for(n_tokens: int, block_size: int = BLOCK_SIZE) -> int:
    """Blocks that hold ``n_tokens`` tokens (a partial last block counts)."""
    return -(-n_tokens // block_size)


def block_hashes(ids: Sequence[int] | np.ndarray, block_size: int = BLOCK_SIZE, parent: int = 0) -> list[int]:
    """The chained hash of every full block of ``ids``: ``h[i] = hash((h[i-1], tokens of block i))``.

    Two prompts share ``h[i]`` exactly when they share their first ``(i + 1) * block_size`` tokens
    (up to hash collisions). The partial trailing block, if any, gets none. ``parent`` continues a
    chain: ``block_hashes(a + b) == block_hashes(a) + block_hashes(a[k:] + b, parent=h[-1])`` where
    ``h = block_hashes(a)``, ``k = len(h) * block_size`` and ``parent = h[-1]`` (0, the start, when
    ``h`` is empty).
    """
    tokens = np.asarray(ids, dtype=np.int64)
    full = len(tokens) // block_size
    rows = tokens[: full * block_size].reshape(full, block_size)
    hashes: list[int] = []
    for row in rows:
        parent = hash((parent, row.tobytes()))
        hashes.append(parent)
    return hashes


class PrefixCache:
    """A pool of ``capacity`` KV blocks with prefix caching and LRU eviction (module docstring)."""

    def __init__(self, capacity: int, block_size: int = BLOCK_SIZE) -> None:
        if capacity < 1 or block_size < 1:
            raise ValueError(f"capacity and block_size must be at least 1, got {capacity} and {block_size}")
        self.capacity, self.block_size = capacity, block_size
        # The free queue, least recently used first: slot -> the block hash it holds (None: empty or partial).
        self._free: OrderedDict[int, int | None] = OrderedDict((slot, None) for slot in range(capacity))
        self._cached: dict[int, int] = {}  # block hash -> the slot holding it
        self.evicted = 0
        """Cached blocks evicted so far."""

    def hit_blocks(self, hashes: Sequence[int], n_tokens: int) -> int:
        """Leading blocks of a prompt (its ``hashes``, ``n_tokens`` long) that the cache holds now."""
        limit = min(len(hashes), (n_tokens - 1) // self.block_size)
        hit = 0
        while hit < limit and hashes[hit] in self._cached:
            hit += 1
        return hit

    def run(self, hashes: Sequence[int], n_tokens: int) -> int:
        """Prefill one prompt of ``n_tokens`` tokens whose full blocks hash to ``hashes``; return the
        tokens it computes (the rest came from the cache), and leave its full blocks cached.

        Raises:
            ValueError: ``hashes`` does not match ``n_tokens``, or the prompt needs more blocks than
                the pool holds (vLLM would refuse it too).
        """
        if n_tokens < 1 or len(hashes) != n_tokens // self.block_size:
            raise ValueError(f"{len(hashes)} block hashes for a prompt of {n_tokens} tokens "
                             f"(want {n_tokens // self.block_size} full blocks of {self.block_size})")
        blocks = blocks_for(n_tokens, self.block_size)
        if blocks > self.capacity:
            raise ValueError(f"a prompt of {n_tokens} tokens needs {blocks} blocks; the cache holds {self.capacity}")
        hit = self.hit_blocks(hashes, n_tokens)
        held = [self._cached[h] for h in hashes[:hit]]
        for slot in held:  # in use: out of the free queue until the prompt finishes
            del self._free[slot]
        for _ in range(blocks - hit):
            slot, old = self._free.popitem(last=False)
            if old is not None and self._cached.get(old) == slot:
                del self._cached[old]
                self.evicted += 1
            held.append(slot)
        for index in range(hit, len(hashes)):
            self._cached[hashes[index]] = held[index]
        for index in range(len(held) - 1, -1, -1):  # freed last block first
            self._free[held[index]] = hashes[index] if index < len(hashes) else None
        return n_tokens - hit * self.block_size


def simulate(prompts: Iterable[tuple[Sequence[int], int]], capacity: int, block_size: int = BLOCK_SIZE) -> list[int]:
    """Tokens each prompt computes when ``prompts`` (``(block hashes, tokens)`` each) run in order
    through a fresh :class:`PrefixCache` of ``capacity`` blocks."""
    cache = PrefixCache(capacity, block_size)
    return [cache.run(hashes, n_tokens) for hashes, n_tokens in prompts]
