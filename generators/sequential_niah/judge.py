"""Judge data (paper §4, Figure 3, Tables 3, 4 and 6): candidate answers labelled correct or incorrect.

For a :class:`~generators.sequential_niah.qa.SequentialQA`, a candidate answer is built from the
reference items in one of four answer groups, each either kept in order ("w/o shuffle") or
shuffled ("w/ shuffle"):

==========  ===========================================================================
group       candidate items
==========  ===========================================================================
gt          every reference item
missing     the reference items with 1..n-1 of them removed at random
redundant   every reference item plus 1..3 extra items (the QA's distractors, or items
            of other questions of the same language, pipeline and set) at random positions
incorrect   some reference items removed and some extra items added, together
==========  ===========================================================================

"Shuffled" means the reference items that remain are not in their reference order (a
non-identity permutation; at least two must remain, so a two-item missing or incorrect
candidate is never shuffled). Labels follow the paper's rule (Appendix A): a GT candidate
without shuffle is correct; a shuffled GT candidate is correct only when the question does not
ask for the items in order; every other group is incorrect.

Candidates are written the way a model answers: a lead sentence, then the items as a numbered
or bulleted list in one of several styles per language, sometimes with the items' dates
rewritten into another format, sometimes with a closing sentence.

The judge-train and judge-test sets (Table 3: 6,000 and 1,960 at full size) draw from disjoint
questions, stratified by language and pipeline; the eight (group, shuffle) cells are balanced
within each stratum (Table 4 has about 1/8 of the test set per cell).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from needlework.checks import require_one_of
from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.prompts import judge_prompt, order_type_of
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, JudgeSpec

GROUPS: tuple[str, ...] = ("gt", "missing", "redundant", "incorrect")
"""The paper's answer groups (Table 4), in its order."""
CELLS: tuple[tuple[str, bool], ...] = tuple((group, shuffled) for group in GROUPS for shuffled in (False, True))
"""(group, shuffled) in the column order of Table 6."""
SPLITS: tuple[str, ...] = ("train", "test")
MAX_EXTRA_ITEMS = 3
"""At most this many extra items in a redundant or incorrect candidate."""
DISTRACTOR_SHARE = 0.5
"""Chance that an extra item is one of the question's own distractors, when it has some left."""




@dataclass(frozen=True)
class JudgeRecord:
    """One candidate answer to judge, with the paper's label and the prompts that judge it.

    Attributes:
        id: ``judge/{split}/{qid}/{k}`` (``k``: the question's k-th candidate in the set).
        order_type: ``temporal`` or ``logical`` (which judge prompt applies, Figures 10/11).
        ordered: Whether the question asks for the items in order.
        group: One of :data:`GROUPS`.
        shuffled: Whether the remaining reference items are out of reference order.
        label: ``correct`` or ``incorrect`` (:func:`label_for`).
        candidate: The answer as text, as a model would write it.
        candidate_items: The candidate's items, in the order written (dates possibly reformatted).
        item_answer_index: For each candidate item, the index of its reference item in
            ``answers``, or -1 for an extra (redundant) item.
        prompt: The evaluation prompt ``X_i`` (Figure 10 or 11 in the question's language).
        reason_prompt: The reason-analysis prompt (Figure 9) with the known label, to obtain ``R_i``.
    """

    id: str
    split: str
    qid: str
    lang: str
    pipeline: str
    source: str
    order_type: str
    ordered: bool
    group: str
    shuffled: bool
    label: str
    question: str
    reference: str
    answers: tuple[str, ...]
    candidate: str
    candidate_items: tuple[str, ...]
    item_answer_index: tuple[int, ...]
    prompt: str
    reason_prompt: str

    def to_row(self) -> dict[str, Any]:
        """The record as a dataset row (lists instead of tuples)."""
        row = asdict(self)
        for name in ("answers", "candidate_items", "item_answer_index"):
            row[name] = list(row[name])
        return row


def label_for(group: str, shuffled: bool, ordered: bool) -> str:
    """The paper's label (Appendix A): GT is correct unless shuffled when order is required; the rest incorrect."""
    require_one_of("answer group", group, GROUPS)
    if group != "gt":
        return "incorrect"
    return "incorrect" if shuffled and ordered else "correct"


