"""The paper's judge prompts (Appendix D.2, Figures 9-11) and the reading of a judge's JSON verdict.

Three templates, each in Chinese and English, transcribed from the paper:

- ``reason`` (Figure 9): given the question, a candidate answer, the reference and the known
  result, explain why; the paper asks GPT-4o for this reason ``R_i`` to build the evaluation
  model's training targets (§4, Figure 3).
- ``temporal`` (Figure 10): judge a response to a temporal-order question; the verdict also says
  whether the question asks for chronological order.
- ``logical`` (Figure 11): judge a response to a logical-order question; only a complete match,
  order included, is correct.

Each is a ``str.format`` template with the fields ``{query}``, ``{answer}`` (the response to
judge) and ``{ref_answer}`` (the reference), plus ``{result}`` for ``reason``; the JSON blocks'
literal braces are doubled. Line breaks are single (the extracted PDF text puts a blank line
after every line); the Chinese templates fence their JSON in a ```json block and the English
ones do not, as the figures show.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, get_args

from needlework.checks import require_one_of
from needlework.errors import SpecError

PromptKind = Literal["reason", "temporal", "logical"]
PROMPT_KINDS: tuple[str, ...] = get_args(PromptKind)
Label = Literal["correct", "incorrect"]

_REASON_ZH = [
    "你将会被提供一个问题以及对应的两条答案。在这两条答案中，第一条是待评估答案，第二条是标准答案。以标准答案为参考，待评估答案的回答是否正确已经给出（“正确”或“错误”）。",
    "你需要根据给出的结论来分析原因并详细阐述原因，分析原因时请同时分析问题是否要求按时间顺序回答。",
    "不要让问题以及两条答案的长度影响你的分析。",
    "尽可能保持客观。请严格遵循以下格式输出最终结论。",
    "如果给出的结论是“正确”，请输出“正确”并分析原因。",
    "如果给出的结论是“错误”，请输出“错误”并分析原因。",
    "下面是本次需要评判的内容：",
    "<问题开始>", "{query}", "<问题结束>",
    "<待评估答案开始>", "{answer}", "<待评估答案结束>",
    "<标准答案开始>", "{ref_answer}", "<标准答案结束>",
    "<已知结论开始>", "{result}", "<已知结论结束>",
    "结果用json形式表示：",
    "```json",
    "{{",
    '"order_analysis": <分析问题是否要求按时间顺序回答>，',
    '"eval_analysis": <分析过程>，',
    "}}",
    "```",
]

_REASON_EN = [
    ("You will be provided with a question and two corresponding answers. Among these two answers, the first is the "
     "answer to be evaluated, and the second is the standard answer. Based on the standard answer, the correctness of "
     'the answer to be evaluated has already been given ("correct" or "incorrect").'),
    ("You need to analyze the reason for the given conclusion and elaborate on it in detail. When analyzing the reason, "
     "please also consider whether the question requires a response in temporal order."),
    "Do not let the length of the question or the two answers influence your analysis.",
    "Strive to remain as objective as possible. Please strictly adhere to the following format for the final output.",
    'If the given conclusion is "correct," output "correct" and analyze the reason.',
    'If the given conclusion is "incorrect," output "incorrect" and analyze the reason.',
    "Below is the content to be evaluated this time:",
    "<query_start>", "{query}", "<query_end>",
    "<answer_start>", "{answer}", "<answer_end>",
    "<ref_answer_start>", "{ref_answer}", "<ref_answer_end>",
    "<result_start>", "{result}", "<result_end>",
    "Present the result in JSON format:",
    "{{",
    '"order_analysis": <Analyze whether the question requires a response in temporal order>，',
    '"eval_analysis": <Analysis process>，',
    "}}",
]

_TEMPORAL_ZH = [
    "你将会被提供一个问题以及对应的两条答案。在这两条答案中，第一条是待评估答案，第二条是标准答案。你需要以标准答案作为参考，判断待评估答案的回答是否正确。",
    "请以公正的评判者身份评估待评估答案与标准答案，分析原因时请同时分析问题是否要求按时间顺序回答。",
    "不要让问题以及两条答案的长度影响你的评估。",
    "尽可能保持客观。请严格遵循以下格式输出最终结论。",
    "如果待评估答案最终得出的结论与标准答案的最终结论一致且符合问题要求，请回复“正确”。",
    "如果待评估答案最终得出的结论与标准答案的最终结论不一致或不符合问题要求，请输出“错误”。",
    "下面是本次需要评判的内容：",
    "<问题开始>", "{query}", "<问题结束>",
    "<待评估答案开始>", "{answer}", "<待评估答案结束>",
    "<标准答案开始>", "{ref_answer}", "<标准答案结束>",
    "结果用json形式表示：",
    "```json",
    "{{",
    ' "order_analysis": <分析问题是否要求按时间顺序回答>,',
    ' "eval_analysis": <评估的分析过程>,',
    ' "eval_label": <最终的评估结果-正确或错误>',
    "}}",
    "```",
]

_TEMPORAL_EN = [
    ("You will be provided with a question and two corresponding answers. Among these two answers, the first is the "
     "answer to be evaluated, and the second is the standard answer. You need to use the standard answer as a reference "
     "to determine whether the answer to be evaluated is correct."),
    ("Please act as a fair judge to evaluate the answer to be evaluated against the standard answer. When analyzing the "
     "reasons, also consider whether the question requires a response in chronological order."),
    "Do not let the length of the question or the two answers influence your evaluation.",
    "Strive to remain as objective as possible. Please strictly adhere to the following format for the final output.",
    ("If the conclusion of the answer to be evaluated matches the final conclusion of the standard answer and meets the "
     'requirements of the question, reply with "correct."'),
    ("If the conclusion of the answer to be evaluated does not match the final conclusion of the standard answer or does "
     'not meet the requirements of the question, output "incorrect."'),
    "Below is the content to be evaluated this time:",
    "<query_start>", "{query}", "<query_end>",
    "<answer_start>", "{answer}", "<answer_end>",
    "<ref_answer_start>", "{ref_answer}", "<ref_answer_end>",
    "Present the result in JSON format:",
    "{{",
    ' "order_analysis": <Analyze whether the question requires a response in chronological order>,',
    ' "eval_analysis": <Evaluation analysis process>,',
    ' "eval_label": <Final evaluation result—correct or incorrect>',
    "}}",
]

_LOGICAL_ZH = [
    "你将会被提供一个问题以及对应的两条答案。在这两条答案中，第一条是待评估答案，第二条是标准答案。你需要以标准答案为参考，判断待评估答案的回答是否正确。",
    "请以公正的评判者身份评估待评估答案与标准答案，分析原因时需要注意待评估答案的顺序和标准答案是否一致，只有完全一致才可视为正确。",
    "不要让问题以及两条答案的长度影响你的评估。",
    "尽可能保持客观。请严格遵循以下格式输出最终结论。",
    "如果待评估答案与标准答案一致且符合问题要求，请回复“正确”。",
    "如果待评估答案与标准答案不一致或不符合问题要求，请输出“错误”。",
    "下面是本次需要评判的内容：",
    "<问题开始>", "{query}", "<问题结束>",
    "<待评估答案开始>", "{answer}", "<待评估答案结束>",
    "<标准答案开始>", "{ref_answer}", "<标准答案结束>",
    "结果用 json 形式表示：",
    "```json",
    "{{",
    '  "eval_analysis": <评估的分析过程>,',
    '  "eval_label": <最终的评估结果-正确或错误>',
    "}}",
    "```",
]

_LOGICAL_EN = [
    ("You will be provided with a question and two corresponding answers. Among these two answers, the first is the "
     "answer to be evaluated, and the second is the standard answer. You need to use the standard answer as a reference "
     "to determine whether the answer to be evaluated is correct."),
    ("Please act as a fair judge to evaluate the answer to be evaluated against the standard answer. When analyzing the "
     "reasons, pay attention to whether the order of the answer to be evaluated matches the standard answer—only a "
     "complete match can be considered correct."),
    "Do not let the length of the question or the two answers influence your evaluation.",
    "Strive to remain as objective as possible. Please strictly adhere to the following format for the final output.",
    ('If the answer to be evaluated matches the standard answer and meets the requirements of the question, reply with '
     '"correct."'),
    ('If the answer to be evaluated does not match the standard answer or does not meet the requirements of the '
     'question, output "incorrect."'),
    "Below is the content to be evaluated this time:",
    "<query_start>", "{query}", "<query_end>",
    "<answer_start>", "{answer}", "<answer_end>",
    "<ref_answer_start>", "{ref_answer}", "<ref_answer_end>",
    "Present the result in JSON format:",
    "{{",
    ' "eval_analysis": <Evaluation analysis process>,',
    ' "eval_label": <Final evaluation result—correct or incorrect>',
    "}}",
]

JUDGE_PROMPTS: dict[tuple[str, str], str] = {
    ("reason", "zh"): "\n".join(_REASON_ZH),
    ("reason", "en"): "\n".join(_REASON_EN),
    ("temporal", "zh"): "\n".join(_TEMPORAL_ZH),
    ("temporal", "en"): "\n".join(_TEMPORAL_EN),
    ("logical", "zh"): "\n".join(_LOGICAL_ZH),
    ("logical", "en"): "\n".join(_LOGICAL_EN),
}
"""(kind, language) -> template: Figure 9 (``reason``), Figure 10 (``temporal``), Figure 11 (``logical``)."""

LABEL_WORDS: dict[str, dict[str, str]] = {
    "en": {"correct": "correct", "incorrect": "incorrect"},
    "zh": {"correct": "正确", "incorrect": "错误"},
}
"""The verdict words each language's prompts use, by label."""

