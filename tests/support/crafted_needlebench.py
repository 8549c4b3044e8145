"""Crafted responses to NeedleBench rows, for the differential test against OpenCompass's scoring.

:func:`crafted_responses` turns one row (its task and references) into named responses: keywords as written,
in other case, full width, with whitespace inside or removed, partly, nested inside a longer word, wrong,
empty, Chinese; boxed answers exact, with punctuation, quotes, ``\\text{}``, double braces, empty, twice,
unclosed, as ``\\fbox``; each also inside reasoning (before, after and inside ``<think>`` blocks, unclosed).
The same function made the responses OpenCompass's code scored (the verdict table in
``tests/eval/data/needlebench_opencompass_verdicts.json``), so the test and the table name them alike.
"""

from __future__ import annotations

from collections.abc import Sequence

BOXED_TASKS = ("m-rs", "atc")
"""Tasks scored on the last ``\\boxed{}`` (OpenCompass ``needlebench_atc_postprocess_v2``); the others by keywords."""

WRAPPED = ("exact", "lower", "boxed", "boxed_text", "no_box", "empty")
"""The responses that also appear inside every reasoning wrapper of :func:`wrappers`."""


def full_width(text: str) -> str:
    """ASCII letters and digits as their full-width forms (what some Chinese answers use)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def wrappers(text: str) -> dict[str, str]:
    """``text`` as written, with edge whitespace, after, inside and around reasoning blocks."""
    return {
        "plain": text,
        "trailing_ws": text + "  \n",
        "think_before": "<think>Let me find it in the document.</think>\n" + text,
        "think_contains": f"<think>{text}</think>I am not sure.",
        "think_unclosed": "<think>still reading " + text,
        "close_only": "my notes</think> " + text,
        "text_around_think": f"Answer: {text}\n<think>checking</think>\nDone.",
        "two_blocks": f"<think>a</think>{text}<think>b</think>",
    }


def keyword_responses(references: Sequence[str]) -> dict[str, str]:
    """Responses to an S-RT or M-RT row (``references``: the asked keywords)."""
    joined, first = ", ".join(references), references[0]
    return {
        "exact": f"The answers are {joined}.",
        "lower": joined.lower(),
        "upper": joined.upper(),
        "full_width": full_width(joined),
        "spaces_removed": joined.replace(" ", ""),
        "spaces_doubled": joined.replace(" ", "  "),
        "newline_inside": joined.replace(" ", "\n", 1),
        "first_only": first,
        "prefix_only": first[: max(1, len(first) - 1)],
        "inside_longer": f"{first}ra",
        "wrong": "I could not find it.",
        "chinese": f"答案是{joined}。",
        "empty": "",
        "boxed": f"\\boxed{{{joined}}}",
        "boxed_text": f"\\boxed{{\\text{{{first}}}}}",
        "no_box": joined,
    }


def boxed_responses(references: Sequence[str]) -> dict[str, str]:
    """Responses to an M-RS or ATC row (``references[0]``: the name, or generations apart)."""
    gold = references[0]
    return {
        "boxed": f"So the answer is \\boxed{{{gold}}}",
        "exact": f"\\boxed{{{gold}}}",
        "lower": f"\\boxed{{{gold.lower()}}}",
        "upper": f"\\boxed{{{gold.upper()}}}",
        "full_width": f"\\boxed{{{full_width(gold)}}}",
        "period": f"\\boxed{{{gold}.}}",
        "quotes": f"\\boxed{{\"{gold}\"}}",
        "boxed_text": f"\\boxed{{\\text{{{gold}}}}}",
        "double_braces": f"\\boxed{{{{{gold}}}}}",
        "inner_spaces": f"\\boxed{{  {gold}  }}",
        "tilde": f"\\boxed{{{gold.replace(' ', '~')}}}",
        "fbox": f"\\fbox{{{gold}}}",
        "two_boxes_last_gold": f"\\boxed{{Nobody}} then \\boxed{{{gold}}}",
        "two_boxes_last_wrong": f"\\boxed{{{gold}}} then \\boxed{{Nobody}}",
        "empty_box": "\\boxed{}",
        "unclosed_box": f"\\boxed{{{gold}",
        "no_box": f"The answer is {gold}.",
        "with_unit": f"\\boxed{{{gold} generations}}",
        "chinese": f"答案是\\boxed{{{gold}}}。",
        "empty": "",
    }


def crafted_responses(task: str, references: Sequence[str]) -> dict[str, str]:
    """Every crafted response to a row: ``<name>/<wrapper>`` -> response text."""
    base = boxed_responses(references) if task in BOXED_TASKS else keyword_responses(references)
    return {f"{name}/{wrap}": response
            for name, text in base.items()
            for wrap, response in wrappers(text).items()
            if wrap == "plain" or name in WRAPPED}
