"""Pure scorers. Each takes the extracted prediction and the references and returns a float in [0, 1].

RULERv2 first; the NeedleBench scorers and aggregates (paper §3.1-3.2, equations 1 and 4) follow,
and the HaystackCraft QA metrics (token F1 and exact match, SQuAD v1.1 normalization, as MuSiQue's
evaluation uses) are at the end of the module.

The RULERv2 score (paper §2: "Our final score combines recall-based accuracy and word error
rate (WER): max(Recall, 1 - WER)"), computed per sample from the extracted prediction ``p`` and
the references ``r_1 .. r_n``:

    match(r, p)  = 1 if r.lower() occurs in p.lower(), else 0      (RULER's string match)
    1 - WER(r, p) = 1 - jiwer.wer(T(r), T(p)), clipped to [0, 1]

where ``T`` (:data:`WER_TRANSFORM`) lower-cases, removes every Unicode punctuation character and
splits on whitespace (any run of spaces, tabs or newlines); WER is computed for this one pair
(jiwer pools errors over a list) and can exceed 1, hence the clip. An empty reference after
``T`` scores 1 only against an empty prediction.

- ``"all"`` (every reference is part of the answer: multi-value NIAH, and every single-answer
  task): ``max(Recall, 1 - WER(r_1 + " " + ... + " " + r_n, p))`` with
  ``Recall = (match(r_1, p) + ... + match(r_n, p)) / n``. The WER is that of the whole expected
  answer, the references joined by one space in their given order.
- ``"part"`` (the references are alternatives and any one is a correct answer: multi-doc QA's gold
  indices and answer aliases): ``max over r of max(match(r, p), 1 - WER(r, p))``.

With one reference both rules give ``max(match(r, p), 1 - WER(r, p))``. Scores are not rounded.

The prediction is what a task extracts from the response (the RULERv2 rules per task are in
:mod:`eval.benchmarks.rulerv2.tasks`), and the RULERv2 tasks pass the references and the prediction with every
whitespace run collapsed to one space, so a copied question whose line breaks became spaces
still matches.
"""

from __future__ import annotations

import functools
import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import jiwer
from rapidfuzz.distance import Levenshtein


class _RemovePunctuation(jiwer.RemovePunctuation):
    """jiwer's punctuation removal (every Unicode ``P*`` character) in one ``str.translate`` pass.

    Same output as the parent, which calls ``str.replace`` once per punctuation character (819 of
    them) and made re-scoring wrong answers the slowest part of resuming a run. The table is made at
    the first call: jiwer finds the characters by testing all 1.1M code points (~0.3 s), which every
    ``python -m eval`` command paid at import whether it scored by WER or not.
    """

    def __init__(self) -> None:  # the parent's __init__ would find the characters now
        self.replace_token = ""

    @functools.cached_property
    def tokens_to_remove(self) -> set[str]:  # type: ignore[override]
        return jiwer.RemovePunctuation().tokens_to_remove

    @functools.cached_property
    def _table(self) -> dict[int, None]:
        return str.maketrans("", "", "".join(sorted(self.tokens_to_remove)))

    def process_string(self, s: str) -> str:
        return s.translate(self._table)


class _ReduceToWords(jiwer.ReduceToListOfListOfWords):
    """jiwer's split into words, on every whitespace character rather than on spaces only.

    The parent splits on " ", which keeps "red.\nA" one word: a multi-line reference (a question
    and its choices) would never align with the same text copied on one line.
    """

    def process_string(self, s: str) -> list[list[str]]:
        return [s.split()]


WER_TRANSFORM = jiwer.Compose([jiwer.ToLowerCase(), _RemovePunctuation(), _ReduceToWords()])

Aggregate = Literal["all", "part"]


def string_match(reference: str, prediction: str) -> float:
    """RULER's match: 1.0 if the reference occurs in the prediction, ignoring case, else 0.0."""
    return 1.0 if reference.lower() in prediction.lower() else 0.0


