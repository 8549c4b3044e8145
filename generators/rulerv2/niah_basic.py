"""RULERv2 multi-key and multi-value NIAH, basic level: key-value needle lines fill the context.

Every line of the context is "One of the special magic numbers for {key} is: {value}."; keys
are unique within a sample, so exactly one key (the queried one) owns the answer value(s). For
``mv_niah`` the queried key has ``n_values`` lines at independent random depths. Line token
counts are predicted from piece counts measured once per build (key words, 1-3 digit groups and
the template), so each sample costs one verifying encode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from generators.budget import DigitCounts, PieceCounts, TokenBudget
from generators.errors import SpecError
from generators.haystack import Frame, fill_haystack
from generators.rulerv2.spec import NiahBasicSpec
from generators.rulerv2.templates import NIAH_BASIC, NiahTemplate
from generators.seeding import rng_for
from generators.tokens import TokenCounter

BENCHMARK = "rulerv2"


@dataclass(frozen=True)
class KeyWords:
    """The vocabulary of word keys: adjectives and nouns (RULER draws both from wonderwords).

    Only lower-case ASCII alphabetic words are kept, so a hyphen-joined key splits back unambiguously.
    """

    adjectives: tuple[str, ...]
    nouns: tuple[str, ...]

    @classmethod
    def from_lists(cls, adjectives: Sequence[str], nouns: Sequence[str]) -> "KeyWords":
        """Clean, de-duplicate and sort two word lists into a vocabulary."""
        def clean(words: Sequence[str]) -> tuple[str, ...]:
            return tuple(sorted({w.strip() for w in words if _is_key_word(w.strip())}))

        vocab = cls(clean(adjectives), clean(nouns))
        if not vocab.adjectives or not vocab.nouns:
            raise SpecError("key words need at least one lower-case adjective and one noun")
        return vocab


def _is_key_word(word: str) -> bool:
    return word.isascii() and word.isalpha() and word.islower()


@dataclass(frozen=True)
class _Keys:
    """Drawn keys (or values) of one sample: their strings and predicted token counts."""

    text: list[str]
    tokens: np.ndarray


class _LinePricing:
    """Predicted token counts of needle lines, from pieces counted once per build."""

    def __init__(self, spec: NiahBasicSpec, template: NiahTemplate, words: KeyWords, tokens: TokenCounter) -> None:
        pieces = PieceCounts(tokens)
        self.spec, self.template, self.words, self.tokens = spec, template, words, tokens
        self.digits = DigitCounts(pieces)
        self.adj_lead = pieces.counts([" " + w for w in words.adjectives])
        self.adj_join = pieces.counts(["-" + w for w in words.adjectives])
        self.noun_lead = pieces.counts([" " + w for w in words.nouns])
        self.noun_join = pieces.counts(["-" + w for w in words.nouns])
        ref_key = self._draw_keys(np.random.default_rng(0), 1)
        ref_value = self._draw_digits(np.random.default_rng(0), 1, spec.value_digits)
        ref_line = self.line(ref_key.text[0], ref_value.text[0])
        self.base = pieces.count(ref_line) - int(ref_key.tokens[0]) - int(ref_value.tokens[0])
        shortest_key = (
            int(self.noun_lead.min()) if spec.key_length == 1 else int(self.adj_lead.min())
        ) if spec.key_kind == "words" else 1
        self.min_line_tokens = max(1, self.base + shortest_key + 1)

    def line(self, key: str, value: str) -> str:
        """One needle line with its newline."""
        return self.template.needle.format(key=key, value=value) + "\n"

    def key_space(self) -> int:
        """How many distinct keys the spec can draw."""
        k = self.spec.key_length
        if self.spec.key_kind == "digits":
            return 9 * 10 ** (k - 1)
        return len(self.words.adjectives) ** (k - 1) * len(self.words.nouns)

    def _draw_keys(self, rng: np.random.Generator, n: int) -> _Keys:
        if self.spec.key_kind == "digits":
            return self._draw_digits(rng, n, self.spec.key_length)
        adjs, nouns, k = self.words.adjectives, self.words.nouns, self.spec.key_length

        def draw(m: int) -> np.ndarray:
            cols = [rng.integers(0, len(adjs), m) for _ in range(k - 1)]
            return np.stack([*cols, rng.integers(0, len(nouns), m)], axis=1)

        rows = _unique_rows(draw, n)
        text = ["-".join([*(adjs[a] for a in r[:-1]), nouns[r[-1]]]) for r in rows.tolist()]
        if k == 1:
            tok = self.noun_lead[rows[:, 0]]
        else:
            tok = self.adj_lead[rows[:, 0]] + self.adj_join[rows[:, 1:-1]].sum(axis=1) + self.noun_join[rows[:, -1]]
        return _Keys(text, tok)

    def _draw_digits(self, rng: np.random.Generator, n: int, width: int) -> _Keys:
        def draw(m: int) -> np.ndarray:
            d = rng.integers(0, 10, (m, width))
            d[:, 0] = rng.integers(1, 10, m)
            return d

        rows = _unique_rows(draw, n)
        text = np.ascontiguousarray((rows + 48).astype(np.uint8)).view(f"S{width}").ravel().astype(str).tolist()
        return _Keys(text, self.digits.predict(rows))

    def draw(self, rng: np.random.Generator, n_keys: int, n_values: int) -> tuple[_Keys, _Keys]:
        """``n_keys`` unique keys and ``n_values`` unique values for one sample."""
        if n_keys > self.key_space():
            raise SpecError(
                f"{self.spec.key_kind} keys of length {self.spec.key_length} allow only "
                f"{self.key_space()} distinct keys, but a sample needs up to {n_keys}; use longer keys"
            )
        if n_values > 9 * 10 ** (self.spec.value_digits - 1):
            raise SpecError(f"value_digits={self.spec.value_digits} cannot give {n_values} distinct values")
        return self._draw_keys(rng, n_keys), self._draw_digits(rng, n_values, self.spec.value_digits)


def _unique_rows(draw: Callable[[int], np.ndarray], n: int) -> np.ndarray:
    """The first ``n`` distinct rows, in drawing order, drawing more while duplicates remain."""
    rows = draw(n)
    while True:
        _, first = np.unique(rows, axis=0, return_index=True)
        if len(first) >= n:
            return rows[np.sort(first)[:n]]
        rows = np.concatenate([rows, draw(n - len(first) + 8)])


def generate(
    spec: NiahBasicSpec, *, seed: int, tokens: TokenCounter, words: KeyWords
) -> Iterator[dict]:
    """Rows of one basic NIAH config: ``spec.samples`` per length, lengths in the given order.

    Args:
        spec: The task and its options.
        seed: Build seed; each row's RNG comes from (seed, benchmark, config, row key).
        tokens: The build's tokenizer; budgets and ``n_tokens`` are exact under it.
        words: Key vocabulary (the builder reads RULER's wonderwords lists).

    Yields:
        Rows with ``id``, ``input``, ``answers`` (the queried key's values in text order),
        ``query``, ``answer_prefix``, ``task``, ``level``, ``target_tokens``, ``n_tokens``,
        ``generation_reserve``, ``tokenizer``, ``n_lines`` and ``needles`` (text, char and
        token offset, realized depth in percent of context tokens).
    """
    template = NIAH_BASIC[spec.task]
    pricing = _LinePricing(spec, template, words, tokens)
    for length in spec.lengths:
        budget = TokenBudget(length, spec.generation_reserve)
        for index in range(spec.samples):
            yield _sample(spec, template, pricing, budget, seed, index)


def _sample(
    spec: NiahBasicSpec,
    template: NiahTemplate,
    pricing: _LinePricing,
    budget: TokenBudget,
    seed: int,
    index: int,
) -> dict:
    key_id = f"len={budget.target_tokens}/i={index:04d}"
    rng = rng_for(seed, BENCHMARK, spec.config_name, key_id)
    k = spec.values_per_key
    n_cap = budget.limit // pricing.min_line_tokens + 1
    keys, values = pricing.draw(rng, n_cap + 1, n_cap + k)
    query = keys.text[0]
    needle_values = values.text[:k]
    needles = [pricing.line(query, v) for v in needle_values]
    needle_tokens = pricing.base + keys.tokens[0] + values.tokens[:k]
    units = [pricing.line(key, v) for key, v in zip(keys.text[1:], values.text[k:])]
    unit_tokens = pricing.base + keys.tokens[1:] + values.tokens[k:]
    depths = rng.uniform(0.0, 100.0, k).tolist()
    frame = Frame(
        prefix=template.intro + "\n",
        suffix=template.question.format(key=query) + template.answer_prefix.format(key=query),
    )
    frame_tokens = pricing.tokens.count(frame.prefix) + pricing.tokens.count(frame.suffix)
    fitted = fill_haystack(units, unit_tokens, needles, needle_tokens, depths, frame, frame_tokens, budget, pricing.tokens)
    order = sorted(range(k), key=lambda i: fitted.placements[i].char_offset)
    return {
        "id": f"{BENCHMARK}/{spec.config_name}/{key_id}",
        "input": fitted.rendered.text,
        "answers": [needle_values[i] for i in order],
        "query": query,
        "answer_prefix": template.answer_prefix.format(key=query),
        "task": spec.task,
        "level": "basic",
        "target_tokens": budget.target_tokens,
        "n_tokens": fitted.n_tokens,
        "generation_reserve": budget.generation_reserve,
        "tokenizer": pricing.tokens.name,
        "n_lines": fitted.n_units + k,
        "needles": [
            {
                "text": needles[i].rstrip("\n"),
                "char_offset": fitted.placements[i].char_offset,
                "token_offset": fitted.placements[i].token_offset,
                "depth_percent": fitted.placements[i].depth_percent,
            }
            for i in order
        ],
    }
