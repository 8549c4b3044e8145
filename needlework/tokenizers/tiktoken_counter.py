"""A ``TokenCounter`` on top of ``tiktoken``: byte-level BPE from a ranks file and a split regex."""

from __future__ import annotations

import array
import base64
import binascii
import hashlib
import os
import threading
import unicodedata
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np
import tiktoken

from needlework.errors import TokenizerError
from needlework.tokenizers._common import canonical_sha256

Normalization = Literal["NFC"]

# Below this much text, starting threads costs more than it saves.
_THREADED_MIN_CHARS = 65_536
_max_threads = 8


def max_threads() -> int:
    """The most threads one :meth:`TiktokenCounter.count_batch` call uses (also capped by ``os.cpu_count()``)."""
    return _max_threads


def set_max_threads(threads: int) -> int:
    """Cap the threads of every later :meth:`TiktokenCounter.count_batch` call in this process; returns the old cap.

    For a process that owns fewer CPUs than ``os.cpu_count()`` reports: a Ray task given one CPU
    (``num_cpus=1``) would otherwise run one thread per CPU of the node, and 16 such workers on a
    16-CPU node 128 threads. Counts do not depend on it.

    Raises:
        ValueError: ``threads`` is below 1.
    """
    global _max_threads
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    previous, _max_threads = _max_threads, threads
    return previous


def parse_ranks(vocab: bytes) -> dict[bytes, int]:
    """Parse a tiktoken ranks file (lines ``base64token rank``) into ``{token bytes: rank}``.

    Args:
        vocab: The uncompressed file content.

    Returns:
        The mergeable ranks, as ``tiktoken.Encoding`` expects them.

    Raises:
        ValueError: A line is not ``base64token rank``, or a token or rank repeats (tiktoken
            would panic on a repeated rank rather than raise).
    """
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(vocab.splitlines(), start=1):
        if not line:
            continue
        try:
            encoded, rank_text = line.split()
            token, rank = base64.b64decode(encoded, validate=True), int(rank_text)
        except (ValueError, binascii.Error) as error:
            raise ValueError(f"line {number} is not 'base64token rank': {line[:60]!r}") from error
        if token in ranks or rank < 0:
            raise ValueError(f"line {number} repeats a token or has a negative rank: {line[:60]!r}")
        ranks[token] = rank
    if not ranks:
        raise ValueError("no tokens")
    if len(set(ranks.values())) != len(ranks):
        raise ValueError("some ranks repeat")
    return ranks