def recall(references: Sequence[str], prediction: str) -> float:
    """The fraction of references that :func:`string_match` finds in the prediction."""
    return sum(string_match(r, prediction) for r in references) / len(references)


def one_minus_wer(reference: str, prediction: str) -> float:
    """``1 - WER`` of one (reference, prediction) pair after :data:`WER_TRANSFORM`, clipped to [0, 1].

    Per pair on purpose: ``jiwer.wer`` on lists pools errors over the whole corpus. An empty
    reference (after the transform) scores 1 only against an empty prediction.
    """
    ref_words, hyp_words = WER_TRANSFORM(reference)[0], WER_TRANSFORM(prediction)[0]
    if not ref_words or not hyp_words:
        return 1.0 if ref_words == hyp_words else 0.0
    wer = jiwer.wer(" ".join(ref_words), " ".join(hyp_words))
    return min(1.0, max(0.0, 1.0 - wer))


def ruler_reference_score(reference: str, prediction: str) -> float:
    """``max(match, 1 - WER)`` for one reference: the score of a single-reference answer."""
    matched = string_match(reference, prediction)
    return matched if matched == 1.0 else max(matched, one_minus_wer(reference, prediction))


def ruler_score(references: Sequence[str], prediction: str, aggregate: Aggregate) -> float:
    """The RULERv2 score of one prediction, as the module docstring defines it.

    Args:
        references: The gold answers, in their given order (the order of the joined answer).
        prediction: The answer extracted from the model's response.
        aggregate: ``"all"``: ``max(Recall, 1 - WER)`` against the references joined by spaces;
            ``"part"``: the best reference's ``max(match, 1 - WER)``.

    Returns:
        The score in [0, 1].

    Raises:
        ValueError: No references.
    """
    if not references:
        raise ValueError("ruler_score needs at least one reference")
    if aggregate == "part":
        return max(ruler_reference_score(r, prediction) for r in references)
    found = recall(references, prediction)
    return found if found == 1.0 else max(found, one_minus_wer(" ".join(references), prediction))


RulerMatch = Literal["all", "part", "2steps"]
_DOCUMENT_BLOCK = re.compile(r"Document \d+:(?:.*\n)+?\n")


def official_wer(reference: str, prediction: str) -> float:
    """Word error rate as RULERv2's official scorer computes it (NeMo-Skills ``eval_ruler2``'s ``wer``).

    Word-level edit distance between the whitespace-split words, divided by the reference's word
    count; infinite for a reference without words. No lower-casing or punctuation removal here
    (the caller lower-cases both sides), no clipping.
    """
    ref_words, hyp_words = reference.split(), prediction.split()
    if not ref_words:
        return math.inf
    return Levenshtein.distance(hyp_words, ref_words) / len(ref_words)


def official_ruler_reference_score(reference: str, prediction: str) -> float:
    """``max(match, 1 - WER)`` for one reference, lower-cased, as NeMo-Skills ``eval_ruler2`` scores it."""
    ref, pred = reference.lower(), prediction.lower()
    return max(1.0 if ref in pred else 0.0, 1.0 - official_wer(ref, pred))


def official_ruler_score(references: Sequence[str], prediction: str, match: RulerMatch) -> float:
    """RULERv2's official score of a whole response (NeMo-Skills ``nemo_skills/evaluation/evaluator/ruler.py``, ``eval_ruler2``).

    * ``all``: the mean over references of :func:`official_ruler_reference_score`;
    * ``2steps``: the same on the response's last ``\\n\\n``-separated part;
    * ``part``: the best reference's score, after every copied ``Document N: ...`` block (up to
      the next blank line) is removed from the response.

    Which task uses which (``nemo_skills/dataset/ruler2/prepare_init.py``): multi-value medium
    ``2steps``, the QA tasks ``part``, the other NIAH tasks ``all``; multi-key medium and hard are
    multiple choice, scored apart.
    """
    if not references:
        raise ValueError("official_ruler_score needs at least one reference")
    if match == "part":
        text = _DOCUMENT_BLOCK.sub("", prediction)
        return max(official_ruler_reference_score(r, text) for r in references)
    text = prediction.split("\n\n")[-1] if match == "2steps" else prediction
    return sum(official_ruler_reference_score(r, text) for r in references) / len(references)


