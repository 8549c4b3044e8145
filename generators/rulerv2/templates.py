"""RULERv2 prompt templates, as data (paper Tables 2 and 3, synthetic-retrieval rows).

The prompt is ``intro + "\\n" + context + question + answer_prefix`` where the context is the
needle lines, each ending in a newline. The answer prefix ends the prompt, as in the paper's
templates, and is also stored on its own so a chat harness can place it in the assistant turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from needlework.checks import require_one_of
from needlework.errors import SpecError


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


@dataclass(frozen=True)
class ItemTemplate:
    """The fixed text of one RULERv2 task whose context is indexed items (questions or documents).

    The prompt is ``intro + "\\n\\n" + items + [examples] + query + ["\\n" + answer_prefix]``, each
    item rendered as ``item.format(index=..., text=...)`` and followed by a blank line. With
    demonstrations, ``examples_header``, the examples (``example`` formatted per shot, separated by
    blank lines) and ``actual_task`` come between the items and the query.

    ``intro`` is used verbatim; the other fields are ``str.format`` templates. Fields: ``{index}`` the item index, ``{text}`` an item's content, ``{order}`` an ordinal such
    as ``2nd``, ``{question}`` a QA question, ``{answer}`` a demonstration's letter, ``{copies}``
    a demonstration's copied items (one ``Question {index}: ...`` per line).
    """

    intro: str
    item: str
    query: str
    answer_prefix: str = ""
    example: str = ""


QUESTION_ITEM = "Question {index}: {text}"
DOCUMENT_ITEM = "Document {index}: {text}"
EXAMPLES_HEADER = "Here are some examples to help you understand the task:"
ACTUAL_TASK = "Here is the actual task you need to solve: "
_SOLVE_INTRO = (
    "Below are some questions. I will ask you to solve one of them. Please solve the question you "
    "find and make sure to put the answer (and only answer) inside \\boxed{}."
)
_COPY_ONE_INTRO = "Below are some questions. I will ask you to copy one of them. Please copy and paste the question you find."
_COPY_SOME_INTRO = "Below are some questions. I will ask you to copy some of them. Please copy and paste the questions you find."
_QA_INTRO = "Below are some documents. I will ask you to answer a question based on the documents. Please answer the question."

ITEM_TASKS: dict[str, ItemTemplate] = {
    # Table 2: multi-key NIAH.
    "mk_niah_easy": ItemTemplate(_COPY_ONE_INTRO, QUESTION_ITEM, "Please copy the Question {index} from the context."),
    "mk_niah_medium": ItemTemplate(
        _SOLVE_INTRO,
        QUESTION_ITEM,
        "Please copy the Question {index} from the context and then solve it with an answer from A, B, C, D.",
        example=(
            "Please copy the Question {index} from the context and then solve it with an answer from A, B, C, D.\n"
            "{copies}\nSolution: \\boxed{{{answer}}}."
        ),
    ),
    "mk_niah_hard": ItemTemplate(
        _SOLVE_INTRO,
        QUESTION_ITEM,
        "Please solve the Question {index} from the context with an answer from A, B, C, D.",
        example="Please solve the Question {index} from the context with an answer from A, B, C, D.\nSolution: \\boxed{{{answer}}}.",
    ),
    # Table 3: multi-value NIAH. The easy query is Table 3's wording (Figure 1 abbreviates it as
    # "copy all the Question ..."); demonstrations are not in Table 3 but are what Figure 7 scales.
    "mv_niah_easy": ItemTemplate(_COPY_SOME_INTRO, QUESTION_ITEM, "Please copy the Question {index} from the context."),
    "mv_niah_medium": ItemTemplate(
        _COPY_ONE_INTRO,
        QUESTION_ITEM,
        "Please first copy all the Question {index} from the context and then copy the {order} (1 indexed) "
        "Question {index} at the end.",
        example=(
            "Please first copy all the Question {index} from the context and then copy the {order} (1 indexed) "
            "Question {index} at the end.\n{copies}"
        ),
    ),
    "mv_niah_hard": ItemTemplate(
        _COPY_ONE_INTRO,
        QUESTION_ITEM,
        "Please copy the {order} (1 indexed) Question {index} from the context.",
        example="Please copy the {order} (1 indexed) Question {index} from the context.\n{copies}",
    ),
    # Table 4: multi-doc QA.
    "mdqa_basic": ItemTemplate(
        "Below are some documents. I will give you a text at the end. Please find the document index of the "
        "text. Only give me the index without any document contents.",
        DOCUMENT_ITEM,
        "Text: {text}",
        answer_prefix="Most relevant document index:",
    ),
    "mdqa_easy": ItemTemplate(
        "Below are some documents. I will give you a question at the end. Please find the index of the most "
        "relevant document that can help answer the question. Only give me the index without any document contents.",
        DOCUMENT_ITEM,
        "Question: {question}",
        answer_prefix="Index of the most relevant document that can help answer the question:",
    ),
    "mdqa_medium": ItemTemplate(
        _QA_INTRO,
        DOCUMENT_ITEM,
        "Please first find and copy paste the documents relevant to the following question and then answer it "
        "based on the documents you find.\nQuestion: {question}",
    ),
    "mdqa_hard": ItemTemplate(
        _QA_INTRO,
        DOCUMENT_ITEM,
        "Please answer the following question based on the documents.\nQuestion: {question}",
        answer_prefix="Answer:",
    ),
}
"""Templates of the ten tasks whose context is indexed items (RULERv2 Tables 2, 3 and 4)."""


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- The ``paper`` preset: the official prompts word for word -----------------------------------
# Source of truth: NVIDIA-NeMo/Skills nemo_skills/dataset/ruler2/prepare_mmlu.py (NIAH easy..hard,
# ``--prompt_type instruct``) and prepare_qa.py (multi-doc QA), with the arguments prepare_data.py
# passes per task. The prompt is ``{context}\n\n{example}{problem}`` with the items joined by blank
# lines, which is this module's layout; only the strings below differ from Tables 2 to 4.

PAPER_DOCUMENT_ITEM = "Document {index}:\n{text}"
"""prepare_qa.py ``NEEDLE_PROMPT``: a line break, not a space, after the document's label."""
PAPER_EXAMPLES_HEADER = EXAMPLES_HEADER
PAPER_ACTUAL_TASK = "Here is the actual task you need to solve:\n\n"
"""prepare_mmlu.py: the examples block ends ``\\n\\nHere is the actual task you need to solve:\\n\\n``."""
_PAPER_SOLVE_INTRO = (
    "Below are some questions. I will ask you to solve one of them. Please solve the question you "
    "find and make sure to put the answer (and only answer) inside \\boxed\\{\\}."
)
"""prepare_mmlu.py's solve ``CONTEXT_PROMPT`` after ``str.format``: the braces of ``\\boxed`` keep their backslashes."""
_PAPER_MK_MEDIUM = "Please copy the Question {index} from the context and then solve it with an answer from A, B, C, D."
_PAPER_MK_HARD = "Please solve the Question {index} from the context with an answer from A, B, C, D."

