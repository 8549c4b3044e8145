"""Exact haystack token counts: what each document adds where it stands in the prompt (issue 27 item 4).

A document's own token count does not add up across the blank line that joins it to the next one:
with a regex pre-tokenized BPE (Qwen2, cl100k) a final ``.`` and the ``\n\n`` after it are one
pre-token, which the BPE merges into one token, so ``count(doc) + count("\n\n")`` runs one token
above ``count(doc + "\n\n")`` for most documents. Summing stored per-document counts therefore
predicts a haystack up to one token per document longer than the one encoded in the prompt.

Here every document is counted together with what follows it, at the pre-token boundary that
the next text starts (``Article``, or the prompt's text after the haystack):

- ``inner``: ``count(doc + "\n\n")``, the document followed by the blank line and another document;
- ``last_span``: as the haystack's last document, the tokens of the encoded ``doc + after`` that
  start inside the document, which is what :func:`generators.haystackcraft.rows.materialize`
  measures (a token such as ``.\n\n`` that starts in the haystack and straddles its end counts
  as the haystack's: it carries the haystack's last character);
- ``last_prompt``: as the last document, ``count(doc + after) - count(after)``, what it adds to the
  whole prompt (the whole-prompt budget of Graph-COM/HaystackCraft ``infer_multi.py``).

A haystack of documents ``d_1 .. d_n`` in prompt order then has exactly
``sum(prefixes) + sum(inner[d_k] for k < n) + last_span[d_n]`` tokens, and its prompt
``count(before) + count(after) + sum(prefixes) + sum(inner[d_k] for k < n) + last_prompt[d_n]``:
the texts meet at pre-token boundaries (the next document starts with a letter after a newline;
the official ``Article {i}`` prefixes are counted against ``Article Title:`` by
:func:`generators.haystackcraft.rows.prefix_token_counts`). ``materialize`` re-measures every
prompt with one encode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from generators.haystackcraft.prompt import DOCUMENT_JOINER, prompt_parts
from needlework.tokens import TokenCounter

DocumentLookup = Callable[[np.ndarray], Sequence[str]]
"""Rendered documents (``render_document``) for an array of doc ids, in the same order."""


class JoinCounts:
    """Exact per-document counts (``inner``, ``last_span``, ``last_prompt``), computed once per document on demand.

    Arrays are indexed by doc id over the whole corpus and hold -1 until :meth:`ensure` has
    counted a document, so a build counts only the documents some ranking can put in a haystack.

    Attributes:
        join_tokens: Tokens of the blank line alone.
        after_tokens: Tokens of the layout's text after the haystack with an empty question.
        inner: ``count(doc + "\n\n")`` by doc id.
        inner_net: ``inner - join_tokens`` (what the assembly's prefix sums charge besides the join).
        last_span: Tokens the document contributes to the measured haystack when it is last.
        last_prompt: Tokens it adds to the whole prompt when it is last.
    """

    def __init__(self, n_docs: int, documents: DocumentLookup, tokens: TokenCounter, layout: str = "needlework") -> None:
        """Counts for a corpus of ``n_docs`` documents rendered by ``documents``, in a prompt ``layout``."""
        self.documents, self.tokens = documents, tokens
        self.after = prompt_parts("", layout)[1]
        self.join_tokens = tokens.count(DOCUMENT_JOINER)
        self.after_tokens = tokens.count(self.after)
        self.inner = np.full(n_docs, -1, dtype=np.int64)
        self.inner_net = np.full(n_docs, -1, dtype=np.int64)
        self.last_span = np.full(n_docs, -1, dtype=np.int64)
        self.last_prompt = np.full(n_docs, -1, dtype=np.int64)

    def ensure(self, ids: np.ndarray) -> None:
        """Count every document of ``ids`` not counted yet."""
        ids = np.unique(np.asarray(ids, dtype=np.int64))
        todo = ids[self.inner[ids] < 0]
        if not len(todo):
            return
        texts = [self.tokens.normalize(t) for t in self.documents(todo)]
        self.inner[todo] = self.tokens.count_batch([t + DOCUMENT_JOINER for t in texts])
        self.inner_net[todo] = self.inner[todo] - self.join_tokens
        last = [self.last_counts(t) for t in texts]
        self.last_span[todo] = [c[0] for c in last]
        self.last_prompt[todo] = [c[1] for c in last]

    def text_counts(self, text: str) -> tuple[int, int, int]:
        """``(inner, last_span, last_prompt)`` of one normalized document text (also a cut document's prefix)."""
        return (self.tokens.count(text + DOCUMENT_JOINER), *self.last_counts(text))

    def last_counts(self, text: str) -> tuple[int, int]:
        """``(last_span, last_prompt)`` of one normalized document text standing last, from one encode of it
        followed by the prompt's text after the haystack."""
        _, starts = self.tokens.encode_with_offsets(text + self.after)
        return int(np.searchsorted(starts, len(text), side="left")), len(starts) - self.after_tokens
