r"""The multiple-choice ATC in eval: OpenCompass's letter extraction and its circular scores.

OpenCompass evaluates NeedleBench v1's multiple-choice ATC
(``opencompass/configs/datasets/needlebench/atc/atc_choice*.py``) with
``pred_postprocessor=dict(type=first_option_postprocess, options='ABCD')`` and
``evaluator=dict(type=CircularEvaluator)``:

* :func:`first_option` reads the chosen letter as ``first_option_postprocess``
  (``opencompass/utils/text_postprocessors.py``) does: the first of its patterns, in order, that matches the
  stripped response (``re.DOTALL``) gives a captured text, and the answer is the first of ``A``..``D`` (in
  that order) that the text contains; a pattern whose capture holds none of them passes to the next; no
  pattern, no letter (``""``);
* ``CircularEvaluator`` (``opencompass/openicl/icl_evaluator/icl_circular_evaluator.py``) compares each rotation's
  letter with its right letter and reports, among others, ``acc_4`` (the share of rotations answered right),
  ``acc_1`` (the same over the ``ABCD`` rotation only) and ``perf_4`` (the share of questions whose four
  rotations are all right): :func:`circular_scores` computes the three per needle count, ``perf_4`` being the
  circular score.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from eval.scored import ScoredSample, round_score
from generators.needlebench.official_choice import CIRCULAR_PATTERNS, OPTION_LETTERS

FIRST_OPTION_PATTERNS: tuple[str, ...] = (
    r"答案是?\s*([{options}])",
    r"答案是?\s*：\s*([{options}])",
    r"答案是?\s*:\s*([{options}])",
    r"答案选项应?该?是\s*([{options}])",
    r"答案选项应?该?为\s*([{options}])",
    r"答案应该?是\s*([{options}])",
    r"答案应该?选\s*([{options}])",
    r"答案选项为?\s*：\s*([{options}])",
    r"答案选项为?\s+\(?\*?\*?([{options}])\*?\*?\)?",
    r"答案选项是?\s*:\s*([{options}])",
    r"答案为\s*([{options}])",
    r"答案选\s*([{options}])",
    r"选择?\s*([{options}])",
    r"故选?\s*([{options}])" r"只有选?项?\s?([{options}])\s?是?对",  # noqa: ISC004 (OpenCompass's missing comma)
    r"只有选?项?\s?([{options}])\s?是?错",
    r"只有选?项?\s?([{options}])\s?不?正确",
    r"只有选?项?\s?([{options}])\s?错误",
    r"说法不?对选?项?的?是\s?([{options}])",
    r"说法不?正确选?项?的?是\s?([{options}])",
    r"说法错误选?项?的?是\s?([{options}])",
    r"([{options}])\s?是正确的",
    r"([{options}])\s?是正确答案",
    r"选项\s?([{options}])\s?正确",
    r"所以答\s?([{options}])",
    r"所以\s?([{options}][.。$]?$)",
    r"所有\s?([{options}][.。$]?$)",
    r"[\s，：:,]([{options}])[。，,\.]?$",
    r"[\s，,：:][故即]([{options}])[。\.]?$",
    r"[\s，,：:]因此([{options}])[。\.]?$",
    r"[是为。]\s?([{options}])[。\.]?$",
    r"因此\s?([{options}])[。\.]?$",
    r"显然\s?([{options}])[。\.]?$",
    r"答案是\s?(\S+)(?:。|$)",
    r"答案应该是\s?(\S+)(?:。|$)",
    r"答案为\s?(\S+)(?:。|$)",
    r"(?i)ANSWER\s*:\s*([{options}])",
    r"[Tt]he answer is:?\s+\(?([{options}])\)?",
    r"[Tt]he answer is:?\s+\(?\*?\*?([{options}])\*?\*?\)?",
    r"[Tt]he answer is option:?\s+\(?([{options}])\)?",
    r"[Tt]he correct answer is:?\s+\(?([{options}])\)?",
    r"[Tt]he correct answer is option:?\s+\(?([{options}])\)?",
    r"[Tt]he correct answer is:?.*?boxed{{([{options}])}}",
    r"[Tt]he correct option is:?.*?boxed{{([{options}])}}",
    r"[Tt]he correct answer option is:?.*?boxed{{([{options}])}}",
    r"[Tt]he answer to the question is:?\s+\(?([{options}])\)?",
    r"^选项\s?([{options}])",
    r"^([{options}])\s?选?项",
    r"(\s|^)[{options}][\s。，,：:\.$]",
    r"1.\s?(.*?)$",
    r"1.\s?([{options}])[.。$]?$",
)
r"""``first_option_postprocess``'s ``patterns``, word for word, ``{options}`` standing for the letters. OpenCompass
writes no comma after ``故选?\s*([{options}])``, so Python joins it with the next pattern into one (kept)."""
CUSHION_PATTERNS: tuple[str, ...] = (r"([{options}]):", r"([{options}])")
"""``cushion_patterns``, tried last (``cushion=True``, the default the ATC config keeps)."""


def first_option(text: str, options: str = OPTION_LETTERS) -> str:
    """The option letter OpenCompass's ``first_option_postprocess(text, options)`` reads, or ``""``.

    Each pattern of :data:`FIRST_OPTION_PATTERNS` then :data:`CUSHION_PATTERNS` is searched in the stripped
    text with ``re.DOTALL``; on a match its first group (the whole match when the group is empty) is the
    captured text, and the first letter of ``options`` it contains is the answer. ``answer is C`` reads ``C``;
    ``答案是BD`` reads ``B`` (the letters' order, not the text's).
    """
    text = text.strip()
    for template in (*FIRST_OPTION_PATTERNS, *CUSHION_PATTERNS):
        match = re.search(template.format(options=options), text, re.DOTALL)
        if match:
            captured = match.group(1) if match.group(1) else match.group(0)
            letter = next((option for option in options if option in captured), None)
            if letter is not None:
                return letter
    return ""


def letter_match(references: Sequence[str], prediction: str) -> float:
    """1.0 when the read letter is the rotation's right letter (``CircularEvaluator``: ``pred == ref``), else 0.0."""
    return 1.0 if prediction and prediction == references[0] else 0.0


