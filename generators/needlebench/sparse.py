"""The information-sparse tasks (paper §3.1): S-RT, M-RT and M-RS needles at depths in filler text.

For each repetition ``r`` the needles and the filler's starting sentence are drawn once, from
the key ``needles=<k>/r=<r>``, so the cells of the depth x length grid differ only in depth and
length: the heatmap compares like with like. Each needle goes to the sentence boundary nearest
its depth (percent of the filler's tokens; in the ``official`` style to a token, see below), several
needles spread evenly from the row's depth to the end (:func:`generators.needlebench.rows.spread_depths`),
and as much filler as fits fills the target length minus the language's buffer, verified with one encode
(:func:`generators.haystack.fill_haystack`).

* S-RT: one retrieval needle; the paper's single-needle prompt (Figures 7-9).
* M-RT: ``k`` retrieval needles, every one asked in the order they appear (Figure 10).
* M-RS: a kinship chain of ``k`` needles in scrambled order; the question asks the youngest
  person's eldest ancestor (Figure 11).

Two choices follow OpenCompass v2 when the spec asks (the ``paper`` preset does): the ``context``
budget rule (:data:`generators.needlebench.spec.BUDGET_RULES`) and M-RT's ``per-depth`` layout, one
row per length and repetition with needle ``i`` at the grid's ``i``-th depth
(``opencompass/datasets/needlebench_v2/parallel.py``); such a row's ``depth`` is null and each
needle's ``requested_depth`` says where it was asked to go, so a scorer can score per depth.

The ``official`` style also inserts as OpenCompass v2 does (:mod:`generators.needlebench.official_insertion`): the
filler is cut at a token and each needle goes at the token position the official code computes, inside a
sentence if that is where it falls, so a needle asked at 10 % sits at 10 % of the filler at 1K tokens too (the
nearest sentence end can be a fifth of a short Chinese haystack away). ``requested_depth`` is then where the
official rule asks (under ``diff``, multi.py's steps count the earlier needles' tokens too).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from generators.budget import Fitted, TokenBudget
from generators.haystack import Frame, fill_haystack, needle_renderer
from generators.needlebench.filler import Filler
from generators.needlebench.kinship import PersonNames, answer_question, kinship_chain
from generators.needlebench.needles import retrieval_needles
from generators.needlebench.official import OFFICIAL_EXAMPLE_NAMES, official_chain
from generators.needlebench.official_insertion import (
    asked_depths,
    official_slots,
    token_pieces,
)
from generators.needlebench.official_sparse import (
    MRS_DIFF_PERCENT,
    MRS_LINKS,
    MRS_QUESTION,
    NEEDLE_WRAP,
    official_frame,
    retrieval_question,
)
from generators.needlebench.rows import (
    NEEDLE_SEPARATOR,
    placed_needles,
    row,
    spread_depths,
)
from generators.needlebench.spec import BENCHMARK, RETRIEVAL, SparseSpec
from generators.needlebench.templates import KINSHIP, SPARSE, kinship_tail
from generators.seeding import rng_for
from needlework.tokens import TokenCounter


@dataclass(frozen=True)
class SparseContent:
    """What one repetition asks: needles in placement order, the frame and the answers.

    Attributes:
        needles: Needle sentences in the order they are placed (top to bottom).
        keywords: Per needle, the keyword it carries ("" for kinship needles).
        frame: Instruction before and question after the document.
        query: The question(s) asked.
        answers: The keywords scored: one per asked item.
        question_type: ``retrieval`` or ``eldest_ancestor``.
    """

    needles: tuple[str, ...]
    keywords: tuple[str, ...]
    frame: Frame
    query: str
    answers: tuple[str, ...]
    question_type: str


def sparse_content(spec: SparseSpec, rng: np.random.Generator, count: int, names: PersonNames) -> SparseContent:
    """The needles, prompt frame and answers of one repetition with ``count`` needles."""
    if spec.style == "official":
        return official_content(spec, rng, count, names)
    frame = SPARSE[spec.lang]
    if spec.task == "m-rs":
        chain = kinship_chain(rng, count, spec.lang, names)
        ask = answer_question(rng, chain, "eldest_ancestor")
        order = rng.permutation(count)
        kinship = KINSHIP[spec.lang]
        question = kinship.mrs_question_lead + kinship.questions["eldest_ancestor"].question.format(person=ask.person)
        tail = kinship_tail(spec.lang, "eldest_ancestor", atc=False).format(person=ask.person)
        suffix = frame.ask + question + tail
        return SparseContent(tuple(chain.sentences(order)), ("",) * count, Frame(frame.intro_single, suffix),
                             question, (ask.answer,), "eldest_ancestor")
    needles = retrieval_needles(rng, count, spec.lang)
    questions = frame.question_joiner.join(n.question for n in needles)
    if spec.task == "s-rt":
        answer = frame.answer_single.format(answer_format=needles[0].answer_format)
        intro = frame.intro_single
    else:
        joined = frame.format_joiner.join(n.answer_format for n in needles) + frame.format_end
        answer = frame.answer_multi.format(answer_format=joined)
        intro = frame.intro_multi
    keywords = tuple(n.keyword for n in needles)
    return SparseContent(tuple(n.text for n in needles), keywords, Frame(intro, frame.ask + questions + answer),
                         questions, keywords, RETRIEVAL)


def official_content(spec: SparseSpec, rng: np.random.Generator, count: int, names: PersonNames) -> SparseContent:
    """:func:`sparse_content` in OpenCompass v2's words (origin.py, parallel.py, multi.py).

    M-RS: ``count`` links of ``count + 1`` people (multi.py draws ``num_needles + 1`` names) in atc.py's
    link sentences, shuffled; the answer is the eldest. ``names`` must already avoid
    :data:`generators.needlebench.official.OFFICIAL_EXAMPLE_NAMES`.
    """
    if spec.task == "m-rs":
        people = names.draw(rng, count + 1, spec.lang)
        sentences, _ = official_chain(rng, people, spec.lang, MRS_LINKS[spec.lang])
        order = rng.permutation(count)
        question = MRS_QUESTION[spec.lang].format(last_person=people[-1])
        before, after = official_frame("m-rs", spec.lang, spec.question_position, retrieval_question=question,
                                       last_person=people[-1])
        return SparseContent(tuple(sentences[i] for i in order.tolist()), ("",) * count, Frame(before, after), question,
                             (people[0],), "eldest_ancestor")
    needles = retrieval_needles(rng, count, spec.lang)
    question = retrieval_question(spec.task, spec.lang, [n.question for n in needles], [n.answer_format for n in needles])
    before, after = official_frame(spec.task, spec.lang, spec.question_position, retrieval_question=question)
    keywords = tuple(n.keyword for n in needles)
    return SparseContent(tuple(n.text for n in needles), keywords, Frame(before, after), question, keywords, RETRIEVAL)


def _placed(spec: SparseSpec, needles: tuple[str, ...]) -> list[str]:
    """Needles as inserted: with the language's separator after each, or on their own line (official)."""
    if spec.style == "official":
        return [NEEDLE_WRAP + n + NEEDLE_WRAP for n in needles]
    return [n + NEEDLE_SEPARATOR[spec.lang] for n in needles]


