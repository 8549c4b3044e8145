"""RULERv2 multi-key and multi-value NIAH, basic level: key-value needle lines fill the context.

Every line of the context is "One of the special magic numbers for {key} is: {value}."; keys
are unique within a sample, so exactly one key (the queried one) owns the answer value(s). For
``mv_niah`` the queried key has ``n_values`` lines at independent random depths. Under the
``paper`` preset every distractor key of ``mv_niah`` also has ``n_values`` lines (with distinct
values), scattered at random, as NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare_niah.py``
builds its haystack with ``--num_needle_v 4``; only the lines cut at the budget's edge break a group.

Cost: keys and values are drawn as mixed-radix codes without replacement (unique by
construction), their token counts are predicted with array arithmetic from piece counts measured
once per build (key words, 1-3 digit groups, the template), and only the lines that can fit are
formatted, so a sample costs little more than its one verifying encode.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from string import Formatter

import numpy as np

from generators.budget import (
    DigitCounts,
    PieceCounts,
    TokenBudget,
    render_alone,
    units_that_fit,
)
from generators.haystack import Frame, fill_haystack, needle_renderer
from generators.rulerv2.spec import BENCHMARK, NiahBasicSpec
from generators.rulerv2.templates import NIAH_BASIC, NiahTemplate
from generators.seeding import rng_for
from needlework.errors import SpecError
from needlework.tokens import TokenCounter

_CODE_LIMIT = 2**62


def _is_key_word(word: str) -> bool:
    return word.isascii() and word.isalpha() and word.islower()


@dataclass(frozen=True)
class KeyWords:
    """The vocabulary of word keys: adjectives and nouns (RULER draws both from wonderwords).

    Only lower-case ASCII alphabetic words are kept, so a hyphen-joined key splits back unambiguously.
    """

    adjectives: tuple[str, ...]
    nouns: tuple[str, ...]

    @classmethod
    def from_lists(cls, adjectives: Sequence[str], nouns: Sequence[str]) -> KeyWords:
        """Clean, de-duplicate and sort two word lists into a vocabulary."""
        def clean(words: Sequence[str]) -> tuple[str, ...]:
            return tuple(sorted({w.strip() for w in words if _is_key_word(w.strip())}))

        vocab = cls(clean(adjectives), clean(nouns))
        if not vocab.adjectives or not vocab.nouns:
            raise SpecError("key words need at least one lower-case adjective and one noun")
        return vocab


def draw_unique(rng: np.random.Generator, radices: Sequence[int], n: int, what: str = "items") -> np.ndarray:
    """``n`` distinct tuples of digits in the given radices (most significant first), as rows (``what`` names
    them in the error when the space is too small).

    When the tuple space fits in an int64 the tuples are drawn as codes without replacement;
    otherwise rows are drawn and de-duplicated (collisions are then vanishingly rare).
    """
    space = int(np.prod([int(r) for r in radices], dtype=object))
    if n > space:
        raise SpecError(f"cannot draw {n:,} distinct {what} from a space of {space:,}")
    if space < _CODE_LIMIT:
        codes = rng.choice(space, size=n, replace=False)
        rows = np.empty((n, len(radices)), dtype=np.int64)
        for col in range(len(radices) - 1, -1, -1):
            codes, rows[:, col] = np.divmod(codes, radices[col])
        return rows

    def draw(m: int) -> np.ndarray:
        return np.stack([rng.integers(0, r, m) for r in radices], axis=1)

    rows = draw(n)
    while True:
        _, first = np.unique(rows, axis=0, return_index=True)
        if len(first) >= n:
            return rows[np.sort(first)[:n]]
        rows = np.concatenate([rows, draw(n - len(first) + 8)])


def _needle_pieces(template: NiahTemplate) -> tuple[str, str, str]:
    """The literal text before the key, between key and value, and after the value."""
    parsed = list(Formatter().parse(template.needle))
    fields = [f for _, f, _, _ in parsed if f is not None]
    if fields != ["key", "value"]:
        raise SpecError(f"a needle template needs {{key}} then {{value}}, got fields {fields}")
    return parsed[0][0], parsed[1][0], (parsed[2][0] if len(parsed) > 2 else "") + "\n"


class _Lines:
    """Draws, prices and formats the needle lines of one spec; prices are measured once per build."""

    def __init__(self, spec: NiahBasicSpec, template: NiahTemplate, words: KeyWords, tokens: TokenCounter) -> None:
        self.spec, self.words, self.tokens = spec, words, tokens
        self.pre, self.mid, self.post = _needle_pieces(template)
        self.adj_dash = [a + "-" for a in words.adjectives]
        pieces = PieceCounts(tokens)
        self.digits = DigitCounts(pieces)
        k = spec.options.key_length
        if spec.options.key_kind == "digits":
            self.key_radices = (9, *([10] * (k - 1)))
        else:
            self.key_radices = (*([len(words.adjectives)] * (k - 1)), len(words.nouns))
            # A key's first word carries the space before it; later words carry their hyphen.
            first_words = words.nouns if k == 1 else words.adjectives
            self.first_word = pieces.counts([" " + w for w in first_words])
            self.adj_join = pieces.counts(["-" + w for w in words.adjectives]) if k > 2 else np.zeros(0, np.int64)
            self.noun_join = pieces.counts(["-" + w for w in words.nouns]) if k > 1 else np.zeros(0, np.int64)
        self.value_radices = (9, *([10] * (spec.options.value_digits - 1)))
        ref_key, ref_value = np.zeros((1, len(self.key_radices)), np.int64), np.zeros((1, len(self.value_radices)), np.int64)
        ref_line = self.format(ref_key, ref_value)[0]
        self.base = pieces.count(ref_line) - int(self.key_tokens(ref_key)[0]) - int(self.value_tokens(ref_value)[0])
        self.shortest = max(1, self.base + self._shortest_key() + self.digits.minimum(spec.options.value_digits))

    def key_tokens(self, rows: np.ndarray) -> np.ndarray:
        """Predicted tokens of each key, with the space before it."""
        if self.spec.options.key_kind == "digits":
            return self.digits.predict(_as_digits(rows))
        total = self.first_word[rows[:, 0]].copy()
        if rows.shape[1] > 1:
            total += self.adj_join[rows[:, 1:-1]].sum(axis=1) + self.noun_join[rows[:, -1]]
        return total

    def value_tokens(self, rows: np.ndarray) -> np.ndarray:
        """Predicted tokens of each value."""
        return self.digits.predict(_as_digits(rows))

    def _shortest_key(self) -> int:
        """A lower bound on any key's predicted tokens, so a sample draws no more lines than fit."""
        if self.spec.options.key_kind == "digits":
            return self.digits.minimum(self.spec.options.key_length)
        k = self.spec.options.key_length
        middle = (k - 2) * int(self.adj_join.min()) if k > 2 else 0
        return int(self.first_word.min()) + middle + (int(self.noun_join.min()) if k > 1 else 0)

    def _word_heads(self, rows: np.ndarray) -> list[str]:
        """Each word key up to its noun: ``"adj-"`` repeated (empty for one-word keys)."""
        adj_dash = self.adj_dash
        heads = [""] * len(rows)
        for col in rows[:, :-1].T.tolist():
            heads = [h + adj_dash[i] for h, i in zip(heads, col)]
        return heads

    def key_text(self, rows: np.ndarray) -> list[str]:
        """Key strings of drawn rows."""
        if self.spec.options.key_kind == "digits":
            return list(map(str, _numbers(rows)))
        nouns = self.words.nouns
        return [h + nouns[i] for h, i in zip(self._word_heads(rows), rows[:, -1].tolist())]

    def format(self, key_rows: np.ndarray, value_rows: np.ndarray) -> list[str]:
        """Needle lines, each ending in a newline, built in one pass per line."""
        pre, mid, post = self.pre, self.mid, self.post
        values = _numbers(value_rows)
        if self.spec.options.key_kind == "digits":
            return [f"{pre}{k}{mid}{v}{post}" for k, v in zip(_numbers(key_rows), values)]
        nouns = self.words.nouns
        heads = self._word_heads(key_rows)
        return [f"{pre}{h}{nouns[n]}{mid}{v}{post}" for h, n, v in zip(heads, key_rows[:, -1].tolist(), values)]