# Candidate items -------------------------------------------------------------------------------------


def _key(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .。")


def _non_identity_permutation(n: int, rng: np.random.Generator) -> list[int]:
    while True:
        order = [int(i) for i in rng.permutation(n)]
        if order != list(range(n)):
            return order


def candidate_items(qa: SequentialQA, group: str, shuffled: bool, extras: Sequence[str],
                    rng: np.random.Generator) -> tuple[list[str], list[int], bool]:
    """Items of a candidate in ``group``: (texts, reference index or -1 per item, shuffled).

    ``extras`` are the items a redundant or incorrect candidate may add (drawn in order: the
    caller has already sampled them). The returned flag is False when a shuffle was asked for
    but fewer than two reference items remain.
    """
    n = len(qa.answers)
    keep = list(range(n))
    if group in ("missing", "incorrect"):
        max_removed = n - 2 if shuffled and n >= 3 else n - 1
        removed = {int(i) for i in rng.choice(n, size=int(rng.integers(1, max_removed + 1)), replace=False)}
        keep = [i for i in keep if i not in removed]
    shuffled = shuffled and len(keep) >= 2
    if shuffled:
        keep = [keep[i] for i in _non_identity_permutation(len(keep), rng)]
    items: list[tuple[str, int]] = [(qa.answers[i], i) for i in keep]
    if group in ("redundant", "incorrect"):
        if not extras:
            raise SpecError(f"{qa.qid}: a {group} candidate needs at least one extra item")
        for extra in extras:
            items.insert(int(rng.integers(0, len(items) + 1)), (extra, -1))
    return [text for text, _ in items], [index for _, index in items], shuffled


def sample_extras(qa: SequentialQA, others: Sequence[tuple[str, str]], rng: np.random.Generator) -> list[str]:
    """1..:data:`MAX_EXTRA_ITEMS` extra items for a redundant or incorrect candidate of ``qa``.

    Each draw takes one of the QA's distractors with probability :data:`DISTRACTOR_SHARE` (always
    when ``others`` is empty), else a random entry of ``others`` (``(qid, item)`` of the set's
    questions; the QA's own entries are skipped). No item equal to one of the QA's answers or to
    an item already drawn (ignoring case and spacing) is taken.

    Raises:
        SpecError: Nothing can be drawn.
    """
    own = {_key(answer) for answer in qa.answers}
    distractors = [d for d in qa.distractors if _key(d) not in own]
    wanted = int(rng.integers(1, MAX_EXTRA_ITEMS + 1))
    chosen: list[str] = []
    seen = set(own)
    for _ in range(16 * MAX_EXTRA_ITEMS):
        if len(chosen) == wanted or not (distractors or others):
            break
        if distractors and (not others or rng.random() < DISTRACTOR_SHARE):
            item = distractors[int(rng.integers(0, len(distractors)))]
        else:
            qid, item = others[int(rng.integers(0, len(others)))]
            if qid == qa.qid:
                continue
        if _key(item) not in seen:
            seen.add(_key(item))
            chosen.append(item)
    if not chosen:
        raise SpecError(f"{qa.qid}: no extra items for redundant answers: no distractors and no other "
                        f"{qa.lang} question in the set")
    return chosen


# Rendering --------------------------------------------------------------------------------------------

LEADS: dict[tuple[str, str], tuple[str, ...]] = {
    ("en", "temporal"): ("Based on the document, here are the events in chronological order:",
                         "According to the document, the answer is as follows:",
                         "The document mentions the following:",
                         "Here is what I found in the document:"),
    ("en", "logical"): ("Here are the steps, in order:",
                        "Based on the document, the steps are:",
                        "According to the document, the answer is as follows:"),
    ("zh", "temporal"): ("根据文档，按时间顺序整理如下：", "根据文档内容，答案如下：", "文档中提到的相关内容如下："),
    ("zh", "logical"): ("根据文档，具体步骤如下：", "按照顺序，步骤如下：", "根据文档内容，答案如下："),
}
"""Lead sentences by (language, order type)."""
CLOSINGS: dict[str, tuple[str, ...]] = {
    "en": ("These are all the relevant items mentioned in the document.", "I hope this helps."),
    "zh": ("以上是文档中提到的全部相关内容。", "希望对你有帮助。"),
}
MARKERS: dict[str, tuple[str, ...]] = {
    "en": ("{n}. ", "{n}) ", "- ", "* ", "• ", "{n}. **", "Step {n}: "),
    "zh": ("{n}. ", "{n}、", "（{n}）", "- ", "第{n}步：", "{n}. **"),
}
"""List markers per language; a marker ending in ``**`` bolds the item. ``Step``/``第n步`` only for
logical questions."""
CLOSING_CHANCE = 1 / 3
DATE_REWRITE_CHANCE = 1 / 3

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_MONTH = "|".join(MONTHS)
_EN_MDY = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_EN_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH}),?\s+(\d{{4}})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_ZH = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日")
DATE_FORMATS: dict[str, tuple[str, ...]] = {"en": ("iso", "mdy", "dmy"), "zh": ("iso", "zh", "zh-unpadded")}


