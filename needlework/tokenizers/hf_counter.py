"""A ``TokenCounter`` on top of a Hugging Face ``tokenizer.json`` (the ``tokenizers`` library)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tokenizers import Encoding, Tokenizer

from needlework.errors import TokenizerError
from needlework.hub import hub_errors
from needlework.tokenizers._common import canonical_sha256, repair_surrogates

# The sections that decide which ids a text gets once added tokens and post-processing are off.
FINGERPRINT_SECTIONS = ("model", "normalizer", "pre_tokenizer")

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def resolve_hf_target(target: str) -> tuple[str, Path | None]:
    """Map what follows ``hf:`` to the canonical spec and, for local files, the tokenizer.json.

    An existing path (file, or folder holding ``tokenizer.json``) is local; ``Org/Model`` that is
    not a path is a Hub id; anything else that looks like a path is an error now rather than a
    slow failed download later.

    Args:
        target: The spec without its ``hf:`` prefix.

    Returns:
        ``(canonical spec, path)``; path is None for a Hub id.

    Raises:
        TokenizerError: The path does not exist or the folder has no tokenizer.json.
    """
    spec = f"hf:{target}"
    path = Path(target).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
        if not path.is_file():
            raise TokenizerError(f"tokenizer {spec!r}: folder has no tokenizer.json: {path.resolve()}")
    if path.is_file():
        return f"hf:{path.resolve()}", path.resolve()
    if _HUB_ID.fullmatch(target) and not target.endswith(".json"):
        return spec, None
    raise TokenizerError(f"tokenizer {spec!r}: file not found: {path.absolute()}")


def download_tokenizer_json(repo_id: str) -> Path:
    """Fetch ``tokenizer.json`` of a Hub model (or take it from the Hugging Face cache).

    Args:
        repo_id: ``Org/Model``.

    Returns:
        Local path of the downloaded file.

    Raises:
        TokenizerError: The download failed and the file is not cached.
    """
    from huggingface_hub import hf_hub_download

    with hub_errors(f"tokenizer 'hf:{repo_id}': cannot get its tokenizer.json", TokenizerError):
        return Path(hf_hub_download(repo_id, "tokenizer.json"))


class HFTokenizerCounter:
    """Counts tokens with a Hugging Face fast tokenizer loaded from a ``tokenizer.json``.

    The counter ignores the file's added tokens, post-processor, truncation and padding: added
    tokens (special or not) would otherwise be matched inside the text, which the ``TokenCounter``
    contract forbids and the fingerprint does not cover; the post-processor only adds special
    tokens and may trim offsets. Ids therefore depend only on ``model``, ``normalizer`` and
    ``pre_tokenizer``, the sections the fingerprint hashes. Offsets refer to the caller's text
    (the library maps them back through its normalizer).

    Attributes:
        name: Canonical spec, ``hf:/abs/path/tokenizer.json`` or ``hf:Org/Model``.
        fingerprint: sha256 over the canonical JSON of the ``model``, ``normalizer`` and
            ``pre_tokenizer`` sections.
        path: The tokenizer.json the counter was built from.
    """

    def __init__(self, name: str, path: str | Path) -> None:
        """Load ``path`` and prepare the tokenizer.

        Args:
            name: Canonical spec the counter is known by.
            path: A ``tokenizer.json`` file.

        Raises:
            TokenizerError: The file cannot be read, is not JSON or is not a valid tokenizer.
        """
        self.name = name
        self.path = Path(path)
        try:
            config = json.loads(self.path.read_text(encoding="utf-8"))
        except OSError as error:
            raise TokenizerError(f"tokenizer {name!r}: cannot read {self.path}: {error.strerror}") from error
        except ValueError as error:
            raise TokenizerError(f"tokenizer {name!r}: {self.path} is not valid JSON: {error}") from error
        if not isinstance(config, dict) or not isinstance(config.get("model"), dict):
            raise TokenizerError(f"tokenizer {name!r}: {self.path} has no 'model' section")
        self.fingerprint = canonical_sha256({key: config.get(key) for key in FINGERPRINT_SECTIONS})
        config.update(added_tokens=[], post_processor=None, truncation=None, padding=None)
        try:
            self._tokenizer = Tokenizer.from_str(json.dumps(config))
        except Exception as error:  # the Rust side raises a bare Exception for invalid configs
            raise TokenizerError(f"tokenizer {name!r}: {self.path} is not a valid tokenizer: {error}") from error

    def __repr__(self) -> str:
        return f"HFTokenizerCounter(name={self.name!r}, fingerprint={self.fingerprint[:12]!r})"

    def _encode(self, text: str) -> Encoding:
        try:
            return self._tokenizer.encode(text, add_special_tokens=False)
        except TypeError:
            # The binding rejects strings it cannot UTF-8 encode, i.e. ones with surrogates.
            return self._tokenizer.encode(repair_surrogates(text), add_special_tokens=False)

    def normalize(self, text: str) -> str:
        """``text`` unchanged: Hugging Face offsets already refer to the caller's characters."""
        return text

    def encode(self, text: str) -> np.ndarray:
        """Token ids of ``text``.

        Args:
            text: Any string; surrogates are repaired as in ``TiktokenCounter``.

        Returns:
            1-D uint32 array of token ids.
        """
        return np.array(self._encode(text).ids, dtype=np.uint32)

    def encode_with_offsets(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and the character offset in ``text`` where each token starts.

        Args:
            text: Any string.

        Returns:
            ``(ids, offsets)``: uint32 ids and int64 character offsets.
        """
        return self.with_offsets(self.encode_native(text))

    def encode_native(self, text: str) -> Encoding:
        """The ``tokenizers.Encoding`` of ``text`` (no special tokens added)."""
        return self._encode(text)

    def with_offsets(self, native: Encoding) -> tuple[np.ndarray, np.ndarray]:
        """Ids and character offsets from :meth:`encode_native`'s ``Encoding``."""
        starts = np.array(native.offsets, dtype=np.int64).reshape(-1, 2)[:, 0]
        return np.array(native.ids, dtype=np.uint32), starts

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        """Text of ``ids`` through the file's decoder.

        Args:
            ids: Token ids from this counter.

        Returns:
            The decoded string.
        """
        return self._tokenizer.decode(np.asarray(ids, dtype=np.int64).tolist(), skip_special_tokens=False)

    def count(self, text: str) -> int:
        """Number of tokens in ``text``.

        Args:
            text: Any string.

        Returns:
            ``len(self.encode(text))``.
        """
        return len(self._encode(text).ids)

    def count_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Token counts of many texts, encoded in parallel by the library.

        Args:
            texts: Strings to count.

        Returns:
            int64 array of counts, in the order of ``texts``.
        """
        try:
            encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        except TypeError:
            encodings = self._tokenizer.encode_batch([repair_surrogates(t) for t in texts], add_special_tokens=False)
        return np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
