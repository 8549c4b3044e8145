"""Filler text as sentences with exact token counts, read cyclically from any sentence.

Each document is normalized, split at sentence ends (both scripts, :func:`generators.text.split_sentences`)
and encoded once; a sentence's token count is the number of tokens that start inside it, so the
counts of consecutive sentences add up to the tokens of their concatenation (up to the few tokens
that merge where a needle or a wrap-around joins two pieces, which :func:`generators.budget.fit_prompt`
absorbs). Documents are separated by a blank line. A haystack longer than the filler wraps around
to its first sentence, as the NIAH test repeats its essays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from needlework.errors import SpecError
from generators.text import split_sentences
from needlework.tokens import TokenCounter

DOCUMENT_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Filler:
    """Sentences of filler text in reading order and each sentence's tokens.

    Attributes:
        source: A label of where the text came from (``paul_graham_essays``, ``world``, ...).
        lang: Its language.
        sentences: The sentences; each keeps its trailing whitespace, the last of a document ends
            with :data:`DOCUMENT_SEPARATOR`, so concatenation needs no joiner.
        tokens: Token count of each sentence (int64).
        document_starts: Index of each document's first sentence, in reading order.
    """

    source: str
    lang: str
    sentences: tuple[str, ...]
    tokens: np.ndarray
    document_starts: tuple[int, ...] = (0,)

    @classmethod
    def from_documents(cls, documents: Sequence[str], *, source: str, lang: str, tokens: TokenCounter) -> "Filler":
        """Split and count ``documents`` (one encode each); empty documents are skipped."""
        sentences: list[str] = []
        counts: list[np.ndarray] = []
        document_starts: list[int] = []
        for document in documents:
            text = tokens.normalize(document.strip())
            if not text:
                continue
            text += DOCUMENT_SEPARATOR
            parts = split_sentences(text, line_breaks=False)
            _, starts = tokens.encode_with_offsets(text)
            bounds = np.cumsum([0, *map(len, parts)])
            counts.append(np.diff(np.searchsorted(starts, bounds, side="left")).astype(np.int64))
            document_starts.append(len(sentences))
            sentences += parts
        if not sentences:
            raise SpecError(f"filler {source!r} ({lang}) has no text")
        return cls(source, lang, tuple(sentences), np.concatenate(counts), tuple(document_starts))

    def random_start(self, rng: np.random.Generator, *, at_document: bool) -> int:
        """Where a haystack's filler begins: any sentence, or (``at_document``) a document's first sentence, as
        OpenCompass's NeedleBench loaders concatenate shuffled records from their start
        (``opencompass/datasets/needlebench_v2/origin.py``, a5acc4bb). One draw from ``rng`` either way."""
        if at_document:
            return self.document_starts[int(rng.integers(len(self.document_starts)))]
        return int(rng.integers(len(self.sentences)))

    @property
    def total_tokens(self) -> int:
        """Tokens of the whole filler."""
        return int(self.tokens.sum())

    def window(self, start: int, at_least: int) -> tuple[list[str], np.ndarray]:
        """Sentences from sentence ``start`` on, wrapping around, until they hold ``at_least`` tokens.

        Returns the sentences and their token counts, the last sentence being the one that
        reaches ``at_least`` (so a budget of ``at_least`` can never use all of them up).
        """
        n = len(self.sentences)
        rotated = np.concatenate((self.tokens[start:], self.tokens[:start]))
        cumulative = np.cumsum(rotated)
        total = int(cumulative[-1])
        if total <= 0:
            raise SpecError(f"filler {self.source!r} ({self.lang}) has no tokens")
        passes, rest = divmod(max(at_least, 0), total)
        count = passes * n + int(np.searchsorted(cumulative, rest, side="left")) + 1
        index = (start + np.arange(count)) % n
        return [self.sentences[i] for i in index.tolist()], self.tokens[index]