_VERDICTS: dict[str, Label] = {"correct": "correct", "incorrect": "incorrect", "正确": "correct", "错误": "incorrect",
                               "right": "correct", "wrong": "incorrect", "不正确": "incorrect"}
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL | re.IGNORECASE)
_LABEL_FIELD = re.compile(r"""["']?eval_label["']?\s*[:：]\s*["'“”]?\s*([^"'“”,，}\n]+)""", re.IGNORECASE)
_VERDICT_STRIP = " \t\r\n.,;:!。，；：！<>《》*`\"'“”‘’"


def order_type_of(pipeline: str) -> str:
    """``"logical"`` for the real-logical pipeline, ``"temporal"`` for the two temporal ones (Appendix A)."""
    return "logical" if pipeline == "real-logical" else "temporal"


def judge_prompt(kind: str, lang: str, *, query: str, answer: str, ref_answer: str, result: str | None = None) -> str:
    """The paper's judge prompt of ``kind`` in ``lang`` with its fields filled.

    Args:
        kind: ``reason`` (Figure 9), ``temporal`` (Figure 10) or ``logical`` (Figure 11).
        lang: ``en`` or ``zh``.
        query: The question asked.
        answer: The answer to judge.
        ref_answer: The reference answer.
        result: For ``reason`` only: the known label, ``correct`` or ``incorrect`` (written in the
            prompt's language, "正确"/"错误" in Chinese).

    Raises:
        SpecError: Unknown kind or language, a ``reason`` prompt without a result, or a result
            given to another kind.
    """
    template = JUDGE_PROMPTS.get((kind, lang))
    if template is None:
        raise SpecError(f"no judge prompt ({kind!r}, {lang!r}); kinds: {', '.join(PROMPT_KINDS)}; languages: en, zh")
    if (kind == "reason") != (result is not None):
        raise SpecError("the reason prompt (Figure 9) needs result=correct|incorrect; the others take none")
    if result is None:
        return template.format(query=query, answer=answer, ref_answer=ref_answer)
    require_one_of("result", result, LABEL_WORDS[lang])
    return template.format(query=query, answer=answer, ref_answer=ref_answer, result=LABEL_WORDS[lang][result])


