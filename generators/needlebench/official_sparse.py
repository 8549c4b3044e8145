"""OpenCompass NeedleBench v2's information-sparse prompts and M-RS link sentences, as data, word for word.

Sources (open-compass/opencompass, read, not copied as code): the ``_generate_prompt`` texts of
``opencompass/datasets/needlebench_v2/origin.py`` (S-RT), ``parallel.py`` (M-RT) and ``multi.py`` (M-RS), both
question positions (``quesiton_position`` ``End`` and ``Start``), and atc.py's ``relationship_templates_en`` /
``_zh_CN``, which multi.py imports for its kinship needles.

Fields: ``{context}`` the haystack, ``{retrieval_question}`` the question(s) (:func:`retrieval_question`),
``{last_person}`` the person M-RS asks about; ``{{}}`` is a literal ``{}`` after :meth:`str.format`.
"""

from __future__ import annotations

from collections.abc import Sequence

from generators.needlebench.official import ELDEST_EXAMPLES

OFFICIAL_SPARSE_PROMPTS: dict[str, dict[str, dict[str, str]]] = {
    "s-rt": {  # origin.py
        "en": {
            "end": (
                "This is a test of long-text capability. You need to first read the long document below, and then answer the final question based on the information in the document.\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
                "Based on the information in the document, now please answer: {retrieval_question}\n"
            ),
            "start": (
                "This is a test of long-text capability. You need to first read the question below, and then answer it based on the information in the long document that follows.\n"
                "Now please answer: {retrieval_question}\n"
                "\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
            ),
        },
        "zh": {
            "end": (
                "这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息回答最后的问题。\n"
                "长文档的内容如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
                "根据文档中的信息，现在请问：{retrieval_question}\n"
            ),
            "start": (
                "这是一个长文本能力的测试，你需要首先阅读下面的问题，然后根据最后长文档中的信息回答下面的问题。\n"
                "现在请问：{retrieval_question}\n"
                "\n"
                "长文档内容的如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
            ),
        },
    },
    "m-rt": {  # parallel.py
        "en": {
            "end": (
                "This is a test of long-text capability. You need to first read the long document below, and then answer the final questions one by one based on the information in the document.\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
                "Based on the information in the document, now please answer: {retrieval_question}\n"
            ),
            "start": (
                "This is a test of long-text capability. You need to first read the questions below, and then answer them one by one based on the information in the long document that follows.\n"
                "Now please answer: {retrieval_question}\n"
                "\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
            ),
        },
        "zh": {
            "end": (
                "这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息，依次回答最后的问题。\n"
                "长文档的内容如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
                "根据文档中的信息，现在请问：{retrieval_question}\n"
            ),
            "start": (
                "这是一个长文本能力的测试，你需要首先阅读下面的问题，然后根据最后长文档中的信息，依次回答下面的问题。\n"
                "现在请问：{retrieval_question}\n"
                "\n"
                "长文档内容的如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
            ),
        },
    },
    "m-rs": {  # multi.py
        "en": {
            "end": (
                "This is a test of long-text capability. You need to first read the long document below, and then answer the final question based on the information in the document.\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
                "Based on the information in the document, now please answer: {retrieval_question}\n"
                "\n"
                + ELDEST_EXAMPLES["en"] +
                "3. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the oldest relative '{last_person}' can trace back to in the provided text is \\boxed{{(your answer here)}}.\"\n"
                "\n"
            ),
            "start": (
                "This is a test of long-text capability. You need to first read the question below, and then answer it based on the information in the long document that follows.\n"
                "Now please answer: {retrieval_question}\n"
                "\n"
                + ELDEST_EXAMPLES["en"] +
                "3. At the end of your response, remember to put your final answer within \\boxed{{}}. For example: \"So the oldest relative '{last_person}' can trace back to in the provided text is \\boxed{{(your answer here)}}.\"\n"
                "\n"
                "The content of the long document is as follows\n"
                "\n"
                "<Document>\n"
                "{context}\n"
                "</Document>\n"
                "\n"
            ),
        },
        "zh": {
            "end": (
                "这是一个长文本能力的测试，你需要首先阅读下面的长文档，然后根据文档中的信息回答最后的问题。\n"
                "长文档的内容如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
                "根据文档中的信息，现在请问：{retrieval_question}\n"
                "\n"
                + ELDEST_EXAMPLES["zh"] +
                "3. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：“所以{last_person}能向上追溯到的最年长的亲人就是\\boxed{{（你的答案）}}”\n"
                "\n"
            ),
            "start": (
                "这是一个长文本能力的测试，你需要首先阅读下面的问题，然后根据最后长文档中的信息回答下面的问题。\n"
                "现在请问：{retrieval_question}\n"
                "\n"
                + ELDEST_EXAMPLES["zh"] +
                "3. 在回答的最后，将你的答案放在\\boxed{{}}中，例如：“所以{last_person}能向上追溯到的最年长的亲人就是\\boxed{{（你的答案）}}”\n"
                "\n"
                "长文档内容的如下\n"
                "\n"
                "<文档>\n"
                "{context}\n"
                "</文档>\n"
                "\n"
            ),
        },
    },
}
"""Task -> language -> question position (``end``, ``start``) -> the whole prompt."""