def format_date(year: int, month: int, day: int, style: str) -> str:
    """A date written in ``style``: iso ``2007-10-12``, mdy ``October 12, 2007``, dmy ``12 October 2007``,
    zh ``2007年10月12日``, zh-unpadded ``2007年10月12日`` without leading zeros (``2006年2月1日``)."""
    if style == "iso":
        return f"{year:04d}-{month:02d}-{day:02d}"
    if style == "mdy":
        return f"{MONTHS[month - 1]} {day}, {year}"
    if style == "dmy":
        return f"{day} {MONTHS[month - 1]} {year}"
    if style == "zh":
        return f"{year}年{month:02d}月{day:02d}日"
    if style == "zh-unpadded":
        return f"{year}年{month}月{day}日"
    raise SpecError(f"unknown date style {style!r}")


def rewrite_dates(text: str, style: str) -> str:
    """Every full date in ``text`` (``October 12, 2007``, ``12 October 2007``, ``2007-10-12``,
    ``2007年10月12日``) rewritten in ``style`` (:func:`format_date`); other text unchanged."""
    def sub(pattern: re.Pattern[str], order: tuple[int, int, int], month_name: bool) -> None:
        nonlocal text

        def replace(match: re.Match[str]) -> str:
            parts = [match.group(i) for i in order]
            month = MONTHS.index(parts[1]) + 1 if month_name else int(parts[1])
            if not 1 <= month <= 12 or not 1 <= int(parts[2]) <= 31:
                return match.group(0)
            return format_date(int(parts[0]), month, int(parts[2]), style)
        text = pattern.sub(replace, text)

    sub(_EN_MDY, (3, 1, 2), True)
    sub(_EN_DMY, (3, 2, 1), True)
    sub(_ZH, (1, 2, 3), False)
    sub(_ISO, (1, 2, 3), False)
    return text


def render_candidate(items: Sequence[str], lang: str, order_type: str, rng: np.random.Generator
                     ) -> tuple[str, list[str]]:
    """The candidate as a model would write it, and its items as written (dates maybe rewritten).

    A lead sentence from :data:`LEADS`, a line break or a blank line, one line per item with a
    marker from :data:`MARKERS`, and (with probability :data:`CLOSING_CHANCE`) a blank line and a
    closing sentence. With probability :data:`DATE_REWRITE_CHANCE` every date is rewritten in one
    other style of the language.
    """
    markers = [m for m in MARKERS[lang] if order_type == "logical" or not ("Step" in m or "步" in m)]
    marker = markers[int(rng.integers(0, len(markers)))]
    written = list(items)
    if rng.random() < DATE_REWRITE_CHANCE:
        styles = DATE_FORMATS[lang]
        style = styles[int(rng.integers(0, len(styles)))]
        written = [rewrite_dates(item, style) for item in written]
    leads = LEADS[(lang, order_type)]
    lines = [leads[int(rng.integers(0, len(leads)))]]
    if rng.random() < 0.5:
        lines.append("")
    for n, item in enumerate(written, start=1):
        lines.append(marker.format(n=n) + item + ("**" if marker.endswith("**") else ""))
    if rng.random() < CLOSING_CHANCE:
        closings = CLOSINGS[lang]
        lines += ["", closings[int(rng.integers(0, len(closings)))]]
    return "\n".join(lines), written


