"""HaystackCraft's text formats: one document, the haystack, and the Appendix B prompt, in two layouts.

A document is ``Article Title: {title}\n{text}`` and documents are joined by a blank line, as the
paper's public code renders them (Graph-COM/HaystackCraft ``infer_multi.py``). Two prompt layouts:

- ``needlework`` (the default): Appendix B as printed, the documents in place of "{ordered
  haystack}", with straight quotes where the typeset paper shows curly ones.
- ``official``: the authors' static prompt, ``prompts/context.txt`` word for word: the haystack
  inside ``<text>`` ... ``</text>`` lines, each document prefixed ``Article {i}\n: `` with ``i``
  counting from 1 in prompt order (``infer_static.py`` ``format_context``: ``idx+1`` over
  ``enumerate``), documents joined by a blank line.

The no-context prompt (Appendix G, parametric knowledge only) is Appendix B without the articles:
neither the paper nor the authors' code prints one, so its wording is needlework's.
"""

from __future__ import annotations

from typing import Literal, get_args

from needlework.checks import require_one_of

PromptLayout = Literal["needlework", "official"]
PROMPT_LAYOUTS: tuple[str, ...] = get_args(PromptLayout)

DOCUMENT_TEMPLATE = "Article Title: {title}\n{text}"
DOCUMENT_JOINER = "\n\n"
PROMPT_TEMPLATE = (
    "Read the following articles and answer the question below.\n\n"
    "{haystack}\n\n"
    "What is the correct answer to this question: {question}\n\n"
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
"""Appendix B: the static NIAH prompt."""
OFFICIAL_PROMPT_TEMPLATE = (
    "Read the following articles and answer the question below.\n\n"
    "<text>\n{haystack}\n</text>\n\n"
    "What is the correct answer to this question: {question}\n\n"
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
"""Graph-COM/HaystackCraft ``prompts/context.txt`` (``$DOC$`` -> {haystack}, ``$Q$`` -> {question}; no final newline)."""
ARTICLE_PREFIX = "Article {index}\n: "
"""Graph-COM/HaystackCraft ``infer_static.py`` ``format_context``: the prefix of the document at 1-based ``index``."""
NO_CONTEXT_TEMPLATE = (
    "Answer the question below.\n\n"
    "What is the correct answer to this question: {question}\n\n"
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
"""Appendix G's no-context condition: Appendix B without the articles (needlework's wording; see the module docstring)."""


def render_document(title: str, text: str) -> str:
    """One corpus document as the retrievers index it and the prompt shows it.

    The text is stripped so that documents join with exactly one blank line; with a regex
    pre-tokenized BPE the joined haystack then has exactly the sum of its parts' tokens.
    """
    return DOCUMENT_TEMPLATE.format(title=title.strip(), text=text.strip())


def prompt_parts(question: str, layout: str = "needlework") -> tuple[str, str]:
    """The prompt text before and after the haystack, for a question, in a layout (:data:`PROMPT_LAYOUTS`)."""
    template = OFFICIAL_PROMPT_TEMPLATE if layout == "official" else PROMPT_TEMPLATE
    before, after = template.split("{haystack}")
    return before, after.replace("{question}", question.strip())


def article_prefix(index: int) -> str:
    """``Article {index}\n: ``, the official layout's prefix of the document at 1-based ``index``."""
    return ARTICLE_PREFIX.format(index=index)


def join_haystack(documents: list[str], layout: str = "needlework") -> str:
    """Rendered documents in prompt order as the haystack: joined by a blank line, each prefixed
    ``Article {i}\n: `` (i from 1) in the official layout."""
    if layout == "official":
        documents = [article_prefix(i) + d for i, d in enumerate(documents, start=1)]
    return DOCUMENT_JOINER.join(documents)


def no_context_prompt(question: str) -> str:
    """The Appendix G no-context prompt of a question (:data:`NO_CONTEXT_TEMPLATE`)."""
    return NO_CONTEXT_TEMPLATE.replace("{question}", question.strip())


def check_layout(layout: str) -> str:
    """``layout`` if it is one of :data:`PROMPT_LAYOUTS`.

    Raises:
        SpecError: It is not.
    """
    require_one_of("prompt layout", layout, PROMPT_LAYOUTS)
    return layout