_FINAL_ANSWER_IS = re.compile(r"The final answer is (.+)$")
_LAST_STANDALONE_CAPITAL = re.compile(r"\b[A-Z]\b(?!.*\b[A-Z]\b)", re.DOTALL)
_ANSWER_COLON_LETTER = re.compile(r"(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Z])(?![a-zA-Z0-9])")


def official_last_box(response: str) -> str | None:
    """The content of the last ``\\boxed{...}`` as NeMo-Skills' ``math_grader.search_boxed`` reads it.

    From the last ``\\boxed``, braces are counted to the one that closes the first ``{``; the box
    must be written ``\\boxed{`` exactly (``\\boxed {x}`` gives None), and an unclosed box gives None.
    """
    start = response.rfind("\\boxed")
    if start < 0:
        return None
    depth = 0
    for position in range(start, len(response)):
        depth += {"{": 1, "}": -1}.get(response[position], 0)
        if response[position] == "}" and depth == 0:
            box = response[start : position + 1]
            return box[len("\\boxed{") : -1] if box.startswith("\\boxed{") else None
    return None


def official_choice_letter(response: str) -> str | None:
    """The chosen letter as NeMo-Skills' multiple-choice evaluator reads it (RULERv2 multi-key medium and hard).

    ``nemo_skills/evaluation/evaluator/mcq.py`` (``eval_mcq`` with its config defaults:
    ``extract_from_boxed=True``, ``relaxed=True``) and ``nemo_skills/evaluation/math_grader.py``
    (``extract_answer``), at 0b012df8a09cd4730d31b16e90a0d8f13d145fb8, the newest version run here
    (``tests/eval/test_rulerv2_official_differential.py`` pins its verdicts):

    1. the last box's content (:func:`official_last_box`) when it is not empty, else the last match of
       ``The final answer is (.+)$`` (``$`` without MULTILINE: only on the response's last line):
       ``extract_answer(relaxed=True)`` is ``search_boxed(s) or search_regex(s)``, so an empty box
       falls through to the sentence (``\\boxed{}`` then "The final answer is D" reads D);
    2. one character: that character as written (``d`` and the full-width ``Ｄ`` are not ``D``, and a box
       holding one space reads as a space); longer: the last standalone capital ``\\b[A-Z]\\b``
       (``\\boxed{ D }`` reads D);
    3. no letter yet: the last ``Answer:`` followed by one letter (any case, asterisks or underscores
       around allowed, not followed by a letter or digit) over the whole response, upper-cased.

    None when nothing is read; a sample is correct when the letter equals the expected one.
    """
    extracted = official_last_box(response)
    if not extracted:
        found = _FINAL_ANSWER_IS.findall(response)
        extracted = found[-1] if found else None
    letter = None
    if extracted is not None:
        if len(extracted) == 1:
            letter = extracted
        elif extracted:
            capitals = _LAST_STANDALONE_CAPITAL.findall(extracted)
            letter = capitals[-1].strip() if capitals else None
    if letter is None:
        stated = _ANSWER_COLON_LETTER.findall(response)
        letter = stated[-1].strip().upper() if stated else None
    return letter


# RULERv2 math base tasks (Appendix D.2: GSM8K, MATH500) ------------------------------------------------