# Sets ---------------------------------------------------------------------------------------------------


def _largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (integers summing to ``total``; ties to the first)."""
    whole = sum(weights)
    if whole == 0:
        return [0] * len(weights)
    quotas = [total * w / whole for w in weights]
    counts = [math.floor(q) for q in quotas]
    for index in sorted(range(len(weights)), key=lambda i: (counts[i] - quotas[i], i))[: total - sum(counts)]:
        counts[index] += 1
    return counts


def split_judge_qas(qas: Sequence[SequentialQA], spec: JudgeSpec, *, seed: int
                    ) -> dict[str, tuple[SequentialQA, ...]]:
    """Disjoint question pools for judge-train and judge-test, stratified by (language, pipeline).

    With at least ``train_size + test_size`` questions each set takes one question per
    candidate; with fewer, the questions are split in proportion to the set sizes (each non-empty
    set gets at least one) and questions get several candidates each. Within each stratum the
    questions are in a seeded random order; pools list the strata in sorted order.

    Raises:
        SpecError: Repeated qids, or fewer questions than non-empty sets.
    """
    qids = [qa.qid for qa in qas]
    if len(set(qids)) != len(qids):
        raise SpecError("judge sets need distinct question ids; some qid repeats")
    sizes = {"train": spec.train_size, "test": spec.test_size}
    wanted = [s for s in SPLITS if sizes[s]]
    if len(qas) < len(wanted):
        raise SpecError(f"judge sets {', '.join(wanted)} need at least {len(wanted)} questions, got {len(qas)}")
    if len(qas) >= spec.train_size + spec.test_size:
        pool_sizes = dict(sizes)
    else:
        test = _largest_remainder(len(qas), [spec.train_size, spec.test_size])[1]
        test = min(max(test, 1 if spec.test_size else 0), len(qas) - (1 if spec.train_size else 0))
        pool_sizes = {"test": test, "train": len(qas) - test}
    strata: dict[tuple[str, str], list[SequentialQA]] = defaultdict(list)
    for qa in sorted(qas, key=lambda q: q.qid):
        strata[(qa.lang, qa.pipeline)].append(qa)
    keys = sorted(strata)
    for key in keys:
        order = rng_for(seed, BENCHMARK, "judge-split", "/".join(key)).permutation(len(strata[key]))
        strata[key] = [strata[key][int(i)] for i in order]
    pools: dict[str, tuple[SequentialQA, ...]] = {}
    taken = [0] * len(keys)
    for split in ("test", "train"):
        left = [len(strata[k]) - t for k, t in zip(keys, taken)]
        counts = _largest_remainder(pool_sizes[split], left)
        pools[split] = tuple(qa for i, k in enumerate(keys) for qa in strata[k][taken[i]: taken[i] + counts[i]])
        taken = [t + c for t, c in zip(taken, counts)]
    return {split: pools[split] for split in SPLITS}


def judge_records(pool: Sequence[SequentialQA], split: str, size: int, *, seed: int,
                  fallback: Sequence[SequentialQA] = ()) -> list[JudgeRecord]:
    """``size`` judge records over the questions of ``pool`` (one set's pool from :func:`split_judge_qas`).

    Record ``i`` judges question ``j = i mod len(pool)`` with its ``k = i div len(pool)``-th
    candidate, in cell ``CELLS[(j + k + r) mod 8]`` (``r`` a seeded rotation per set), so cells are
    balanced along the pool and a question's candidates fall in distinct cells. Extra items come
    from the question's distractors and the answers of the pool's other questions of its language
    and pipeline (of its language when it is the only one of its pipeline; of the ``fallback``
    questions of its language when it is the pool's only question of its language, as in small
    builds).
    Each record's random choices come from ``rng_for(seed, "sequential-niah", "judge-{split}", "{qid}/{k}")``.

    Raises:
        SpecError: Unknown split, an empty pool for a non-zero size, or a question with no
            possible extra item.
    """
    require_one_of("judge split", split, SPLITS)
    if size and not pool:
        raise SpecError(f"judge-{split}: {size} records asked for but the question pool is empty")
    task = f"judge-{split}"
    rotation = int(rng_for(seed, BENCHMARK, task, "cells").integers(0, len(CELLS)))
    entries: dict[Any, list[tuple[str, str]]] = defaultdict(list)
    questions: Counter[Any] = Counter()
    for qa in pool:
        for key in ((qa.lang, qa.pipeline), qa.lang):
            entries[key] += [(qa.qid, answer) for answer in qa.answers]
            questions[key] += 1
    for qa in fallback:
        entries[("fallback", qa.lang)] += [(qa.qid, answer) for answer in qa.answers]
        questions[("fallback", qa.lang)] += 1
    records = []
    for i in range(size):
        j, k = i % len(pool), i // len(pool)
        qa = pool[j]
        group, shuffled = CELLS[(j + k + rotation) % len(CELLS)]
        rng = rng_for(seed, BENCHMARK, task, f"{qa.qid}/{k}")
        extras: list[str] = []
        if group in ("redundant", "incorrect"):
            extras = _extras_from_widest(qa, [entries[k] for k in ((qa.lang, qa.pipeline), qa.lang, ("fallback", qa.lang))
                                              if questions[k] > 1], rng)
        items, sources, shuffled = candidate_items(qa, group, shuffled, extras, rng)
        order_type = order_type_of(qa.pipeline)
        text, written = render_candidate(items, qa.lang, order_type, rng)
        label = label_for(group, shuffled, qa.ordered)
        records.append(JudgeRecord(
            id=f"judge/{split}/{qa.qid}/{k}", split=split, qid=qa.qid, lang=qa.lang, pipeline=qa.pipeline,
            source=qa.source, order_type=order_type, ordered=qa.ordered, group=group, shuffled=shuffled, label=label,
            question=qa.question, reference=qa.reference, answers=qa.answers, candidate=text,
            candidate_items=tuple(written), item_answer_index=tuple(sources),
            prompt=judge_prompt(order_type, qa.lang, query=qa.question, answer=text, ref_answer=qa.reference),
            reason_prompt=judge_prompt("reason", qa.lang, query=qa.question, answer=text, ref_answer=qa.reference,
                                       result=label),
        ))
    return records


def _extras_from_widest(qa: SequentialQA, peer_pools: Sequence[Sequence[tuple[str, str]]],
                        rng: np.random.Generator) -> list[str]:
    """:func:`sample_extras` from the first of ``peer_pools`` (narrowest first) that yields an item:
    in small worlds, peers of one pipeline can share every item with the question."""
    for pool in peer_pools[:-1]:
        try:
            return sample_extras(qa, pool, rng)
        except SpecError:
            continue
    return sample_extras(qa, peer_pools[-1] if peer_pools else [], rng)


def build_judge_sets(qas: Sequence[SequentialQA], spec: JudgeSpec = JudgeSpec(), *, seed: int
                     ) -> dict[str, list[JudgeRecord]]:
    """The judge-train and judge-test sets from disjoint questions (:func:`split_judge_qas`, :func:`judge_records`).

    Args:
        qas: The QA source (any pipelines and languages; distinct qids).
        spec: Set sizes in candidates (Table 3 by default: 6,000 and 1,960).
        seed: Build seed; same questions, spec and seed give identical records.

    Returns:
        ``{"train": [...], "test": [...]}`` with ``spec.train_size`` and ``spec.test_size`` records.
    """
    pools = split_judge_qas(qas, spec, seed=seed)
    sizes = {"train": spec.train_size, "test": spec.test_size}
    return {split: judge_records(pools[split], split, sizes[split], seed=seed, fallback=qas) for split in SPLITS}
