"""HaystackCraft's text formats: one document, the haystack, and the Appendix B prompt.

A document is ``Article Title: {title}\n{text}`` and documents are joined by a blank line, as the
paper's public code renders them. The prompt is Appendix B verbatim, with straight quotes where
the typeset paper shows curly ones.
"""

from __future__ import annotations

DOCUMENT_TEMPLATE = "Article Title: {title}\n{text}"
DOCUMENT_JOINER = "\n\n"
PROMPT_TEMPLATE = (
    "Read the following articles and answer the question below.\n\n"
    "{haystack}\n\n"
    "What is the correct answer to this question: {question}\n\n"
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
"""Appendix B: the static NIAH prompt."""


def render_document(title: str, text: str) -> str:
    """One corpus document as the retrievers index it and the prompt shows it.

    The text is stripped so that documents join with exactly one blank line; with a regex
    pre-tokenized BPE the joined haystack then has exactly the sum of its parts' tokens.
    """
    return DOCUMENT_TEMPLATE.format(title=title.strip(), text=text.strip())


def prompt_parts(question: str) -> tuple[str, str]:
    """The prompt text before and after the haystack, for a question."""
    before, after = PROMPT_TEMPLATE.split("{haystack}")
    return before, after.replace("{question}", question.strip())