def _needle_records(spec: SparseSpec, content: SparseContent, fitted: Fitted, depths: list[float],
                    needle_tokens: np.ndarray, filler_tokens: int) -> list[dict[str, Any]]:
    """The ``needles`` column; an official-style needle's ``char_offset`` is its text's, after the line break
    it is inserted with (its ``token_offset`` stays the inserted piece's), and its ``requested_depth`` is where the
    official rule asks it to go in the ``filler_tokens`` that fitted
    (:func:`generators.needlebench.official_insertion.asked_depths`)."""
    if spec.style == "official":
        depths = asked_depths(filler_tokens, depths, needle_tokens.tolist(), spec.layout, MRS_DIFF_PERCENT)
    records = placed_needles(content.needles, fitted.placements, content.keywords, depths)
    if spec.style == "official":
        for record in records:
            record["char_offset"] += len(NEEDLE_WRAP)
    return records


def _needle_depths(spec: SparseSpec, depth: float | None, count: int) -> list[float]:
    """Requested depth of each needle of a row: the grid (per-depth), multi.py's steps (diff) or spread."""
    if depth is None:
        return list(map(float, spec.depths))
    if spec.layout == "diff":
        return [min(float(depth) + i * MRS_DIFF_PERCENT, 100.0) for i in range(count)]
    return spread_depths(float(depth), count)