MATH_CHOICE_LETTERS = "ABCDEFGHIJ"
"""Answers ``math_grader.math_equal`` first compares as multiple-choice options."""
MATH_NUMERIC_PRECISION = 15
MATH_TIMEOUT_SECONDS = 10
"""``MathEvaluatorConfig`` defaults (``nemo_skills/evaluation/evaluator/math.py``) passed to ``verify``."""
_PERCENT = re.compile(r"^(\d+\.?\d*)(?:\\%|%)$")
_TEXT_LITERAL = re.compile(r"[a-zA-Z ,]+")
_LATEX_ENVIRONMENT = re.compile(r"\$.*\$|\\\(.*\\\)|\\\[.*\\\]|\\boxed\{", re.DOTALL)


def official_math_answer(response: str) -> str | None:
    """The answer NeMo-Skills' math evaluator reads: the last box's content, None without one.

    ``nemo_skills/evaluation/evaluator/math.py`` calls ``math_grader.extract_answer`` with its config
    defaults (``extract_from_boxed=True``, ``relaxed_extraction=False``), which is ``search_boxed``
    alone (:func:`official_last_box`): no "The final answer is" fallback.
    """
    return official_last_box(response)


def _math_normalization(expr: str) -> str:
    # math_grader._additional_normalization: a plain percentage loses its sign, a sentence's full stop
    # (and trailing backslashes) go.
    found = _PERCENT.fullmatch(expr)
    if found:
        expr = found.group(1)
    return expr.rstrip(".\\")


def official_math_equal(reference: object, prediction: object) -> bool:
    r"""Whether a predicted math answer equals the reference, as NeMo-Skills' ``math_grader.math_equal``
    decides (``nemo_skills/evaluation/math_grader.py``, with math-verify and latex2sympy2_extended):

    1. no prediction (None): False;
    2. a reference that is one letter A-J: equal when math-verify's string extraction of those
       letters agrees on both sides;
    3. both sides: a lone percentage ``12%`` / ``12\%`` becomes ``12``, trailing ``.`` and ``\`` are stripped;
    4. equal when ``latex2sympy2_extended.normalize_latex`` (default ``NormalizationConfig``) gives the
       same string up to spaces;
    5. two normalized plain-text answers (only letters, spaces, commas) that differ: False;
    6. otherwise symbolic: each side wrapped in ``$...$`` unless it has a LaTeX environment, parsed
       with ``LatexExtractionConfig()`` and compared with math-verify's ``verify`` (numeric
       precision 15, 10 s timeout: the evaluator's defaults), so ``42.0`` equals ``42``,
       ``\frac{1}{2}`` equals ``0.5`` and ``016`` equals ``16``.

    math-verify's timeouts use ``signal.alarm``, which works only in the main thread; elsewhere the
    comparison runs without them.
    """
    if prediction is None:
        return False
    import threading

    from latex2sympy2_extended import NormalizationConfig, normalize_latex
    from math_verify import LatexExtractionConfig, StringExtractionConfig, parse, verify

    main = threading.current_thread() is threading.main_thread()
    parse_timeout, verify_timeout = (5, MATH_TIMEOUT_SECONDS) if main else (None, None)
    gold, pred = str(reference), str(prediction)
    letters = StringExtractionConfig(strings=tuple(MATH_CHOICE_LETTERS))
    if re.fullmatch("|".join(MATH_CHOICE_LETTERS), gold.strip()) and verify(
        parse(gold, [letters], parsing_timeout=parse_timeout), parse(pred, [letters], parsing_timeout=parse_timeout),
        timeout_seconds=verify_timeout,
    ):
        return True
    gold, pred = _math_normalization(gold), _math_normalization(pred)
    # NeMo-Skills passes the NormalizationConfig class itself (its defaults), as here.
    normalized_gold = normalize_latex(gold, NormalizationConfig)  # type: ignore[arg-type]
    normalized_pred = normalize_latex(pred, NormalizationConfig)  # type: ignore[arg-type]
    if normalized_gold.replace(" ", "") == normalized_pred.replace(" ", ""):
        return True
    if _TEXT_LITERAL.fullmatch(normalized_gold) and _TEXT_LITERAL.fullmatch(normalized_pred):
        return False
    gold = gold if _LATEX_ENVIRONMENT.search(gold) else f"${gold}$"
    pred = pred if _LATEX_ENVIRONMENT.search(pred) else f"${pred}$"
    return bool(verify(parse(gold, [LatexExtractionConfig()], parsing_timeout=parse_timeout),
                       parse(pred, [LatexExtractionConfig()], parsing_timeout=parse_timeout),
                       numeric_precision=MATH_NUMERIC_PRECISION, timeout_seconds=verify_timeout))