def circular_scores(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """``CircularEvaluator``'s scores of one task and language, per needle count and over all of them.

    A sample is one rotation; its ``qid`` metadata names the question its four rotations share and
    ``circular_pattern`` the rotation. A rotation that ended in an error or has no answer counts as wrong; a
    question whose four rotations are not all in the run (a row selection) has no circular score.

    Returns:
        ``by_needles``: per needle count ``circular`` (``perf_4``: the share of questions with every
        rotation right; None without a whole question), ``accuracy`` (``acc_4``: the share of rotations right), ``accuracy_abcd`` (``acc_1``:
        the ``ABCD`` rotation alone), ``n_questions``, ``n`` (rotations) and ``mean_n_tokens``; then the same
        three scores over every question (``circular``, ``accuracy``, ``accuracy_abcd``) and ``n_questions``.
        Scores are fractions in [0, 1].
    """
    by_count: dict[int, list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        by_count[int(sample.metadata["needle_count"])].append(sample)
    rows = {str(count): _scores(by_count[count]) for count in sorted(by_count)}
    return {"by_needles": rows, **{k: v for k, v in _scores(samples).items() if k not in ("n", "mean_n_tokens")}}


def _right(sample: ScoredSample) -> bool:
    return not sample.error_kind and float(sample.score or 0.0) == 1.0


def _scores(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    groups: dict[str, list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        groups[str(sample.metadata["qid"])].append(sample)
    whole = [group for group in groups.values()
             if sorted(str(s.metadata.get("circular_pattern")) for s in group) == sorted(CIRCULAR_PATTERNS)]
    complete = [all(map(_right, group)) for group in whole]
    first = [s for s in samples if s.metadata.get("circular_pattern") == CIRCULAR_PATTERNS[0]]
    tokens = [float(s.metadata["n_tokens"]) for s in samples if s.metadata.get("n_tokens") is not None]
    return {
        "circular": round_score(sum(complete) / len(complete)) if complete else None,
        "accuracy": round_score(sum(map(_right, samples)) / len(samples)),
        "accuracy_abcd": round_score(sum(map(_right, first)) / len(first)) if first else None,
        "n_questions": len(groups),
        "n": len(samples),
        "mean_n_tokens": round(sum(tokens) / len(tokens), 1) if tokens else None,
    }