def _as_digits(rows: np.ndarray) -> np.ndarray:
    """Digit rows of numbers drawn with radices (9, 10, ...): the first digit is 1-9."""
    digits = rows.copy()
    digits[:, 0] += 1
    return digits


def _numbers(rows: np.ndarray) -> list[int] | list[str]:
    """The numbers of digit rows: ints when they fit in int64 (formatting them later is cheaper
    than making strings now), else their digit strings."""
    digits = _as_digits(rows)
    width = digits.shape[1]
    if width <= 18:
        return (digits @ (10 ** np.arange(width - 1, -1, -1, dtype=np.int64))).tolist()
    return np.ascontiguousarray((digits + 48).astype(np.uint8)).view(f"S{width}").ravel().astype(str).tolist()


def generate(
    spec: NiahBasicSpec, *, seed: int, tokens: TokenCounter, words: KeyWords
) -> Iterator[dict]:
    """Rows of one basic NIAH config: ``spec.options.samples`` per length, lengths in the given order.

    Args:
        spec: The task and its options.
        seed: Build seed; each row's RNG comes from (seed, benchmark, config, row key).
        tokens: The build's tokenizer; budgets and ``n_tokens`` are exact under it.
        words: Key vocabulary (the builder reads RULER's wonderwords lists).

    Yields:
        Rows with ``id``, ``input``, ``answers`` (the queried key's values in text order),
        ``query``, ``answer_prefix``, ``task``, ``level``, ``order`` and ``qid`` (None here),
        ``shots`` (0), ``source`` (``synthetic``), ``target_tokens`` (0 for golden rows),
        ``n_tokens``, ``generation_reserve``, ``tokenizer``, ``n_items``, ``golden`` and
        ``needles`` (text, char and token offset, realized depth in percent of context tokens).
        With ``options.golden``, the golden-context rows (the needle lines alone) follow.
    """
    template = NIAH_BASIC[spec.task]
    lines = _Lines(spec, template, words, tokens)
    for length in spec.options.lengths:
        budget = TokenBudget(length, spec.options.generation_reserve)
        for index in range(spec.options.samples):
            yield _sample(spec, template, lines, budget, seed, f"len={length}/i={index:04d}")
    if spec.options.golden:
        for index in range(spec.options.samples):
            yield _sample(spec, template, lines, None, seed, f"golden/i={index:04d}")