# NeedleBench ----------------------------------------------------------------------------------------

QUOTES = "\"'`\u2018\u2019\u201c\u201d\u300c\u300d\u300e\u300f\u300a\u300b"
"""Quote marks stripped from both ends of a boxed answer (ASCII, curly, and CJK corner/angle brackets)."""
FINAL_PUNCTUATION = ".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f\u3001"
"""Punctuation stripped from the end of a boxed answer (ASCII and full-width; NFKC maps most of the latter)."""
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|textit|textrm|textsf|mathrm|mathbf|mathit|mbox|operatorname)\s*\{([^{}]*)\}")
_LATEX_SPACE = re.compile(r"\\[ ,;:!]|~")
_COUNT_WITH_UNIT = re.compile(r"(\d+)\s*(?:generations?|代)?")


def normalize_match_text(text: str) -> str:
    """Text as NeedleBench keyword matching compares it: NFKC, whitespace runs made one space, casefolded.

    NFKC folds full-width Latin letters and digits (common in Chinese answers) to ASCII; casefolding
    only affects Latin (and other cased) scripts, so Chinese text is compared as written.
    """
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def keyword_match(keywords: Sequence[str], prediction: str) -> float:
    """NeedleBench equation 1: full credit when any keyword occurs in the prediction.

        Score_{c,d,r} = 1 if P_{c,d,r} ∩ W_{c,d,r} ≠ ∅ else 0

    (the paper writes 100 for 1). "Occurs" is containment after :func:`normalize_match_text` on
    both sides: case-insensitive for Latin text, whitespace runs collapsed.

    Args:
        keywords: The core keywords ``W`` (the row's answers); empty strings are ignored.
        prediction: The extracted prediction ``P``.

    Returns:
        1.0 or 0.0.

    Raises:
        ValueError: No non-empty keyword.
    """
    found = _keywords_found(keywords, prediction)
    return 1.0 if any(found) else 0.0


def keyword_recall(keywords: Sequence[str], prediction: str) -> float:
    """Multi-needle retrieval: equation 1 applied to every asked needle, averaged.

        score = (1 / K) * sum_k [w_k occurs in P]

    Each of the ``K`` needles asked for has one keyword ``w_k``, and each is credited separately by
    :func:`keyword_match`; the sample scores the share found, so retrieving 4 of 5 needles scores
    0.8 rather than the 1.0 that "any keyword" would give (needlework's reading of equation 1 for
    M-RT; the paper does not spell out the multi-keyword case).

    When one asked keyword contains another (``舍凯`` and ``舍凯梅``), the shorter one counts only
    where it occurs outside the longer one, so one answer cannot be credited for two needles.

    Raises:
        ValueError: No non-empty keyword.
    """
    found = keyword_hits(keywords, prediction)
    return sum(found) / len(found)


def keyword_hits(keywords: Sequence[str], prediction: str) -> list[bool]:
    """Per non-empty keyword, whether :func:`keyword_recall` credits it (their mean is its score): the
    per-needle hits NeedleBench's per-depth M-RT breakdown scores each depth with."""
    return _keywords_found(keywords, prediction, exclusive=True)


