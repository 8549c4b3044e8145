"""Exact token counting for the tokenizers benchmarks are built for.

``load_tokenizer(spec)`` returns a ``needlework.tokens.TokenCounter``. Specs are the names in
``available_tokenizers()`` (byte-level BPE vocabularies shipped inside installed packages, run by
tiktoken) or ``hf:PATH_OR_HUB_ID`` for any Hugging Face ``tokenizer.json``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from needlework.errors import TokenizerError

if TYPE_CHECKING:
    from needlework.tokens import TokenCounter

__all__ = [
    "DEFAULT_TOKENIZER",
    "HFTokenizerCounter",
    "TiktokenCounter",
    "available_tokenizers",
    "canonical_spec",
    "load_tokenizer",
]

DEFAULT_TOKENIZER = "qwen2.5"

# The counters' modules import tiktoken, tokenizers and numpy; they are loaded on first use, so that a
# command line reading DEFAULT_TOKENIZER for its --help does not pay for them.
_LAZY = {"HFTokenizerCounter": "needlework.tokenizers.hf_counter", "TiktokenCounter": "needlework.tokenizers.tiktoken_counter"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def available_tokenizers() -> list[str]:
    """Return the canonical names of the named tokenizers, sorted.

    The list comes from the registry table, so it cannot drift from what ``load_tokenizer``
    accepts; loading one may still fail when none of its vocabulary files is installed.
    """
    from needlework.tokenizers.named import NAMED_ENCODINGS

    return sorted(entry.name for entry in NAMED_ENCODINGS)


def canonical_spec(spec: str) -> str:
    """Return the canonical form of ``spec``, the name its counter carries and is cached under.

    Aliases map to their canonical name; ``hf:`` paths to ``hf:`` plus the absolute path of the
    ``tokenizer.json`` (a folder is replaced by the file inside it); Hub ids stay ``hf:Org/Model``.

    Args:
        spec: A tokenizer spec.

    Returns:
        The canonical spec.

    Raises:
        TokenizerError: The spec is unknown, or names a local path that does not exist.
    """
    from needlework.tokenizers.hf_counter import resolve_hf_target
    from needlework.tokenizers.named import describe_names, named_entry

    if spec.startswith("hf:") and spec[3:]:
        return resolve_hf_target(spec[3:])[0]
    entry = named_entry(spec)
    if entry is None:
        raise TokenizerError(f"tokenizer {spec!r}: unknown; valid names: {describe_names()}, or hf:PATH_OR_HUB_ID")
    return entry.name


def load_tokenizer(spec: str = DEFAULT_TOKENIZER) -> TokenCounter:
    """Return the counter for ``spec``, loading it once per process.

    Args:
        spec: A name from ``available_tokenizers()`` or an alias (``qwen``, ``qwen2``,
            ``qwen2.5-1m``), ``hf:/path/to/tokenizer.json``, ``hf:/path/to/folder`` or
            ``hf:Org/Model`` (downloads ``tokenizer.json`` from the Hub unless cached).

    Returns:
        A counter whose ``name`` is the canonical spec.

    Raises:
        TokenizerError: The spec is unknown or its files cannot be found; the one-line message
            says what was tried.
    """
    return _load_canonical(canonical_spec(spec))


@lru_cache(maxsize=16)
def _load_canonical(canonical: str) -> TokenCounter:
    from needlework.tokenizers.hf_counter import HFTokenizerCounter, download_tokenizer_json, resolve_hf_target
    from needlework.tokenizers.named import load_named, named_entry

    if not canonical.startswith("hf:"):
        return load_named(named_entry(canonical))
    target = canonical[3:]
    _, path = resolve_hf_target(target)
    return HFTokenizerCounter(canonical, path if path is not None else download_tokenizer_json(target))