PAPER_ITEM_TASKS: dict[str, ItemTemplate] = {
    **ITEM_TASKS,
    # prepare_mmlu.py --task_type solve: examples are ``PROBLEM + "\nQuestion {i}: {question}\nSolution:{solution}"``
    # (2steps) or ``PROBLEM + "\nSolution:{solution}"`` (single), the solution being `` \boxed{X}`` (no full stop).
    "mk_niah_medium": ItemTemplate(
        _PAPER_SOLVE_INTRO, QUESTION_ITEM, _PAPER_MK_MEDIUM,
        example=_PAPER_MK_MEDIUM + "\n{copies}\nSolution: \\boxed{{{answer}}}",
    ),
    "mk_niah_hard": ItemTemplate(
        _PAPER_SOLVE_INTRO, QUESTION_ITEM, _PAPER_MK_HARD, example=_PAPER_MK_HARD + "\nSolution: \\boxed{{{answer}}}",
    ),
    # prepare_mmlu.py --task_type niah (mv_niah_easy): "find and copy all", where Table 3 says "copy".
    "mv_niah_easy": ItemTemplate(_COPY_SOME_INTRO, QUESTION_ITEM, "Please find and copy all the Question {index} from the context."),
    # prepare_qa.py: "Document {i}:\n{text}"; solve problems put a blank line before "Question:" and the
    # instruct prompt has no "Answer:" line.
    "mdqa_basic": ItemTemplate(
        ITEM_TASKS["mdqa_basic"].intro, PAPER_DOCUMENT_ITEM, "Text: {text}", answer_prefix="Most relevant document index:"),
    "mdqa_easy": ItemTemplate(
        ITEM_TASKS["mdqa_easy"].intro, PAPER_DOCUMENT_ITEM, "Question: {question}",
        answer_prefix="Index of the most relevant document that can help answer the question:",
    ),
    "mdqa_medium": ItemTemplate(
        _QA_INTRO, PAPER_DOCUMENT_ITEM,
        "Please first find and copy paste the documents relevant to the following question and then answer it "
        "based on the documents you find.\n\nQuestion: {question}",
    ),
    "mdqa_hard": ItemTemplate(
        _QA_INTRO, PAPER_DOCUMENT_ITEM, "Please answer the following question based on the documents.\n\nQuestion: {question}",
    ),
}
"""The ten item tasks' templates under the ``paper`` preset (official NeMo-Skills ruler2 prompts)."""