def _keywords_found(keywords: Sequence[str], prediction: str, exclusive: bool = False) -> list[bool]:
    """Whether each keyword occurs in the prediction; ``exclusive``: outside the longer keywords containing it."""
    wanted = [normalize_match_text(k) for k in keywords]
    wanted = [k for k in wanted if k]
    if not wanted:
        raise ValueError("NeedleBench keyword scoring needs at least one non-empty keyword")
    text = normalize_match_text(prediction)
    found = []
    for keyword in wanted:
        rest = text
        if exclusive:
            for longer in sorted({k for k in wanted if keyword in k and k != keyword}, key=lambda k: (-len(k), k)):
                rest = rest.replace(longer, "\0")
        found.append(keyword in rest)
    return found


def official_keyword_hits(keywords: Sequence[str], prediction: str) -> list[bool]:
    """Per keyword, whether it occurs in the response as OpenCompass NeedleBench v2 tests it: ``keyword in
    prediction`` on the text as written, case, whitespace and Unicode form included, each keyword on its own
    (``NeedleBenchOriginEvaluator`` in ``datasets/needlebench_v2/origin.py`` for S-RT,
    ``NeedleBenchParallelEvaluator`` in ``parallel.py`` for M-RT, a5acc4bb).

    Raises:
        ValueError: No keyword.
    """
    if not keywords:
        raise ValueError("NeedleBench keyword scoring needs at least one keyword")
    return [keyword in prediction for keyword in keywords]


def official_keyword_match(keywords: Sequence[str], prediction: str) -> float:
    """S-RT as OpenCompass scores it: 1.0 when the needle's keyword (any of ``keywords``; a row has one) occurs in
    the response as written (:func:`official_keyword_hits`), else 0.0."""
    return 1.0 if any(official_keyword_hits(keywords, prediction)) else 0.0


def official_keyword_recall(keywords: Sequence[str], prediction: str) -> float:
    """M-RT as OpenCompass scores one response: the share of the asked keywords that occur in it as written
    (``NeedleBenchParallelEvaluator`` credits each keyword's depth on its own, so a keyword inside another
    one asked, ``Vete`` in ``Vetera``, counts too)."""
    hits = official_keyword_hits(keywords, prediction)
    return sum(hits) / len(hits)


def normalize_boxed_answer(text: str) -> str:
    r"""A boxed answer as ATC exact match compares it.

    NFKC; ``\text{...}``-style wrappers (``\text``, ``\textbf``, ``\mathrm``, ``\mbox``...) replaced by
    their content and LaTeX spaces (``\ ``, ``\,``, ``~``) by a space; whitespace runs collapsed;
    casefolded; quote marks (:data:`QUOTES`) and final punctuation (:data:`FINAL_PUNCTUATION`)
    stripped from the ends. ``\boxed{\text{"Nina Watts."}}`` and ``nina watts`` both read
    ``nina watts``.
    """
    text = unicodedata.normalize("NFKC", text)
    while True:
        unwrapped = _LATEX_TEXT.sub(r"\1", text)
        if unwrapped == text:
            break
        text = unwrapped
    text = " ".join(_LATEX_SPACE.sub(" ", text).split()).casefold()
    previous = None
    while text != previous:
        previous = text
        text = text.strip().rstrip(FINAL_PUNCTUATION).strip().strip(QUOTES)
    return text


