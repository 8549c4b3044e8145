"""Helpers shared by the tokenizer backends."""

from __future__ import annotations

import hashlib
import json


def canonical_sha256(value: object) -> str:
    """Return the sha256 hex digest of ``value`` serialised as canonical JSON.

    Sorted keys, fixed separators and ASCII-only output make the digest independent of dict order,
    process and platform, which is what a fingerprint stored in a dataset card needs.
    """
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(data.encode("ascii")).hexdigest()


def repair_surrogates(text: str) -> str:
    """Join surrogate pairs into their characters and replace lone surrogates with U+FFFD.

    Strings with surrogates cannot be UTF-8 encoded, so the Rust tokenizers reject them; this is
    the repair tiktoken applies internally, so every backend and method sees the same text.
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