def _owned_encoding(name: str, pattern: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    """A tiktoken encoder that has already encoded once in the calling thread, so its regex's fast
    match cache belongs to this thread (see :meth:`TiktokenCounter.encode_native`)."""
    encoding = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    encoding.encode_ordinary("owner")
    return encoding


_C_UINT32 = array.array("I").itemsize == 4
"""Whether C's unsigned int is 32 bits here (it is on every platform numpy supports; checked, not assumed)."""


def _id_array(ids: list[int]) -> np.ndarray:
    """Token ids as a uint32 array, through ``array.array`` (C unsigned ints): 1.6 ms for 125K ids against 5.2 ms
    for ``np.fromiter`` with a known count, which was itself ~20% faster than ``np.array``."""
    if _C_UINT32:
        return np.frombuffer(array.array("I", ids), dtype=np.uint32)
    return np.fromiter(ids, dtype=np.uint32, count=len(ids))


class TiktokenCounter:
    """Counts tokens with a tiktoken BPE built from a ranks file, a split regex and a normalizer.

    No special tokens are registered, so strings such as ``<|endoftext|>`` in the text are
    encoded as ordinary text. With ``normalization="NFC"`` the text is NFC-normalized before
    encoding (as Hugging Face's Qwen2 tokenizer does), and the offsets returned by
    ``encode_with_offsets`` refer to the normalized text; for text that is already NFC, as most
    text is, that is the caller's string.

    Attributes:
        name: Canonical spec, e.g. ``"qwen2.5"``.
        fingerprint: sha256 over kind, split pattern, normalization and the ranks file's sha256.
        vocab_sha256: sha256 of the uncompressed ranks file.
        normalization: ``"NFC"`` or None.
    """

    def __init__(
        self,
        name: str,
        vocab: bytes,
        pattern: str,
        normalization: Normalization | None = None,
    ) -> None:
        """Build the encoder.

        Args:
            name: Canonical spec the counter is known by.
            vocab: Uncompressed tiktoken ranks file content.
            pattern: Pre-tokenization regex (tiktoken's ``pat_str``).
            normalization: ``"NFC"`` to normalize text before encoding, or None.

        Raises:
            TokenizerError: The normalization is not supported, the ranks file is malformed or
                the pattern does not compile.
        """
        if normalization not in (None, "NFC"):
            raise TokenizerError(f"tokenizer {name!r}: normalization must be 'NFC' or None, not {normalization!r}")
        try:
            ranks = parse_ranks(vocab)
        except ValueError as error:
            raise TokenizerError(f"tokenizer {name!r}: malformed ranks file: {error}") from error
        try:
            self._encoding = _owned_encoding(name, pattern, ranks)
        except ValueError as error:
            raise TokenizerError(f"tokenizer {name!r}: cannot build the encoder: {error}") from error
        self._pattern = pattern
        self._ranks = ranks
        self._per_thread = threading.local()
        self._per_thread.encoding = self._encoding
        self.name = name
        self.normalization = normalization
        self.vocab_sha256 = hashlib.sha256(vocab).hexdigest()
        self.fingerprint = canonical_sha256(
            {
                "kind": "tiktoken",
                "pattern": pattern,
                "normalization": normalization,
                "vocab_sha256": self.vocab_sha256,
            }
        )
        # Per token id: how many characters start in its bytes (UTF-8 lead bytes), and whether it
        # starts inside a character; character offsets are then two gathers and one cumsum.
        ids = np.fromiter(ranks.values(), dtype=np.int64, count=len(ranks))
        sizes = np.fromiter(map(len, ranks), dtype=np.int64, count=len(ranks))
        lead = (np.frombuffer(b"".join(ranks), dtype=np.uint8) & 0xC0) != 0x80
        firsts = np.cumsum(sizes) - sizes
        self._token_leads = np.zeros(int(ids.max()) + 1, dtype=np.int64)
        self._token_leads[ids] = np.add.reduceat(lead.astype(np.int64), firsts)
        self._token_opens_mid = np.zeros(int(ids.max()) + 1, dtype=np.int64)
        self._token_opens_mid[ids] = ~lead[firsts]

    def __repr__(self) -> str:
        return f"TiktokenCounter(name={self.name!r}, fingerprint={self.fingerprint[:12]!r})"

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the per-thread encoders (a ``threading.local`` does not pickle)."""
        return {key: value for key, value in self.__dict__.items() if key != "_per_thread"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._per_thread = threading.local()
        self._per_thread.encoding = self._encoding

    def normalize(self, text: str) -> str:
        """``text`` in the form the encoder sees: NFC when the counter normalizes, else unchanged.

        Offsets from :meth:`encode_with_offsets` are positions in this string.
        """
        # is_normalized is a quick check that avoids copying the (usually already NFC) text.
        if self.normalization == "NFC" and not unicodedata.is_normalized("NFC", text):
            return unicodedata.normalize("NFC", text)
        return text

    def _count_normalized(self, texts: Sequence[str]) -> list[int]:
        return [len(self._encoding.encode_ordinary(text)) for text in texts]

    def encode(self, text: str) -> np.ndarray:
        """Token ids of ``text``.

        ``encode_ordinary`` plus a copy into numpy is used rather than ``encode_to_numpy``: the
        latter goes through tiktoken's special-token-aware path, measured 1.6-1.8x slower even
        with no special tokens registered.

        Args:
            text: Any string; surrogates are repaired as tiktoken does (pairs joined, lone ones
                become U+FFFD).

        Returns:
            1-D uint32 array of token ids.
        """
        return _id_array(self._encoding.encode_ordinary(self.normalize(text)))

    def encode_with_offsets(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and the character offset where each token starts, computed without decoding.

        Offsets refer to the NFC-normalized text when the counter normalizes (and to the repaired
        text if it had surrogates). A token that starts inside a multi-byte character gets that
        character's offset.

        Args:
            text: Any string.

        Returns:
            ``(ids, offsets)``: uint32 ids and non-decreasing int64 character offsets.
        """
        return self.with_offsets(self.encode_native(text))

    def encode_native(self, text: str) -> list[int]:
        """tiktoken's id list for ``text`` (normalized first), with this thread's own encoder.

        tiktoken releases the GIL while encoding, so a worker thread can run this beside Python
        work (:func:`generators.pipeline.encoded_ahead`). Its split regex, though, keeps a fast
        match cache only for the first thread that uses it; any other thread takes one from a
        locked pool at every match, which measured 15-20 % slower on 512-needle ATC prompts. So a
        thread other than the one that built the counter encodes with a copy of its own, built
        on its first call (about 45 ms and 12 MB for cl100k_base): only long-lived threads, such
        as the encode-ahead worker, should call this.
        """
        encoding = getattr(self._per_thread, "encoding", None)
        if encoding is None:
            encoding = self._per_thread.encoding = _owned_encoding(self.name, self._pattern, self._ranks)
        return encoding.encode_ordinary(self.normalize(text))

    def with_offsets(self, native: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Ids and character offsets from :meth:`encode_native`'s list."""
        ids = _id_array(native)
        leads = self._token_leads[ids]
        # A token's first character is the number of characters opened before it, one less when it
        # starts inside a character (that character's offset). tiktoken repairs surrogates before
        # encoding, so the characters counted are those of the repaired text.
        return ids, np.cumsum(leads) - leads - self._token_opens_mid[ids]

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        """Text of ``ids``; bytes that do not form whole characters become U+FFFD.

        Args:
            ids: Token ids from this counter.

        Returns:
            The decoded string.
        """
        return self._encoding.decode(np.asarray(ids, dtype=np.int64).tolist())

    def count(self, text: str) -> int:
        """Number of tokens in ``text``.

        Args:
            text: Any string.

        Returns:
            ``len(self.encode(text))``.
        """
        return len(self._encoding.encode_ordinary(self.normalize(text)))

    def count_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Token counts of many texts; large batches are split across one thread per CPU (at most :func:`max_threads`).

        tiktoken releases the GIL while encoding. One contiguous chunk per thread was measured
        1.6-1.9x faster than a plain loop on 2 cores, while ``encode_ordinary_batch`` (one task
        per text) was up to 4x slower than the loop on short texts.

        Args:
            texts: Strings to count.

        Returns:
            int64 array of counts, in the order of ``texts``.
        """
        normalized = [self.normalize(text) for text in texts]
        workers = min(os.cpu_count() or 1, _max_threads)
        if workers == 1 or sum(map(len, normalized)) < _THREADED_MIN_CHARS:
            return np.array(self._count_normalized(normalized), dtype=np.int64)
        size = -(-len(normalized) // workers)
        chunks = [normalized[start : start + size] for start in range(0, len(normalized), size)]
        with ThreadPoolExecutor(len(chunks)) as pool:
            counts = [n for chunk in pool.map(self._count_normalized, chunks) for n in chunk]
        return np.array(counts, dtype=np.int64)
