"""The document-ID interface and the prompts, as data (paper A.3, A.6; spec §4).

A corpus is serialized as ``[DocID=<id>]`` headers, each followed by the document's title, text
and a blank line (A.3 gives the header; title line and blank line are OURS). The localization and
QA instructions follow the corpus, so every query of a corpus shares its prefix (engines with
prefix caching reuse it). Each document's token count includes its blank line, and the next
document (or instruction) starts a new pre-token, so document counts add up exactly to the
corpus's count under regex pre-tokenized BPEs such as Qwen's. The judge template is Figure 6.
"""

from __future__ import annotations

from collections.abc import Iterable

DOCUMENT_TEMPLATE = "[DocID={doc_id}]\n{title}\n{text}\n\n"
"""One document in a serialized corpus: A.3's header, then title, text and a blank line."""
DEFAULT_K = 10
"""Documents a localization answer lists (the paper reports K = 10)."""

LOCALIZE_TEMPLATE = (
    "Question: {query}\n"
    "List the IDs of the {k} documents most relevant to the question, most relevant first, "
    "as integers separated by commas."
)
"""Localization instruction after the corpus (OURS: the paper defines the task, A.3, but gives no prompt)."""
QA_TEMPLATE = "Answer the question using the documents above.\nQuestion: {query}\nAnswer:"
"""Generative-QA instruction after the corpus (OURS: the paper gives no QA prompt)."""

JUDGE_TEMPLATE = (
    "Instruction: Based on the accuracy, completeness, and relevance of the predicted answer to the real answer "
    "in the context of the query, assign an objective score from 0 to 5 (5 being the highest, 0 the lowest). "
    "The final output can only be a single number.\n\n"
    "Scoring Criteria:\n\n"
    "- 5: The predicted answer is exactly the same as the real answer and correctly answers the query. "
    "Differences in wording do not affect factual accuracy.\n"
    "- 4: The predicted answer contains all the core information of the real answer, with no errors, "
    "but includes a small amount of non-critical redundant content.\n"
    "- 3: The predicted answer captures the core information but differs from the real answer in some aspects. "
    "The predicted answer is slightly incomplete or imprecise, but contains no errors.\n"
    "- 2: The predicted answer is partially relevant to the real answer but omits a significant amount of "
    "information or deviates from the core topic of the query.\n"
    "- 1: The predicted answer attempts to address the query (maintains basic relevance to the topic) but "
    "provides factually incorrect information. It does not contradict the core claim of the real answer, "
    "but shows incomplete or inaccurate understanding of the topic.\n"
    "- 0: The predicted answer is completely unrelated to the query, consists of gibberish, or is a pure "
    "hallucination that shares no logical connection with the real answer.\n\n"
    "Query: {query}\n\n"
    "True Answer: {reference_answer}\n\n"
    "Predicted Answer: {generated_answer}\n\n"
    "Output only a single number (0, 1, 2, 3, 4, or 5):"
)
"""Figure 6 (A.6), the LLM-as-a-Judge prompt; its input is only the query, true and predicted answers (A.7)."""


def render_document(doc_id: int, title: str, text: str) -> str:
    """One document as it appears in a serialized corpus: ``[DocID=n]``, title, text, blank line."""
    return DOCUMENT_TEMPLATE.format(doc_id=doc_id, title=title, text=text)


def serialize_corpus(documents: Iterable[str]) -> str:
    """Rendered documents (:func:`render_document`) as one context, in the given order."""
    return "".join(documents)


CHAT_TEMPLATE_RESERVE = 64
"""Tokens every ladder budget keeps for the chat template a served model wraps the prompt in (OURS: role markers
and a default system prompt take 20-40 tokens in Qwen2.5's and Llama 3's templates); the budget's reserve is
this, the longest instruction + query, and the generation reserve."""


def instructions(query: str, k: int = DEFAULT_K) -> tuple[str, str]:
    """The text that follows the corpus in the localization and the QA prompt (budgets reserve the longer)."""
    return LOCALIZE_TEMPLATE.format(query=query, k=k), QA_TEMPLATE.format(query=query)


def localize_prompt(corpus: str, query: str, k: int = DEFAULT_K) -> str:
    """The localization prompt: the corpus, then the instruction to list the top-``k`` document IDs."""
    return corpus + LOCALIZE_TEMPLATE.format(query=query, k=k)


def qa_prompt(corpus: str, query: str) -> str:
    """The generative-QA prompt: the corpus, then the question."""
    return corpus + QA_TEMPLATE.format(query=query)


def judge_prompt(query: str, reference_answer: str, generated_answer: str) -> str:
    """Figure 6 filled with one (query, true answer, predicted answer) triplet."""
    return JUDGE_TEMPLATE.format(query=query, reference_answer=reference_answer, generated_answer=generated_answer)