def generate_sparse(spec: SparseSpec, *, seed: int, tokens: TokenCounter, filler: Filler,
                    names: PersonNames) -> Iterator[dict[str, Any]]:
    """Rows of one information-sparse task and language: needle counts x repeats x lengths x depths.

    Args:
        spec: Task, language, lengths, depths, repeats, needle counts and buffer.
        seed: Build seed.
        tokens: The build's tokenizer (one verifying encode per row).
        filler: The language's filler text, counted with ``tokens``.
        names: Person names for M-RS kinship needles.
    """
    if spec.style == "official":
        names = replace(names, avoid=names.avoid | OFFICIAL_EXAMPLE_NAMES)
    for count in spec.needle_counts:
        for r in range(spec.repeats):
            rng = rng_for(seed, BENCHMARK, f"{spec.task}-{spec.lang}", f"needles={count}/r={r:03d}")
            content = sparse_content(spec, rng, count, names)
            start = filler.random_start(rng, at_document=spec.style == "official")
            placed = _placed(spec, content.needles)
            needle_tokens = tokens.count_batch(placed)
            frame_tokens = tokens.count(content.frame.prefix + content.frame.suffix)
            for length in spec.lengths:
                budget = _budget(spec, length, content.frame, frame_tokens, placed, needle_tokens, tokens)
                units, unit_tokens = filler.window(start, budget.limit)
                if spec.style == "official":
                    units, unit_tokens = token_pieces("".join(units), tokens)
                for depth in _row_depths(spec):
                    depths = _needle_depths(spec, depth, count)
                    slots = (official_slots(depths, needle_tokens.tolist(), spec.layout, MRS_DIFF_PERCENT)
                             if spec.style == "official" else None)
                    fitted = fill_haystack(units, unit_tokens, placed, needle_tokens, depths, content.frame,
                                           frame_tokens, budget, tokens, slots)
                    at = "all" if depth is None else f"{float(depth):g}"
                    yield row(
                        id=f"{spec.task}/{spec.lang}/needles={count}/len={length}/depth={at}/r={r:03d}",
                        input=fitted.rendered.text, answers=list(content.answers), query=content.query,
                        task=spec.task, lang=spec.lang, target_tokens=length,
                        depth=None if depth is None else float(depth), needle_count=count,
                        question_type=content.question_type, repeat=r, n_tokens=fitted.n_tokens,
                        length_buffer=spec.buffer, tokenizer=tokens.name, filler=filler.source,
                        needles=_needle_records(spec, content, fitted, depths, needle_tokens,
                                                int(unit_tokens[:fitted.n_units].sum())),
                    )


def _row_depths(spec: SparseSpec) -> tuple[float | None, ...]:
    """The depth of each row of a (length, repeat): every depth, or one ``None`` row (per-depth layout)."""
    return (None,) if spec.layout == "per-depth" else tuple(spec.depths)


def _budget(spec: SparseSpec, length: int, frame: Frame, frame_tokens: int, placed: list[str],
            needle_tokens: np.ndarray, tokens: TokenCounter) -> TokenBudget:
    """The prompt budget of a target length under the spec's budget rule.

    ``prompt``: the whole prompt within ``length - buffer``. ``context`` (OpenCompass v2,
    ``opencompass/datasets/needlebench_v2/origin.py``: ``context_length = length - length_buffer``,
    filler ``max(context_length - needles, 0)`` tokens): filler and needles within
    ``max(length - buffer, needles)`` tokens, instructions on top. When no filler fits, the limit is
    the exact count of the prompt without filler, so the needles always fit.
    """
    if spec.budget_rule == "prompt":
        return TokenBudget(length, spec.buffer)
    needles = int(np.sum(needle_tokens))
    filler_tokens = max(length - spec.buffer - needles, 0)
    limit = frame_tokens + needles + filler_tokens
    if filler_tokens < len(placed) + 2:
        bare = needle_renderer([], np.zeros(0, dtype=np.int64), placed, [0.0] * len(placed), frame)(0).text
        limit = max(limit, tokens.count(bare))
    return TokenBudget(limit)
