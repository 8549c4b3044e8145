"""RULERv2 tasks whose context is indexed items: NIAH easy to hard, and multi-doc QA basic to hard.

A context is a list of items, ``Question {index}: {question}`` or ``Document {index}: {document}``,
each followed by a blank line, with random unique indices of ``index_digits`` digits (7 in the
paper). The gold items (the queried question, the questions sharing the queried index, or the
gold documents), any demonstration items, and as many distractor items as the token budget holds
are placed in a random order. Distractors are other questions of the pool, or for multi-doc QA the
question's own distractor paragraphs first (HotpotQA's distractor setting) and then random
documents of the pool; no pool item appears twice in a sample.

Pairing: sample ``i`` hides the same gold item(s) at every length and every level of a domain
(the gold order is drawn per domain), so scores compare across lengths and levels question by
question, and the golden-context baseline row ``i`` asks the same question with no distractors.

Cost: item contents are priced once per build (:func:`prepare_materials`), labels from digit-group
counts, so a sample costs one verifying encode plus formatting the items that fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from generators.budget import (
    DigitCounts,
    PieceCounts,
    Rendered,
    TokenBudget,
    fit_prompt,
    render_alone,
    units_that_fit,
)
from generators.rulerv2.niah_basic import draw_unique
from generators.rulerv2.pools import DocQaPool, McqPool, ProblemPool
from generators.rulerv2.spec import BENCHMARK, ItemTaskSpec
from generators.rulerv2.templates import (
    ACTUAL_TASK,
    EXAMPLES_HEADER,
    PAPER_ACTUAL_TASK,
    PAPER_EXAMPLES_HEADER,
    ItemTemplate,
    item_templates,
    ordinal,
)
from generators.seeding import rng_for
from needlework.errors import BudgetError, SpecError
from needlework.tokens import TokenCounter

GOLD_ATTEMPTS = 64
"""Golds tried in turn for a sample before a length is declared too short for the task."""
ITEM_SEP = "\n\n"
"""What follows every item in a context: a blank line (questions and documents span lines)."""


@dataclass(frozen=True)
class PricedItems:
    """Item contents in the tokenizer's normalized form, and the tokens each takes after its label.

    ``tokens[i]`` counts ``" " + texts[i] + ITEM_SEP``: the space after the label's colon, the
    content and the blank line that closes the item.
    """

    texts: tuple[str, ...]
    tokens: np.ndarray


def item_text(text: str, tokens: TokenCounter, *, strip: bool = True) -> str:
    """An item's content as it appears in a context: line breaks as ``\n`` (MMLU has a few
    ``\r\n``), stripped unless ``strip`` is false (the ``paper`` preset's questions keep the
    official rendering's edge spaces), in the tokenizer's normalized form."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return tokens.normalize(text.strip() if strip else text)


def price_items(texts: Sequence[str], tokens: TokenCounter, lead: str = " ", *, strip: bool = True) -> PricedItems:
    """Normalize item contents (:func:`item_text`) and count each once, in one batch (the per-build cost).

    ``lead`` is what separates the label's colon from the content (a space, or a line break for the
    ``paper`` preset's documents); it is counted with the content.
    """
    normalized = tuple(item_text(t, tokens, strip=strip) for t in texts)
    return PricedItems(normalized, tokens.count_batch([f"{lead}{t}{ITEM_SEP}" for t in normalized]))


def paper_question_text(text: str) -> str:
    """A question as ``prepare_mmlu.py`` hides it: every whitespace run (the line breaks before the
    choices included) collapsed to one space (``re.sub`` of ``\\s+``)."""
    return re.sub(r"\s+", " ", text)


@dataclass(frozen=True)
class Materials:
    """The base tasks of a build with their items priced: what the ten item tasks draw from.

    Attributes:
        mcq: Multiple-choice questions for multi-key and multi-value NIAH (or a base task's problems,
            :class:`ProblemPool`, for multi-key NIAH over GSM8K, MATH500 or MBPP).
        questions: ``mcq.questions`` rendered (:meth:`Mcq.render`) and priced.
        shots: ``mcq.shots`` rendered and priced (few-shot demonstration items).
        docqa: Documents and questions for multi-doc QA.
        documents: ``docqa.documents`` rendered (:meth:`Document.render`) and priced.
        digits: Token counts of every 1- to 3-digit group, which price the item indices.
        distractors: ``mcq.distractors`` rendered and priced (the questions that fill the context
            when the pool has them).
        preset: The preset the items were rendered for (``paper`` collapses question whitespace
            and prices documents after a line break).
    """

    digits: DigitCounts
    mcq: McqPool | ProblemPool | None = None
    questions: PricedItems | None = None
    shots: PricedItems | None = None
    docqa: DocQaPool | None = None
    documents: PricedItems | None = None
    distractors: PricedItems | None = None
    preset: str = ""


def prepare_materials(
    tokens: TokenCounter, mcq: McqPool | ProblemPool | None = None, docqa: DocQaPool | None = None, preset: str = ""
) -> Materials:
    """Price the items of the given pools once, for every task and length of a build (for ``preset``)."""
    paper = preset == "paper"

    def questions(items: Sequence) -> PricedItems:
        if paper and isinstance(mcq, McqPool):
            return price_items([q.official_text() for q in items], tokens, strip=False)
        rendered = [q.render() for q in items]
        return price_items([paper_question_text(t) for t in rendered] if paper else rendered, tokens)

    return Materials(
        digits=DigitCounts(PieceCounts(tokens)),
        mcq=mcq,
        questions=questions(mcq.questions) if mcq else None,
        shots=questions(mcq.shots) if mcq and mcq.shots else None,
        docqa=docqa,
        documents=price_items([d.render() for d in docqa.documents], tokens, "\n" if paper else " ") if docqa else None,
        distractors=questions(mcq.distractors) if mcq and mcq.distractors else None,
        preset=preset,
    )


@dataclass(frozen=True)
class _Item:
    """One item of a sample's context before rendering."""

    key: str
    text: str
    tokens: int
    source_id: str
    answer: str = ""


@dataclass(frozen=True)
class _Draw:
    """What one sample hides and asks: gold and demonstration items, candidates, prompt parts."""

    fixed: list[_Item]
    n_gold: int
    candidates: np.ndarray
    spare_keys: list[str]
    query: str
    answers_of: Callable[[list[_Item]], list[str]]
    order: int | None
    qid: str | None


class _Labels:
    """Predicts the tokens of ``{label} {index}:`` from a part measured once and the index digits."""

    def __init__(
        self, template: ItemTemplate, priced: PricedItems, digits: int, digit_counts: DigitCounts, tokens: TokenCounter
    ) -> None:
        self.template = template
        self.digits = digit_counts
        self.radices = (9, *([10] * (digits - 1)))
        reference = "1" * digits
        unit = template.item.format(index=reference, text=priced.texts[0]) + ITEM_SEP
        self.base = tokens.count(unit) - int(self.key_tokens([reference])[0]) - int(priced.tokens[0])

    def key_tokens(self, keys: Sequence[str]) -> np.ndarray:
        """Predicted tokens of each index's digits."""
        rows = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(len(keys), -1) - 48
        return self.digits.predict(rows.astype(np.int64))

    def draw_keys(self, rng: np.random.Generator, n: int) -> list[str]:
        """``n`` distinct random indices with exactly the configured number of digits."""
        rows = draw_unique(rng, self.radices, n)
        rows[:, 0] += 1
        width = rows.shape[1]
        return np.ascontiguousarray((rows + 48).astype(np.uint8)).view(f"S{width}").ravel().astype(str).tolist()

    def unit(self, item: _Item) -> str:
        """The item as it appears in the context, closing blank line included."""
        return self.template.item.format(index=item.key, text=item.text) + ITEM_SEP


def generate(spec: ItemTaskSpec, *, seed: int, tokens: TokenCounter, materials: Materials) -> Iterator[dict]:
    """Rows of one item task: ``samples`` per length in the given order, then the golden rows if asked.

    Args:
        spec: The task and its options.
        seed: Build seed; each row's RNG comes from (seed, benchmark, task, row key).
        tokens: The build's tokenizer; budgets and ``n_tokens`` are exact under it.
        materials: The priced pools (:func:`prepare_materials`); multiple-choice questions for
            the NIAH domains, documents and questions for multi-doc QA.

    Yields:
        Rows with ``id``, ``input``, ``answers``, ``query``, ``answer_prefix``, ``task``, ``level``,
        ``order``, ``shots``, ``source``, ``qid``, ``target_tokens`` (0 for golden rows),
        ``n_tokens``, ``generation_reserve``, ``tokenizer``, ``n_items``, ``golden`` and
        ``needles`` (the gold items in text order: text, char and token offset, realized depth in
        percent of context tokens, and the source id of the question or document).
    """
    plan = _Plan(spec, seed, tokens, materials)
    for length in spec.options.lengths:
        budget = TokenBudget(length, spec.options.generation_reserve)
        for index in range(spec.options.samples):
            yield plan.row(f"len={length}/i={index:04d}", index, budget)
    if spec.options.golden:
        for index in range(spec.options.samples):
            yield plan.row(f"golden/i={index:04d}", index, None)


class _Plan:
    """Everything one task's samples share: template, pool, prices and the per-domain gold order.

    ``priced`` holds the items that fill the context as distractors: the pool's own questions or
    documents, or under the ``paper`` preset the multiple-choice pool's separate distractors (MMLU
    ``auxiliary_train`` in ``prepare_mmlu.py``).
    """

    def __init__(self, spec: ItemTaskSpec, seed: int, tokens: TokenCounter, materials: Materials) -> None:
        self.spec, self.seed, self.tokens = spec, seed, tokens
        self.paper = spec.paper
        if materials.preset != spec.options.preset:
            raise SpecError(f"{spec.name}: materials were priced for preset {materials.preset!r}, the spec asks {spec.options.preset!r}")
        # Multi-key NIAH over another base task (GSM8K, MATH500, MBPP: Appendix D.2) asks for the problem's
        # answer or code, not a letter.
        self.math = spec.domain == "mk_niah" and isinstance(materials.mcq, ProblemPool)
        base = materials.mcq.base if self.math else None  # type: ignore[union-attr]
        self.template = item_templates(spec.options.preset, base)[spec.name]
        # Under the paper preset, multiple-choice distractors (and demonstrations) come from the separate pool.
        self.separate = spec.domain != "mdqa" and self.paper and materials.distractors is not None
        self.shots_from_pool = False
        if spec.domain == "mdqa":
            if materials.docqa is None or materials.documents is None:
                raise SpecError(f"{spec.name} needs a multi-doc QA source (documents and questions)")
            self.source, self.priced = materials.docqa.name, materials.documents
            n_gold_pool = len(materials.docqa.questions)
        elif self.separate:
            if materials.mcq is None or materials.questions is None:
                raise SpecError(f"{spec.name} needs a multiple-choice question source")
            self.source, self.priced = materials.mcq.name, materials.distractors
            n_gold_pool = len(materials.mcq.questions)
            needed = spec.shots * spec.values_per_key + spec.values_per_key - 1
            if needed > len(materials.mcq.distractors):
                raise SpecError(f"{spec.name} needs {needed} distractor questions for its demonstrations and "
                                f"companions; {self.source} has {len(materials.mcq.distractors)}")
        else:
            if materials.mcq is None or materials.questions is None:
                raise SpecError(f"{spec.name} needs a multiple-choice question source")
            self.source, self.priced = materials.mcq.name, materials.questions
            n_gold_pool = len(materials.mcq.questions)
            needed = spec.shots * spec.values_per_key
            # A problem pool without shot problems (MATH-500 has a test split only) takes its demonstrations
            # from its own problems, never the sample's gold ones.
            self.shots_from_pool = self.math and needed > 0 and not materials.mcq.shots
            if self.shots_from_pool:
                if needed + spec.values_per_key > len(materials.mcq.questions):
                    raise SpecError(f"{spec.name} with {spec.shots} shots needs {needed + spec.values_per_key} distinct "
                                    f"problems; {materials.mcq.name} has {len(materials.mcq.questions)}")
            elif needed > len(materials.mcq.shots):
                raise SpecError(
                    f"{spec.name} with {spec.shots} shots needs {needed} demonstration questions; "
                    f"{self.source} has {len(materials.mcq.shots)}"
                )
            if spec.values_per_key > n_gold_pool:
                raise SpecError(f"{spec.name} needs {spec.values_per_key} distinct questions; {self.source} has {n_gold_pool}")
        self.materials = materials
        self.labels = _Labels(self.template, self.priced, spec.options.index_digits, materials.digits, tokens)
        self.prefix = self.template.intro + "\n\n"
        self.prefix_tokens = tokens.count(self.prefix)
        # At most as many indices as the longest prompt could hold items (a cheap upper bound).
        self.key_cap = max(spec.options.lengths) // max(1, self.labels.base + int(self.priced.tokens.min())) + 64
        self.n_golds = n_gold_pool
        if self.paper and spec.domain == "mdqa":
            # prepare_qa.py takes the first --num_samples questions of the validation split, in order.
            self.gold_order = np.arange(n_gold_pool)
        else:
            self.gold_order = rng_for(seed, BENCHMARK, spec.domain, "gold-order").permutation(n_gold_pool)

    # --- Drawing -----------------------------------------------------------------------------

    def _draw(self, rng: np.random.Generator, index: int) -> _Draw:
        spec = self.spec
        if spec.domain == "mdqa":
            return self._draw_mdqa(rng, index)
        mcq, questions = self.materials.mcq, self.materials.questions
        k = spec.values_per_key
        if self.separate:
            return self._draw_paper_mcq(rng, index)
        n = len(mcq.questions)
        gold_ids = [int(self.gold_order[(index * k + j) % n]) for j in range(k)]
        shots, shots_priced = mcq.shots, self.materials.shots
        if self.shots_from_pool:
            shot_groups = self._pool_shot_groups(rng, mcq.questions[gold_ids[0]].subject, gold_ids)
            shots, shots_priced = mcq.questions, questions
        else:
            shot_groups = self._shot_groups(rng, mcq.questions[gold_ids[0]].subject)
        # One index for the gold question(s) (k share it in multi-value), one per demonstration group.
        used = 1 + len(shot_groups)
        keys = self.labels.draw_keys(rng, min(used + n, self.key_cap))
        fixed = [_Item(keys[0], questions.texts[g], int(questions.tokens[g]), mcq.questions[g].qid) for g in gold_ids]
        for key, group in zip(keys[1:used], shot_groups):
            fixed += [_Item(key, shots_priced.texts[s], int(shots_priced.tokens[s]), shots[s].qid, shots[s].answer) for s in group]
        candidates = rng.permutation(n)
        taken = gold_ids + ([s for group in shot_groups for s in group] if self.shots_from_pool else [])
        candidates = candidates[~np.isin(candidates, taken)]
        order = int(rng.integers(1, k + 1)) if spec.domain == "mv_niah" and spec.level in ("medium", "hard") else None
        letter = mcq.questions[gold_ids[0]].answer
        level = spec.level

        def answers_of(golds: list[_Item]) -> list[str]:
            if spec.domain == "mk_niah":
                return [golds[0].text] if level == "easy" else [letter]
            return [g.text for g in golds] if level == "easy" else [golds[order - 1].text]

        qid = mcq.questions[gold_ids[0]].qid if spec.domain == "mk_niah" else None
        return _Draw(fixed, k, candidates, keys[used:], keys[0], answers_of, order, qid)

    def _draw_paper_mcq(self, rng: np.random.Generator, index: int) -> _Draw:
        """The ``paper`` preset's draw (``prepare_mmlu.py``): one gold question from the test split;
        in multi-value NIAH its ``values_per_key - 1`` companions under the same index are distractor
        questions (the official index list repeats every index, the gold's included); demonstrations
        are distractor questions in the context; the other distractors fill the context."""
        spec, mcq = self.spec, self.materials.mcq
        questions, pool = self.materials.questions, self.materials.distractors
        k = spec.values_per_key
        gold = int(self.gold_order[index % len(mcq.questions)])
        drawn = rng.permutation(len(mcq.distractors))
        companions = drawn[: k - 1].tolist()
        shot_ids = drawn[k - 1 : k - 1 + spec.shots * k].tolist()
        shot_groups = [shot_ids[g * k : (g + 1) * k] for g in range(spec.shots)]
        used = 1 + len(shot_groups)
        keys = self.labels.draw_keys(rng, min(used + len(drawn), self.key_cap))
        fixed = [_Item(keys[0], questions.texts[gold], int(questions.tokens[gold]), mcq.questions[gold].qid)]
        fixed += [_Item(keys[0], pool.texts[c], int(pool.tokens[c]), mcq.distractors[c].qid) for c in companions]
        for key, group in zip(keys[1:used], shot_groups):
            fixed += [_Item(key, pool.texts[s], int(pool.tokens[s]), mcq.distractors[s].qid, mcq.distractors[s].answer)
                      for s in group]
        candidates = drawn[k - 1 + spec.shots * k :]
        letter = mcq.questions[gold].answer
        level, domain = spec.level, spec.domain

        def answers_of(golds: list[_Item]) -> list[str]:
            if domain == "mk_niah":
                return [golds[0].text] if level == "easy" else [letter]
            if level == "easy":
                return [g.text for g in golds]
            return [fixed[0].text]

        # The order (medium/hard) is the gold's rank among its index's questions in text order; set in _compose.
        order = 1 if domain == "mv_niah" and level in ("medium", "hard") else None
        return _Draw(fixed, k, candidates, keys[used:], keys[0], answers_of, order, mcq.questions[gold].qid)

    def _draw_mdqa(self, rng: np.random.Generator, index: int) -> _Draw:
        docqa, docs = self.materials.docqa, self.materials.documents
        question = docqa.questions[int(self.gold_order[index % len(docqa.questions)])]
        n = len(docqa.documents)
        own = rng.permutation(np.asarray(question.distractors, dtype=np.int64))
        if docqa.filler:
            rest = np.asarray(docqa.filler, dtype=np.int64)[rng.permutation(len(docqa.filler))]
        else:
            rest = rng.permutation(n)
        rest = rest[~np.isin(rest, [*question.gold, *question.distractors])]
        candidates = np.concatenate([own, rest]).astype(np.int64)
        keys = self.labels.draw_keys(rng, min(len(question.gold) + n, self.key_cap))
        gold = list(question.gold)
        if self.spec.level == "basic":
            # prepare_qa.py --query_type doc asks for the first gold document (context order).
            gold = [question.first_gold()] if self.paper else [gold[int(rng.integers(len(gold)))]]
            candidates = np.concatenate([np.asarray([g for g in question.gold if g not in gold], dtype=np.int64), candidates])
        fixed = [_Item(keys[j], docs.texts[g], int(docs.tokens[g]), docqa.documents[g].title) for j, g in enumerate(gold)]
        level = self.spec.level
        normalize = self.tokens.normalize
        # prepare_qa.py puts the question in the prompt as HotpotQA gives it; needlework's own setup strips it.
        query = fixed[0].text if level == "basic" else normalize(question.question if self.paper else question.question.strip())

        def answers_of(golds: list[_Item]) -> list[str]:
            if level in ("basic", "easy"):
                return [g.key for g in golds]
            return [normalize(a.strip()) for a in question.answers]

        return _Draw(fixed, len(fixed), candidates, keys[len(gold) :], query, answers_of, None, question.qid)

    def _shot_groups(self, rng: np.random.Generator, subject: str) -> list[list[int]]:
        """Demonstration questions: ``shots`` groups of ``values_per_key``, same subject first (the
        ``paper`` preset draws them from the distractors instead, see :meth:`_draw_paper_mcq`)."""
        shots = self.spec.shots
        if shots == 0:
            return []
        pool = self.materials.mcq.shots
        ids = rng.permutation(len(pool))
        ranked = sorted(ids.tolist(), key=lambda s: pool[s].subject != subject)
        k = self.spec.values_per_key
        return [ranked[g * k : (g + 1) * k] for g in range(shots)]

    def _pool_shot_groups(self, rng: np.random.Generator, subject: str, gold_ids: list[int]) -> list[list[int]]:
        """Demonstrations drawn from the question pool itself (a problem pool without shot problems):
        ``shots`` groups of ``values_per_key`` problems other than the gold ones, same subject first."""
        pool = self.materials.mcq.questions
        ids = [i for i in rng.permutation(len(pool)).tolist() if i not in set(gold_ids)]
        ranked = sorted(ids, key=lambda s: pool[s].subject != subject)
        k = self.spec.values_per_key
        return [ranked[g * k : (g + 1) * k] for g in range(self.spec.shots)]

    # --- Rendering ---------------------------------------------------------------------------

    def _compose(self, rng: np.random.Generator, index: int) -> tuple[_Draw, np.ndarray, str, int]:
        """Draw sample ``index``'s items and positions and write the prompt around the context.

        Returns the draw, the random position of every item, the prompt's suffix (the prefix is the
        task's intro, the same for every sample), and
        the predicted tokens of everything but the distractors.
        """
        draw = self._draw(rng, index)
        positions = rng.random(len(draw.fixed) + len(draw.candidates))
        if self.separate and draw.order is not None:
            # The gold (fixed[0]) is the order-th of its index's questions in text order (prepare_mmlu.py counts them).
            draw = replace(draw, order=1 + int(np.sum(positions[1 : draw.n_gold] < positions[0])))
        examples = self._examples(draw, np.argsort(positions[: len(draw.fixed)], kind="stable"), rng)
        template = self.template
        query = template.query.format(index=draw.query, text=draw.query, question=draw.query, order=ordinal(draw.order or 1))
        header, actual = (PAPER_EXAMPLES_HEADER, PAPER_ACTUAL_TASK) if self.paper else (EXAMPLES_HEADER, ACTUAL_TASK)
        suffix = (f"{header}\n\n" + "\n\n".join(examples) + f"\n\n{actual}" if examples else "") + query
        if template.answer_prefix:
            suffix += "\n" + template.answer_prefix
        fixed_tokens = self.prefix_tokens + self.tokens.count(suffix) + self._predict(draw.fixed)
        return draw, positions, suffix, fixed_tokens

    def row(self, key_id: str, index: int, budget: TokenBudget | None) -> dict:
        """One row: draw, fit to ``budget`` (or no distractors at all for a golden row), describe.

        The gold item(s), demonstrations and template may take at most half the budget: when the
        sample's gold is too long for it (a long document at a short length), the next gold in
        the domain's order is taken, so the context always has room for distractors.
        """
        spec = self.spec
        rng = rng_for(self.seed, BENCHMARK, spec.name, key_id)
        for attempt in range(min(self.n_golds, GOLD_ATTEMPTS)):
            draw, positions, suffix, fixed_tokens = self._compose(rng, index + attempt)
            if budget is None or fixed_tokens <= budget.limit // 2:
                break
        else:
            raise BudgetError(
                f"{spec.name}: the gold item(s), {spec.shots} demonstrations and the template take more than half of "
                f"{budget.limit:,} tokens for {GOLD_ATTEMPTS} golds of {self.source} in a row; use longer lengths or fewer shots"
            )
        template = self.template
        fixed_units = [self.labels.unit(item) for item in draw.fixed]

        if budget is None:
            fitted = render_alone(self._renderer(self.prefix, suffix, fixed_units, [], positions), self.tokens)
        else:
            cand_units, cand_tokens = self._candidates(draw, budget, fixed_tokens)
            render = self._renderer(self.prefix, suffix, fixed_units, cand_units, positions)
            fitted = fit_prompt(render, cand_tokens, fixed_tokens, budget, self.tokens)
            if fitted.n_units == len(draw.candidates) and len(draw.candidates) > 0:
                raise BudgetError(self._exhausted(budget, fitted.n_tokens))
        gold_positions = sorted(range(draw.n_gold), key=lambda g: fitted.placements[g].char_offset)
        golds = [draw.fixed[g] for g in gold_positions]
        return {
            "id": f"{BENCHMARK}/{spec.name}/{key_id}",
            "input": fitted.rendered.text,
            "answers": draw.answers_of(golds),
            "query": draw.query,
            "answer_prefix": template.answer_prefix,
            "task": spec.domain,
            "level": spec.level,
            "order": draw.order,
            "shots": spec.shots,
            "source": self.source,
            "qid": draw.qid,
            "target_tokens": 0 if budget is None else budget.target_tokens,
            "n_tokens": fitted.n_tokens,
            "generation_reserve": spec.options.generation_reserve,
            "tokenizer": self.tokens.name,
            "n_items": len(draw.fixed) + fitted.n_units,
            "golden": budget is None,
            "needles": [
                {
                    "text": fixed_units[g][: -len(ITEM_SEP)],
                    "char_offset": fitted.placements[g].char_offset,
                    "token_offset": fitted.placements[g].token_offset,
                    "depth_percent": fitted.placements[g].depth_percent,
                    "source_id": draw.fixed[g].source_id,
                }
                for g in gold_positions
            ],
        }

    def _predict(self, items: Sequence[_Item]) -> int:
        if not items:
            return 0
        return int(self.labels.base * len(items) + self.labels.key_tokens([i.key for i in items]).sum() + sum(i.tokens for i in items))

    def _examples(self, draw: _Draw, fixed_order: np.ndarray, rng: np.random.Generator) -> list[str]:
        """The demonstrations: each refers to demonstration items in the context, in text order."""
        template, spec = self.template, self.spec
        if spec.shots == 0:
            return []
        rank = {int(f): r for r, f in enumerate(fixed_order)}
        shot_items = draw.fixed[draw.n_gold :]
        k = spec.values_per_key
        examples = []
        for g in range(spec.shots):
            group = sorted(range(g * k, (g + 1) * k), key=lambda s: rank[draw.n_gold + s])
            lines = [template.item.format(index=shot_items[s].key, text=shot_items[s].text) for s in group]
            key = shot_items[group[0]].key
            if spec.domain == "mk_niah":
                examples.append(template.example.format(index=key, copies=lines[0], answer=shot_items[group[0]].answer))
                continue
            nth = int(rng.integers(1, k + 1))
            copies = lines + [lines[nth - 1]] if spec.level == "medium" else [lines[nth - 1]]
            examples.append(template.example.format(index=key, order=ordinal(nth), copies="\n".join(copies)))
        return examples

    def _candidates(self, draw: _Draw, budget: TokenBudget, fixed_tokens: int) -> tuple[list[str], np.ndarray]:
        """The distractor items that can fit (with a margin for corrections), keyed and rendered."""
        ids, keys = draw.candidates, draw.spare_keys
        repeats = self.spec.index_repeats
        if repeats > 1:
            # prepare_mmlu.py --num_order 4: every distractor index is shared by 4 questions (the
            # last group may be cut by the budget, as the official list is truncated).
            keys = [keys[j // repeats] for j in range(min(len(ids), len(keys) * repeats))]
        n_keyed = min(len(ids), len(keys))
        item_tokens = self.priced.tokens[ids[:n_keyed]]
        unit_tokens = self.labels.base + self.labels.key_tokens(keys[:n_keyed]) + item_tokens
        fit = units_that_fit(unit_tokens, budget.limit - fixed_tokens)
        n_make = min(n_keyed, fit + fit // 50 + 16)
        texts = self.priced.texts
        sources = self._source_ids(ids[:n_make])
        items = [_Item(keys[j], texts[int(ids[j])], int(item_tokens[j]), sources[j]) for j in range(n_make)]
        return [self.labels.unit(item) for item in items], unit_tokens[:n_make]

    def _source_ids(self, ids: np.ndarray) -> list[str]:
        if self.spec.domain == "mdqa":
            docs = self.materials.docqa.documents
            return [docs[int(i)].title for i in ids]
        questions = self.materials.mcq.distractors if self.separate else self.materials.mcq.questions
        return [questions[int(i)].qid for i in ids]

    def _exhausted(self, budget: TokenBudget, n_tokens: int) -> str:
        return (
            f"{self.spec.name}: the {self.source} pool has too few distinct items ({len(self.priced.texts):,}) to fill "
            f"{budget.limit:,} tokens (all of them take the prompt to {n_tokens:,}); use shorter lengths or a larger source"
        )

    def _renderer(
        self, prefix: str, suffix: str, fixed_units: list[str], cand_units: list[str], positions: np.ndarray
    ) -> Callable[[int], Rendered]:
        """Renders the fixed items and the first ``n`` candidates in position order; reports where
        the fixed items start."""
        n_fixed = len(fixed_units)
        units = fixed_units + cand_units
        lengths = np.fromiter((len(u) for u in units), dtype=np.int64, count=len(units))

        def render(n: int) -> Rendered:
            chosen = np.arange(n_fixed + n)
            order = chosen[np.argsort(positions[chosen], kind="stable")]
            text = prefix + "".join([units[i] for i in order.tolist()]) + suffix
            starts = len(prefix) + np.cumsum(lengths[order]) - lengths[order]
            where = np.empty(n_fixed + n, dtype=np.int64)
            where[order] = starts
            end = len(prefix) + int(lengths[order].sum())
            return Rendered(text, (len(prefix), end), tuple(int(s) for s in where[:n_fixed]))

        return render
