"""The tokenizer interface that generators are given (they never load one themselves)."""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np


@runtime_checkable
class TokenCounter(Protocol):
    """Counts, encodes and decodes text for one exact tokenizer.

    Attributes:
        name: Stable spec-like name, e.g. ``"qwen2.5"`` or ``"hf:/path/tokenizer.json"``.
        fingerprint: sha256 (hex) over the vocabulary, merges and pre-tokenization rules, so two
            counters with the same fingerprint give the same ids for every string.

    All counts exclude special tokens (``add_special_tokens=False``): special-token strings inside
    the text are encoded as ordinary text.
    """

    name: str
    fingerprint: str

    def normalize(self, text: str) -> str:
        """``text`` as the tokenizer sees it before splitting (NFC for Qwen; unchanged for most).

        Character offsets from :meth:`encode_with_offsets` are positions in this string.
        """
        ...

    def encode(self, text: str) -> np.ndarray:
        """Token ids of ``text`` as a 1-D integer array."""
        ...

    def encode_with_offsets(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and, per token, the character offset in ``normalize(text)`` where it starts.

        A token that starts inside a multi-byte character maps to that character's offset.
        Offsets are non-decreasing; ``offsets[i]`` is the first character covered by token ``i``.
        """
        ...

    def encode_native(self, text: str) -> Any:
        """The tokenizer's own result for ``text``, computed with as little Python work as it allows.

        The first half of :meth:`encode_with_offsets`, which is ``with_offsets(encode_native(text))``:
        a worker thread can run it while the calling thread does other work (tiktoken and HF
        tokenizers release the GIL while they tokenize), leaving the conversion to the caller.
        A counter may keep state per thread for it (tiktoken keeps an encoder copy), so it is
        meant for long-lived threads such as :func:`generators.pipeline.encoded_ahead`'s worker.
        """
        ...

    def with_offsets(self, native: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`encode_with_offsets` of the text that :meth:`encode_native` was given."""
        ...

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        """Text of the given ids."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...

    def count_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Token counts of many texts at once (int64 array, same order)."""
        ...
