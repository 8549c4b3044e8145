r"""HaystackCraft dynamic (agentic, multi-round) NIAH: the round prompts, the parsing of a round's response,
and the haystack text of one round (paper §3.3, Appendices C and D).

The templates are the official code's word for word (Graph-COM/HaystackCraft ``prompts/multi_round_context.txt``,
``prompts/dynamic_multi_round_context.txt``, ``prompts/final_round_context.txt``, trailing space included), filled
as ``infer_multi.py`` / ``infer_variable.py`` ``get_haystack_prompt`` fills them: ``$OPENING$``, ``$PREV_SUMMARY$``
(``"Previous Analyses:\nRound 1: {A1}\n...Round k: {Ak}\n\n"``, empty in round 1), ``$DOC$`` (the haystack),
``$Q$`` (the latest refined question) and ``$INSTRUCTION$``. The paper's Appendix C wording differs slightly
("and answer", "Articles:"); the code produced the paper's numbers, so the code is followed.

The ablation of Appendix D has no official code: its prompts are the paper's wording laid out like the official
templates (the opening, the history, the articles in ``<text>`` tags, then the rest), the history pairing each
round's retrieval query with its analysis, and the final round asking the original question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generators.budget import cut_at_tokens
from generators.haystackcraft.assemble import RankedQuestion, assemble_haystack
from generators.haystackcraft.prompt import DOCUMENT_JOINER
from generators.haystackcraft.rows import DocumentLookup
from needlework.tokens import TokenCounter

MULTI_ROUND_TEMPLATE = (
    "$OPENING$\n\n$PREV_SUMMARY$\n\n<text>\n$DOC$\n</text>\n\nQuestion: $Q$\n\n$INSTRUCTION$\n\n"
    "Format your response as follows:\n"
    "Summary: (Summarize what you found in the articles that relates to the question, including any partial answers, "
    "relevant context, or gaps in information.)\n\n"
    "Refined Question: (Copy the original question or replace it with a more specific question based on your findings.) "
)
"""``prompts/multi_round_context.txt``: an intermediate round of enforced multi-round NIAH."""
VARIABLE_ROUND_TEMPLATE = (
    "$OPENING$\n\n$PREV_SUMMARY$\n\n<text>\n$DOC$\n</text>\n\nQuestion: $Q$\n\n$INSTRUCTION$\n\n"
    "If you have complete information to fully answer the question, format your response as follows: "
    "\"The correct answer is (insert answer here)\". \n\n"
    "If you need more information, format your response as follows:\n"
    "Summary: (Summarize what you found in the articles that relates to the question, including any partial answers, "
    "relevant context, or gaps in information.)\n\n"
    "Refined Question: (Copy the original question or replace it with a more specific question based on your findings.) "
)
"""``prompts/dynamic_multi_round_context.txt``: a round of variable-round NIAH before the forced final one."""
FINAL_TEMPLATE = (
    "$OPENING$\n\n$PREV_SUMMARY$\n\n<text>\n$DOC$\n</text>\n\nWhat is the correct answer to this question: $Q$\n\n"
    "Format your response as follows: \"The correct answer is (insert answer here)\". "
)
"""``prompts/final_round_context.txt``: the answering round."""

OPENING_FIRST = "Read the following articles and analyze the question below."
OPENING_LATER = "Read your previous analyses and the following articles. Analyze the question below."
OPENING_FINAL = "Read your previous analyses and the following articles, answer the question below."
OPENING_FINAL_ALONE = "Read the following articles and answer the question below."
INSTRUCTION_FIRST = "Based on the articles provided, summarize your findings related to the question and refine the question."
INSTRUCTION_LATER = ("Based on your previous analyses and the potentially new articles provided, summarize your findings "
                     "related to the question and refine the question.")
INSTRUCTION_VARIABLE = ("Based on your previous analyses and the potentially new articles provided, decide if you are "
                        "confident in answering the question or you need additional information.")

SUMMARY_MARKER = "Summary:"
REFINED_MARKER = "Refined Question:"
REFINED_QUERY_MARKER = "Refined Query:"
"""The ablation's marker: the model writes a retrieval query, not a question (Appendix D)."""

ABLATION_OPENING_INTERMEDIATE = ("Read your previous analyses and the following latest retrieved articles. Refine and "
                                 "summarize your findings for answering the question.")
ABLATION_OPENING_FINAL = "Read your previous analyses and the following latest retrieved articles. Answer the question."
ABLATION_OPENING_VARIABLE = ("Read your previous analyses and the following latest retrieved articles. Analyze the "
                             "information for answering the question.")
ABLATION_REFLECT = ("reflect on your earlier analyses. Update or correct them as needed. Summarize your current findings "
                    "for answering the original question, and generate a refined query for the next retrieval round.")