# --- Math base tasks (RULERv2 Appendix D.2: GSM8K and MATH500 instead of MMLU) -------------------
# The paper shows no template for them; the solve prompts keep Table 2's wording without the
# multiple-choice clause ("with an answer from A, B, C, D"). The intro already asks for the answer
# inside \boxed{}, in the words of NeMo-Skills' math prompt (nemo_skills/prompt/config/generic/math.yaml:
# "Make sure to put the answer (and only answer) inside \boxed{}."), whose evaluator reads the last box.

_MATH_MK_MEDIUM = "Please copy the Question {index} from the context and then solve it."
_MATH_MK_HARD = "Please solve the Question {index} from the context."
MATH_ITEM_TASKS: dict[str, ItemTemplate] = {
    **ITEM_TASKS,
    "mk_niah_medium": ItemTemplate(
        _SOLVE_INTRO, QUESTION_ITEM, _MATH_MK_MEDIUM, example=_MATH_MK_MEDIUM + "\n{copies}\nSolution: \\boxed{{{answer}}}.",
    ),
    "mk_niah_hard": ItemTemplate(
        _SOLVE_INTRO, QUESTION_ITEM, _MATH_MK_HARD, example=_MATH_MK_HARD + "\nSolution: \\boxed{{{answer}}}.",
    ),
}
"""The item tasks' templates when multi-key NIAH hides math problems (GSM8K, MATH500): the solve
levels ask for the problem's answer in a box; the other tasks are :data:`ITEM_TASKS`."""


# --- Code base task (RULERv2 Appendix D.2: MBPP instead of MMLU) ----------------------------------
# The paper shows no template for it either. The solve prompts keep Table 2's wording, with the
# instruction and answer format of NeMo-Skills' MBPP prompt (nemo_skills/dataset/mbpp/__init__.py:
# ``++prompt_config=generic/codegen``; nemo_skills/prompt/config/generic/codegen.yaml: "... with python
# programming language. ..." and "The solution should be in the following format:\n```python\n# Your
# code here\n```"), whose evaluator reads the last ```python block (evaluator/code.py ``preprocess_code``).
# The hidden problem is evalplus's MBPP+ prompt, the description and first test in a docstring (see
# builders.sources.mbpp), so the function's name and signature are known.

_CODE_SOLVE_INTRO = "Below are some questions. I will ask you to solve one of them. Please solve the question you find."
CODE_FORMAT = "The solution should be in the following format:\n```python\n# Your code here\n```"
"""NeMo-Skills ``generic/codegen.yaml``'s answer format, word for word."""
_CODE_MK_MEDIUM = "Please copy the Question {index} from the context and then solve it with python programming language."
_CODE_MK_HARD = "Please solve the Question {index} from the context with python programming language."
_CODE_SOLUTION = "\nSolution:\n```python\n{answer}\n```"
CODE_ITEM_TASKS: dict[str, ItemTemplate] = {
    **ITEM_TASKS,
    "mk_niah_medium": ItemTemplate(
        _CODE_SOLVE_INTRO, QUESTION_ITEM, _CODE_MK_MEDIUM + "\n\n" + CODE_FORMAT,
        example=_CODE_MK_MEDIUM + "\n{copies}" + _CODE_SOLUTION,
    ),
    "mk_niah_hard": ItemTemplate(
        _CODE_SOLVE_INTRO, QUESTION_ITEM, _CODE_MK_HARD + "\n\n" + CODE_FORMAT, example=_CODE_MK_HARD + _CODE_SOLUTION,
    ),
}
"""The item tasks' templates when multi-key NIAH hides MBPP problems: the solve levels ask for a Python
code block (a demonstration shows the reference code in one); the other tasks are :data:`ITEM_TASKS`."""

BASE_ITEM_TASKS: dict[str, dict[str, ItemTemplate]] = {
    "gsm8k": MATH_ITEM_TASKS, "math500": MATH_ITEM_TASKS, "mbpp": CODE_ITEM_TASKS,
}
"""The templates of each base task that can replace MMLU in multi-key NIAH (``--mk-base``)."""


def item_templates(preset: str, base: str | None = None) -> dict[str, ItemTemplate]:
    """The item-task templates of a preset: Tables 2-4 (``""``) or the official prompts (``paper``);
    with a ``base`` task other than MMLU, its solve prompts (:data:`BASE_ITEM_TASKS`, no preset)."""
    if base is not None:
        if preset == "paper":
            raise SpecError("the paper preset has no other base tasks (its scripts hide MMLU questions only)")
        require_one_of("base task", base, BASE_ITEM_TASKS)
        return BASE_ITEM_TASKS[base]
    return PAPER_ITEM_TASKS if preset == "paper" else ITEM_TASKS