MRS_LINKS: dict[str, tuple[str, ...]] = {
    "en": (
        "{elder} is {younger}'s {role}.",
        "{younger}'s {role} is {elder}.",
        "{elder}, as {younger}'s {role}, has a significant impact on {younger}'s upbringing.",
        "{elder} is not only {younger}'s {role} but also {younger}'s role model.",
        "During {younger}'s upbringing, {elder} was not only {younger}'s {role}, but also {younger}'s guardian.",
        "For {younger}, {elder} is not just a {role}, but also a friend.",
        "For {younger}, {elder} is more than just a {role}; {elder} is a lifelong mentor of {younger}.",
    ),
    "zh": (
        "{elder}是{younger}的{role}。",
        "{younger}的{role}是{elder}。",
        "{elder}作为{younger}的{role}，对{younger}的成长有重要影响。",
        "{elder}不仅是{younger}的{role}，还是{younger}的榜样。",
        "{elder}在{younger}的成长过程中，不仅仅是{younger}的{role}，还是{younger}的监护人。",
        "{elder}对{younger}来说，不只是一个{role}，还是一个朋友。",
    ),
}
"""M-RS link sentences: atc.py's templates (multi.py imports them), with the ten terms of
:data:`generators.needlebench.official.OFFICIAL_TERMS`."""

MRS_QUESTION: dict[str, str] = {
    "en": "Given the context described above, who is the eldest relative that '{last_person}' can trace back to in the context?",
    "zh": "在上面提供的文本中，'{last_person}'的能够向上追溯到的最年长的亲人是谁？",
}
"""multi.py's ``retrieval_question``."""

NEEDLE_WRAP = "\n"
"""OpenCompass inserts every needle as ``'\\n' + needle + '\\n'``."""

MRS_DIFF_PERCENT = 10.0
"""multi.py's ``diff``: each M-RS needle goes 10 % of the filler after the previous one."""


def retrieval_question(task: str, lang: str, questions: Sequence[str], answer_formats: Sequence[str]) -> str:
    """The ``{retrieval_question}`` of S-RT or M-RT from the needles' questions and fill-in sentences.

    M-RT (parallel.py): the questions joined by ``、``, then ``Please answer in the format of '...'`` /
    ``请按照'...'的格式回答。`` with the answer formats joined by ``、``. S-RT (origin.py reads its
    needles.jsonl, whose questions parallel.py's parsing shows end in ``?``/``？`` followed by a quoted
    answer format ending in ``.``/``。``): ``<question> Please answer in the format '<format>.'`` (the
    paper's Figures 7-9) / ``<question>请按照'<format>。'的格式回答。``.
    """
    if task == "s-rt":
        (question,), (answer_format,) = questions, answer_formats
        if lang == "en":
            return f"{question} Please answer in the format '{answer_format}.'"
        return f"{question}请按照'{answer_format}。'的格式回答。"
    joined_questions, joined_formats = "、".join(questions), "、".join(answer_formats)
    if lang == "en":
        return f"{joined_questions}Please answer in the format of '{joined_formats}'"
    return f"{joined_questions}请按照'{joined_formats}'的格式回答。"


def official_frame(task: str, lang: str, position: str, **fields: str) -> tuple[str, str]:
    """The text before and after ``{context}`` of a task's official prompt, its other fields filled."""
    before, after = OFFICIAL_SPARSE_PROMPTS[task][lang][position].split("{context}")
    return before.format(**fields), after.format(**fields)