ABLATION_FORMAT = (
    "Format your response as follows:\n"
    "Summary: (Summarize your findings for answering the original question, including any partial answers, relevant "
    "context, or gaps in information.)\n\n"
    "Refined Query: (Generate the query for embedding-based retrieval in the next round based on your updated findings.)"
)
ABLATION_INTERMEDIATE_INSTRUCTION = f"Based on the latest information, {ABLATION_REFLECT}\n\n{ABLATION_FORMAT}"
ABLATION_VARIABLE_INSTRUCTION = (
    "Based on the latest information, decide if you are confident in answering the question or if you need additional "
    "information.\n\nIf you have complete information to fully answer the question, format your response as follows: "
    "\"The correct answer is (insert answer here)\".\n\n"
    f"Otherwise, based on the latest information, {ABLATION_REFLECT}\n\n{ABLATION_FORMAT}"
)
ABLATION_FINAL_INSTRUCTION = "Format your response as follows: \"The correct answer is (insert answer here)\"."

KIND_INTERMEDIATE, KIND_VARIABLE, KIND_FINAL = "intermediate", "variable", "final"
ROUND_KINDS = (KIND_INTERMEDIATE, KIND_VARIABLE, KIND_FINAL)


@dataclass(frozen=True)
class Mode:
    """How many rounds a dynamic item runs and with which prompts.

    Attributes:
        name: ``enforced-<R>``, ``variable``, ``ablation-<R>`` or ``ablation-variable``.
        rounds: Enforced rounds R, or the most rounds (3) of a variable mode.
        variable: Whether the model may stop early (an extractable answer ends the item).
        ablation: Appendix D's prompts and history instead of the official ones.
    """

    name: str
    rounds: int
    variable: bool
    ablation: bool

    def kind(self, round_number: int) -> str:
        """The prompt of round ``round_number`` (1-based): intermediate, variable (may answer) or final."""
        if round_number >= self.rounds:
            return KIND_FINAL
        return KIND_VARIABLE if self.variable else KIND_INTERMEDIATE


MAX_ROUNDS = 3
"""Variable rounds: at most 3 (``infer_variable.py --max_rounds 3``): two that may stop early, then the final one."""
OFFICIAL_MODES: tuple[str, ...] = ("enforced-1", "enforced-2", "enforced-3", "variable")
"""The paper's dynamic settings (Tables 18-21): 1, 2 and 3 enforced rounds, and variable rounds (max 3)."""
ABLATION_MODES: tuple[str, ...] = ("ablation-2", "ablation-3", "ablation-variable")
"""Appendix D's alternative workflow (Table 23); run when selected (``--tasks ablation-2`` ...)."""
MODES: tuple[str, ...] = OFFICIAL_MODES + ABLATION_MODES


def parse_mode(name: str) -> Mode:
    """The :class:`Mode` called ``name`` (one of :data:`MODES`)."""
    if name not in MODES:
        raise ValueError(f"unknown dynamic mode {name!r}; modes: {', '.join(MODES)}")
    ablation = name.startswith("ablation-")
    rest = name.removeprefix("ablation-").removeprefix("enforced-")
    if rest == "variable":
        return Mode(name, MAX_ROUNDS, True, ablation)
    return Mode(name, int(rest), False, ablation)


def previous_analyses(summaries: Sequence[str]) -> str:
    """``$PREV_SUMMARY$`` as ``get_haystack_prompt`` builds it: ``Previous Analyses:\\nRound i: {A_i}\\n``... then a
    blank line; empty without analyses."""
    if not summaries:
        return ""
    return "Previous Analyses:\n" + "".join(f"Round {i}: {s}\n" for i, s in enumerate(summaries, start=1)) + "\n"


def official_prompt(kind: str, haystack: str, query: str, summaries: Sequence[str], *, variable: bool = False) -> str:
    """The official prompt of one round (``infer_multi.py`` / ``infer_variable.py`` ``get_haystack_prompt``).

    Args:
        kind: :data:`KIND_INTERMEDIATE`, :data:`KIND_VARIABLE` or :data:`KIND_FINAL`.
        haystack: The round's documents, joined.
        query: The latest (refined) question q(t).
        summaries: The analyses of the rounds before.
        variable: Unused by the templates; kept so callers state the mode.
    """
    prev = previous_analyses(summaries)
    if kind == KIND_FINAL:
        template, opening, instruction = FINAL_TEMPLATE, OPENING_FINAL if summaries else OPENING_FINAL_ALONE, ""
    elif kind == KIND_VARIABLE:
        template, opening, instruction = VARIABLE_ROUND_TEMPLATE, OPENING_LATER if summaries else OPENING_FIRST, \
            INSTRUCTION_VARIABLE
    elif kind == KIND_INTERMEDIATE:
        template = MULTI_ROUND_TEMPLATE
        opening, instruction = (OPENING_LATER, INSTRUCTION_LATER) if summaries else (OPENING_FIRST, INSTRUCTION_FIRST)
    else:
        raise ValueError(f"unknown round kind {kind!r}; kinds: {', '.join(ROUND_KINDS)}")
    # The official code replaces in this order: $DOC$, $Q$, $PREV_SUMMARY$, $INSTRUCTION$, $OPENING$. Filling the
    # markers by position instead keeps a "$Q$" inside an article or an analysis from being replaced.
    return _fill(template, {"$OPENING$": opening, "$PREV_SUMMARY$": prev, "$DOC$": haystack, "$Q$": query,
                            "$INSTRUCTION$": instruction})