def exact_answer_match(references: Sequence[str], prediction: str) -> float:
    r"""ATC exact match (paper §3.2): the boxed answer equals a reference after :func:`normalize_boxed_answer`.

        EM = 1 if norm(P) = norm(a) for some reference a, else 0

    A reference of digits (``relationship_distance``: generations apart) is compared as an integer,
    and the prediction may carry the unit the question asks in: ``5``, ``05``, ``5 generations`` and
    ``5代`` all equal ``5``; ``five`` or ``about 5`` do not. An empty prediction (no box) scores 0:
    the paper counts answers outside ``\boxed{}`` as wrong.

    Args:
        references: The gold answers (ATC rows have one).
        prediction: The content of the response's last ``\boxed{}``, "" without one.

    Returns:
        1.0 or 0.0.
    """
    answer = normalize_boxed_answer(prediction)
    if not answer:
        return 0.0
    count = _COUNT_WITH_UNIT.fullmatch(answer)
    for reference in references:
        gold = normalize_boxed_answer(reference)
        if gold.isdecimal() and gold.isascii():
            if count is not None and int(count.group(1)) == int(gold):
                return 1.0
        elif gold and answer == gold:
            return 1.0
    return 0.0


_OC_TEXT = re.compile(r"\\text\{([^}]+)\}")
_OC_BOXED = re.compile(r"\\boxed\{([^}]+)\}")
_OC_DISPLAY_BRACKET = re.compile(r"\\[\[\]]")
_OC_WHITESPACE = re.compile(r"\s+")
_OC_OUTER_BRACES = re.compile(r"^\{(.*)\}$")
OFFICIAL_NO_ANSWER = "None"
"""What the official reading gives a response without a usable box (it never equals a name)."""


def official_boxed_answer(response: str) -> str:
    r"""The answer NeedleBench v2's official scoring reads from a response (M-RS and ATC).

    Follows OpenCompass ``needlebench_atc_postprocess_v2`` (``opencompass/datasets/needlebench_v2/atc.py``)
    with its ``extract_boxed_answer(..., strip_double_curly_brace=True)``: the last ``\boxed`` (or,
    without one, ``\fbox``), its brace-balanced content only when the box reads exactly
    ``\boxed{...}``, one pair of outer braces dropped; then ``\text{x}`` and ``\boxed{x}`` replaced by
    ``x``, ``\[`` and ``\]`` removed, every backslash removed, whitespace runs collapsed and the ends
    stripped, ``"`` and ``'`` removed, ``~`` turned into a space. No box, an unclosed one or an empty
    answer read :data:`OFFICIAL_NO_ANSWER`.
    """
    start = response.rfind("\\boxed")
    if start < 0:
        start = response.rfind("\\fbox")
    if start < 0:
        return OFFICIAL_NO_ANSWER
    depth, end = 0, None
    for i in range(start, len(response)):
        if response[i] == "{":
            depth += 1
        elif response[i] == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
    box = response[start:end + 1] if end is not None else ""
    if not (box.startswith("\\boxed{") and box.endswith("}")):
        return OFFICIAL_NO_ANSWER
    answer = box[len("\\boxed{"):-1]
    outer = _OC_OUTER_BRACES.match(answer)
    if outer:
        answer = outer.group(1)
    if not answer:
        return OFFICIAL_NO_ANSWER
    answer = _OC_DISPLAY_BRACKET.sub("", _OC_BOXED.sub(r"\1", _OC_TEXT.sub(r"\1", answer)))
    answer = answer.replace("\\\\", "").replace("\\", "")
    answer = _OC_WHITESPACE.sub(" ", answer).strip()
    return answer.replace('"', "").replace("'", "").replace("~", " ")


def official_exact_match(references: Sequence[str], prediction: str) -> float:
    """NeedleBench v2's official exact match (OpenCompass ``NeedleBenchATCEvaluator``, used for ATC and M-RS).

        score = 1 if P.strip() == a.strip() for the reference a, else 0

    Case, punctuation and Unicode form count: ``nina watts`` or ``Nina Watts.`` do not equal
    ``Nina Watts``. ``prediction`` is :func:`official_boxed_answer`'s reading of the response.
    """
    return 1.0 if any(prediction.strip() == r.strip() for r in references) else 0.0


