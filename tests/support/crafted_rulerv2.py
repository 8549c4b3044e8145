"""Crafted responses to RULERv2 rows, for the differential test against NeMo-Skills' scoring.

:func:`crafted_responses` turns one row (its task and references) into named responses: right, wrong,
partly right, boxed and unboxed letters, empty and repeated boxes, copied ``Document N:`` blocks, blank
lines, case, Chinese, empty; each also wrapped in reasoning (closed, unclosed, twice) and in edge
whitespace. The same function made the responses the official code scored (the verdict table in
``tests/eval/data/rulerv2_nemo_skills_verdicts.json``), so the test and the table name the same
responses by the same keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.support.crafted_needlebench import full_width

LETTER_TASKS = ("mk_niah_medium", "mk_niah_hard")
"""Multiple-choice tasks, scored by NeMo-Skills' ``eval_mcq``; the others by ``eval_ruler2``."""

WRAPPED = ("exact", "partial_first", "newline_list", "blank_line_after_answer", "doc_block_then_answer", "chinese",
           "empty", "boxed", "empty_box_final", "final_answer_is", "answer_colon")
"""The responses that also appear in every reasoning and whitespace wrapper of :func:`wrappers`."""


def wrappers(text: str) -> dict[str, str]:
    """``text`` as written, with edge whitespace, and inside closed, unclosed and doubled reasoning."""
    return {
        "plain": text,
        "trailing_ws": text + "  \n\n",
        "leading_ws": "\n\n  " + text,
        "think_closed": "<think>Let me look through the context carefully.\n</think>" + text,
        "think_closed_ws": "<think>\nchecking\n</think>\n\n" + text + "\n",
        "think_unclosed": "<think>I am still reading the context and " + text,
        "think_twice": "<think>a</think>draft</think>\n" + text,
        "close_only": "reasoning without an opening tag</think>  " + text,
    }


def letter_responses(gold: str) -> dict[str, str]:
    """Responses to a multiple-choice row whose answer is ``gold`` (A-D).

    Lower-case and full-width letters and boxes padded with or holding only whitespace are in: they are read as
    ``mcq.py`` at 0b012df8 reads them (a one-character box as written, so ``d`` and ``Ｄ`` are not ``D``).
    """
    wrong = "A" if gold != "A" else "B"
    return {
        "boxed": f"\\boxed{{{gold}}}",
        "boxed_wrong": f"\\boxed{{{wrong}}}",
        "boxed_text": f"The answer is \\boxed{{\\text{{{gold}}}}}.",
        "boxed_paren": f"\\boxed{{({gold})}}",
        "boxed_dot_text": f"\\boxed{{{gold}. some text}}",
        "two_boxes_last_gold": f"First \\boxed{{{wrong}}} then \\boxed{{{gold}}}",
        "two_boxes_last_wrong": f"First \\boxed{{{gold}}} then \\boxed{{{wrong}}}",
        "empty_box_final": f"\\boxed{{}}\nThe final answer is {gold}",
        "empty_box_answer_colon": f"\\boxed{{}} Answer: {gold}",
        "empty_box_only": "\\boxed{}",
        "final_answer_is": f"The final answer is {gold}",
        "final_answer_is_not_last_line": f"The final answer is {gold}\nI am sure.",
        "answer_colon": f"Answer: {gold}",
        "answer_colon_bold": f"**Answer:** {gold}",
        "answer_colon_lower": f"answer: {gold.lower()}",
        "answer_colon_full_width": f"Answer: {full_width(gold)}",
        "boxed_lower": f"\\boxed{{{gold.lower()}}}",
        "boxed_full_width": f"\\boxed{{{full_width(gold)}}}",
        "boxed_padded": f"\\boxed{{ {gold} }}",
        "boxed_lower_padded": f"\\boxed{{ {gold.lower()}}}",
        "boxed_whitespace_then_answer": f"\\boxed{{ }} Answer: {gold}",
        "boxed_lower_then_answer": f"\\boxed{{{gold.lower()}}} Answer: {gold}",
        "final_answer_is_lower": f"The final answer is {gold.lower()}",
        "unclosed_box": f"\\boxed{{{gold}",
        "boxed_space": f"\\boxed {{{gold}}}",
        "chinese": f"答案是 {gold}",
        "empty": "",
        "no_letter": "I cannot find the key in the context.",
    }


def text_responses(task: str, references: Sequence[str]) -> dict[str, str]:
    """Responses to a row scored by string match (NIAH copies and values, QA indices and answers)."""
    first, joined = references[0], " ".join(references)
    return {
        "exact": joined,
        "exact_upper": joined.upper(),
        "wrong": "The special magic number is 0000000000." if "niah" in task else "I do not know.",
        "empty": "",
        "chinese": "答案是 " + first,
        "chinese_only": "我不知道答案。",
        "partial_first": first,
        "sentence": f"The answer is: {' and '.join(references)}.",
        "newline_list": "\n".join(references),
        "blank_line_before_answer": "Some notes.\n\n" + joined,
        "blank_line_after_answer": joined + "\n\nThat is all.",
        "doc_block_copy": f"Document 3:\n{first} appears here.\n\nNo answer.",
        "doc_block_then_answer": f"Document 3:\nSome copied text.\n\n{first}",
        "answer_label": f"Answer: {first}",
        "question_label": f"Question 12: {first}",
        "extra_words": joined + " plus many more unrelated words" * 3,
        "near_miss": first[:-1] if len(first) > 1 else first + "x",
    }


def crafted_responses(task: str, references: Sequence[str]) -> dict[str, str]:
    """Every crafted response to a row: ``<name>/<wrapper>`` -> response text."""
    base = letter_responses(references[0].strip()) if task in LETTER_TASKS else text_responses(task, references)
    return {f"{name}/{wrap}": response
            for name, text in base.items()
            for wrap, response in wrappers(text).items()
            if wrap == "plain" or name in WRAPPED}