def _fill(template: str, values: dict[str, str]) -> str:
    pattern = re.compile("|".join(re.escape(k) for k in values))
    return pattern.sub(lambda m: values[m.group(0)], template)


def ablation_history(queries: Sequence[str], summaries: Sequence[str]) -> str:
    """Appendix D's ``Previous Analyses``: each round's retrieval query, then its analysis, one per line."""
    if not summaries:
        return ""
    pairs = "".join(f"{q}\n{a}\n" for q, a in zip(queries, summaries))
    return f"Previous Analyses:\n{pairs}\n"


def ablation_prompt(kind: str, haystack: str, query: str, original: str, queries: Sequence[str],
                    summaries: Sequence[str]) -> str:
    """Appendix D's prompt of one round (paper wording; no official code).

    Args:
        kind: Round kind (:data:`ROUND_KINDS`).
        haystack: The round's documents, joined.
        query: The retrieval query of this round.
        original: The original question (asked in the final round, shown in the others).
        queries: The retrieval queries of the rounds before.
        summaries: Their analyses.
    """
    history = ablation_history(queries, summaries)
    articles = f"Latest Retrieved Articles:\n<text>\n{haystack}\n</text>\n\nQuery Used for Retrieval: {query}"
    if kind == KIND_FINAL:
        return (f"{ABLATION_OPENING_FINAL}\n\n{history}\n\n{articles}\n\n"
                f"What is the correct answer to this question: {original}\n\n{ABLATION_FINAL_INSTRUCTION}")
    if kind == KIND_VARIABLE:
        opening, instruction = ABLATION_OPENING_VARIABLE, ABLATION_VARIABLE_INSTRUCTION
    elif kind == KIND_INTERMEDIATE:
        opening, instruction = ABLATION_OPENING_INTERMEDIATE, ABLATION_INTERMEDIATE_INSTRUCTION
    else:
        raise ValueError(f"unknown round kind {kind!r}; kinds: {', '.join(ROUND_KINDS)}")
    return f"{opening}\n\n{history}\n\n{articles}\n\nOriginal Question to Answer: {original}\n\n{instruction}"


def parse_response(response: str, refined_marker: str = REFINED_MARKER) -> tuple[str, str]:
    """(analysis, next query) of an intermediate response, with the spec's fall-backs (``parse_llm_response``).

    Both markers found: the text between ``Summary:`` and the refined marker, and the text after it. Only
    ``Summary:``: the text after it for both. Only the refined marker: the text after it for both. Neither: the
    whole response for both. Markers are matched case-sensitively at their first occurrence, as the official
    code's ``str.find``; parts are stripped.
    """
    summary_at = response.find(SUMMARY_MARKER)
    refined_at = response.find(refined_marker)
    if summary_at != -1 and refined_at != -1:
        return (response[summary_at + len(SUMMARY_MARKER):refined_at].strip(),
                response[refined_at + len(refined_marker):].strip())
    if summary_at != -1:
        summary = response[summary_at + len(SUMMARY_MARKER):].strip()
        return summary, summary
    if refined_at != -1:
        query = response[refined_at + len(refined_marker):].strip()
        return query, query
    return response, response


@dataclass(frozen=True)
class RoundHaystack:
    """One round's haystack: its documents in prompt order (descending by the round query's scores) and text.

    Attributes:
        doc_ids: Documents in prompt order.
        needle_positions: Positions of the needles among them.
        ranks: Each document's rank under the round's query.
        text: The documents rendered and joined (the cut distractor as its longest prefix of the kept tokens).
        predicted_tokens: Tokens of the joined haystack, from the stored counts.
        truncated_tokens: Tokens kept of the cut distractor, or -1.
    """

    doc_ids: list[int]
    needle_positions: list[int]
    ranks: list[int]
    text: str
    predicted_tokens: int
    truncated_tokens: int


def round_haystack(ranking: RankedQuestion, doc_tokens: np.ndarray, size: int, join_tokens: int,
                   documents: DocumentLookup, tokens: TokenCounter) -> RoundHaystack | None:
    """The static assembly (:func:`generators.haystackcraft.assemble.assemble_haystack`) for one round's ranking,
    in descending order (the paper's dynamic NIAH ordering), rendered; ``None`` when the needles exceed ``size``.

    Needles the ranking misses sit at their exact ranks over the whole corpus, so they come last.
    """
    haystack = assemble_haystack(ranking, doc_tokens, size, join_tokens)
    if haystack is None:
        return None
    ids = haystack.doc_ids.tolist()
    texts = [tokens.normalize(t) for t in documents(haystack.doc_ids)]
    shown = [cut_at_tokens(t, haystack.truncated_tokens, tokens) if d == haystack.truncated_doc else t
             for d, t in zip(ids, texts)]
    return RoundHaystack(ids, [int(i) for i in haystack.is_needle.nonzero()[0]], haystack.ranks.tolist(),
                         DOCUMENT_JOINER.join(shown), haystack.predicted_tokens, haystack.truncated_tokens)
