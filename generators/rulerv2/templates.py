"""RULERv2 prompt templates, as data (paper Tables 2 and 3, synthetic-retrieval rows).

The prompt is ``intro + "\\n" + context + question + answer_prefix`` where the context is the
needle lines, each ending in a newline. The answer prefix ends the prompt, as in the paper's
templates, and is also stored on its own so a chat harness can place it in the assistant turn.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NiahTemplate:
    """The fixed text of one synthetic NIAH task; ``{key}`` and ``{value}`` are fields."""

    intro: str
    needle: str
    question: str
    answer_prefix: str


NIAH_BASIC: dict[str, NiahTemplate] = {
    "mk_niah": NiahTemplate(
        intro=(
            "A special magic number is hidden within the following text. Make sure to memorize "
            "it. I will quiz you about the number afterwards."
        ),
        needle="One of the special magic numbers for {key} is: {value}.",
        question="What is the special magic number for {key} mentioned in the provided text?",
        answer_prefix=" The special magic number for {key} mentioned in the provided text is",
    ),
    "mv_niah": NiahTemplate(
        intro=(
            "Some special magic numbers are hidden within the following text. Make sure to "
            "memorize them. I will quiz you about the numbers afterwards."
        ),
        needle="One of the special magic numbers for {key} is: {value}.",
        question="What are all the special magic numbers for {key} mentioned in the provided text?",
        answer_prefix=" The special magic numbers for {key} mentioned in the provided text are",
    ),
}