def parse_judge_json(text: str) -> dict[str, Any] | None:
    """The JSON object of a judge's output: the last fenced block, else the outermost ``{...}``.

    Full-width commas and a trailing comma (as the Figure 9 template itself writes them) are
    tolerated. Returns None when no object parses.
    """
    candidates = [m.group(1) for m in _FENCED.finditer(text)][::-1]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        for attempt in (candidate, re.sub(r",\s*}", "}", candidate.replace("，\n", ",\n"))):
            try:
                value = json.loads(attempt)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def verdict_of(value: str) -> Label | None:
    """``correct``/``incorrect`` for a verdict word in either language ("正确", "错误", "Correct."...)."""
    word = value.strip(_VERDICT_STRIP).casefold()
    return _VERDICTS.get(word)


def parse_eval_label(text: str) -> Label | None:
    """The ``eval_label`` of a Figure 10/11 verdict as ``correct`` or ``incorrect``; None when absent.

    Read from the parsed JSON (:func:`parse_judge_json`), else from a ``"eval_label": ...`` field
    found in malformed JSON. Accepted values: correct/incorrect (any case, surrounding punctuation
    ignored), 正确/错误, right/wrong, 不正确.
    """
    parsed = parse_judge_json(text)
    if parsed is not None and isinstance(parsed.get("eval_label"), str):
        label = verdict_of(parsed["eval_label"])
        if label is not None:
            return label
    for found in reversed(list(_LABEL_FIELD.finditer(text))):
        label = verdict_of(found.group(1))
        if label is not None:
            return label
    return None