def weighted_average(acc_by_needles: Mapping[int, float]) -> float:
    """NeedleBench equation 4, the needle-count-weighted average of ATC accuracy.

        Weighted Average = sum_N (P_N * N) / sum_N N

    over the needle counts ``N`` given. The result is in the unit of the accuracies (fractions in,
    fraction out; the paper's percentages in, percentage out).

    Args:
        acc_by_needles: Exact-match accuracy ``P_N`` per needle count ``N`` (N >= 1).

    Returns:
        The weighted average, unrounded.

    Raises:
        ValueError: No needle count, or a count below 1.
    """
    if not acc_by_needles:
        raise ValueError("weighted_average needs at least one needle count")
    if any(int(n) < 1 for n in acc_by_needles):
        raise ValueError(f"needle counts must be >= 1, got {sorted(acc_by_needles)}")
    return sum(p * n for n, p in acc_by_needles.items()) / sum(acc_by_needles)


def enl(acc_by_needles: Mapping[int, float], tau: float = 0.5) -> int:
    """NeedleBench's Effective Needle Length, equation 4.

        ENL_tau = max { N | P_N >= tau }

    The largest needle count whose accuracy reaches ``tau`` (not the first count below it: a model
    at 40% on 8 needles and 60% on 16 has ENL 16). ``tau = 0.5`` is ENL-50 for accuracies given as
    fractions; pass ``tau=50`` for percentages.

    Args:
        acc_by_needles: Exact-match accuracy ``P_N`` per needle count ``N``.
        tau: The threshold, in the unit of the accuracies.

    Returns:
        ENL, or 0 when no count reaches ``tau``.
    """
    return max((int(n) for n, p in acc_by_needles.items() if p >= tau), default=0)


# HaystackCraft ----------------------------------------------------------------------------------------

SQUAD_PUNCTUATION = frozenset(string.punctuation)
"""The characters SQuAD v1.1 normalization removes: ASCII punctuation only (curly quotes stay)."""
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalization, as MuSiQue's evaluation uses: the text its F1 and EM compare.

    In this order: lower-case; remove every ASCII punctuation character (``string.punctuation``);
    replace the articles "a", "an" and "the" (whole words) by a space; collapse whitespace runs to
    one space and strip the ends. ``"The Eiffel-Tower!"`` -> ``"eiffeltower"``.
    """
    text = "".join(ch for ch in text.lower() if ch not in SQUAD_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, reference: str) -> float:
    """Token F1 of one prediction against one reference (SQuAD v1.1 / MuSiQue).

    With ``P`` and ``G`` the whitespace tokens of the normalized prediction and reference
    (:func:`normalize_answer`) and ``c`` the size of their multiset intersection:

        precision = c / |P|,  recall = c / |G|,  F1 = 2 * precision * recall / (precision + recall)

    F1 is 0 when ``c`` is 0; when either side normalizes to no tokens, F1 is 1 if both do, else 0.
    ``token_f1("the Eiffel Tower", "Eiffel Tower in Paris")`` = 2 * (1 * 0.5) / 1.5 = 2/3.
    """
    predicted, gold = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def max_f1(prediction: str, references: Sequence[str]) -> float:
    """MuSiQue's answer F1: the best :func:`token_f1` over the answer and its aliases.

        F1(p) = max over r in references of token_f1(p, r)

    Args:
        prediction: The extracted answer.
        references: The gold answer then its aliases (the row's ``answers``).

    Returns:
        The F1 in [0, 1].

    Raises:
        ValueError: No references.
    """
    if not references:
        raise ValueError("max_f1 needs at least one reference")
    return max(token_f1(prediction, reference) for reference in references)


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """MuSiQue's exact match: 1.0 when the normalized prediction equals a normalized reference.

        EM(p) = max over r in references of [normalize_answer(p) == normalize_answer(r)]

    Raises:
        ValueError: No references.
    """
    if not references:
        raise ValueError("exact_match needs at least one reference")
    answer = normalize_answer(prediction)
    return 1.0 if any(answer == normalize_answer(reference) for reference in references) else 0.0