def _sample(spec: NiahBasicSpec, template: NiahTemplate, lines: _Lines, budget: TokenBudget | None, seed: int, key_id: str) -> dict:
    rng = rng_for(seed, BENCHMARK, spec.config_name, key_id)
    k = spec.values_per_key
    repeats = spec.key_repeats
    n_cap = 0 if budget is None else budget.limit // lines.shortest + 1
    # Distractor line j uses key 1 + j // repeats: unique keys (repeats 1), or under the paper preset
    # every distractor key on ``values_per_key`` lines, as prepare_niah.py builds its haystack keys.
    try:
        keys = draw_unique(rng, lines.key_radices, n_cap + 1 if repeats == 1 else -(-n_cap // repeats) + 1, "keys")
        values = draw_unique(rng, lines.value_radices, n_cap + k, "values")
    except SpecError as err:  # a length so long that its haystack lines run out of distinct keys or values
        raise SpecError(f"{spec.config_name}/{key_id}: {err}; ask for shorter lengths, or longer keys and values "
                        "(--key-length, --value-digits)") from None
    depths = rng.uniform(0.0, 100.0, k).tolist()
    key_tokens, value_tokens = lines.key_tokens(keys), lines.value_tokens(values)
    needles = lines.format(keys[[0] * k], values[:k])
    needle_tokens = lines.base + key_tokens[0] + value_tokens[:k]
    key_of = 1 + np.arange(n_cap) // repeats
    unit_tokens = lines.base + (key_tokens[1:] if repeats == 1 else key_tokens[key_of]) + value_tokens[k:]

    query = lines.key_text(keys[:1])[0]
    frame = Frame(
        prefix=template.intro + "\n",
        suffix=template.question.format(key=query) + template.answer_prefix.format(key=query),
    )
    if budget is None:
        fitted = render_alone(needle_renderer([], np.zeros(0, np.int64), needles, depths, frame), lines.tokens)
    else:
        frame_tokens = lines.tokens.count(frame.prefix) + lines.tokens.count(frame.suffix)
        # Format only the lines that can fit, with a margin for corrections.
        fit = units_that_fit(unit_tokens, budget.limit - frame_tokens - int(needle_tokens.sum()))
        n_make = min(len(unit_tokens), fit + fit // 50 + 16)
        units = lines.format(keys[key_of[:n_make]], values[k : k + n_make])
        unit_tokens = unit_tokens[:n_make]
        if repeats > 1:
            # prepare_niah.py shuffles its haystack lines after truncating the repeated key list:
            # shuffle the lines that fit, keep the margin lines (dropped first) at the end.
            head = min(fit, n_make)
            order = np.concatenate([rng.permutation(head), np.arange(head, n_make)])
            units, unit_tokens = [units[i] for i in order.tolist()], unit_tokens[order]
        fitted = fill_haystack(
            units, unit_tokens, needles, needle_tokens, depths, frame, frame_tokens, budget, lines.tokens
        )
    order = sorted(range(k), key=lambda i: fitted.placements[i].char_offset)
    needle_values = [str(v) for v in _numbers(values[:k])]
    return {
        "id": f"{BENCHMARK}/{spec.config_name}/{key_id}",
        "input": fitted.rendered.text,
        "answers": [needle_values[i] for i in order],
        "query": query,
        "answer_prefix": template.answer_prefix.format(key=query),
        "task": spec.task,
        "level": "basic",
        "order": None,
        "shots": 0,
        "source": "synthetic",
        "qid": None,
        "target_tokens": 0 if budget is None else budget.target_tokens,
        "n_tokens": fitted.n_tokens,
        "generation_reserve": spec.options.generation_reserve,
        "tokenizer": lines.tokens.name,
        "n_items": fitted.n_units + k,
        "golden": budget is None,
        "needles": [
            {
                "text": needles[i].rstrip("\n"),
                "char_offset": fitted.placements[i].char_offset,
                "token_offset": fitted.placements[i].token_offset,
                "depth_percent": fitted.placements[i].depth_percent,
                "source_id": None,
            }
            for i in order
        ],
    }
