"""The Ancestral Trace Challenge (paper §3.2, Figure 12): information-dense kinship contexts.

Every sentence of the context is a needle: one link of a chain of ``N + 1`` people, in scrambled
order, with no filler. The prompt is the paper's Figure 12 (its goal and question changed for
the other three question types, see :mod:`generators.needlebench.templates`). The length of a
sample follows from its needle count; the row records the exact token count from one encode.

With ``style="official"`` the links, questions and prompts are OpenCompass v2's
(:mod:`generators.needlebench.official`, ``opencompass/datasets/needlebench_v2/atc.py``): each link a
uniformly drawn sentence form and term, the sentences shuffled and joined with nothing between them,
and every question about the two ends of the chain. ``style="official-elder-only"`` draws from
``atc_elder_only.py``'s sentence forms instead (the "child of" form in place of the guardian form).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from generators.budget import token_indices
from generators.needlebench.kinship import (
    SENTENCE_JOINER,
    PersonNames,
    answer_question,
    kinship_chain,
)
from generators.needlebench.official import (
    ELDER_ONLY_LINKS,
    OFFICIAL_ATC_PROMPTS,
    OFFICIAL_EXAMPLE_NAMES,
    OFFICIAL_LINKS,
    OFFICIAL_STORY_JOINER,
    official_chain,
)
from generators.needlebench.rows import needle_records, row
from generators.needlebench.spec import BENCHMARK, AtcSpec
from generators.needlebench.templates import KINSHIP, kinship_tail
from generators.pipeline import encoded_ahead
from generators.seeding import rng_for
from needlework.tokens import TokenCounter


OFFICIAL_STYLES: dict[str, dict[str, tuple[str, ...]]] = {"official": OFFICIAL_LINKS, "official-elder-only": ELDER_ONLY_LINKS}
"""The OpenCompass ATC styles and the link sentences each draws from (atc.py's; atc_elder_only.py's)."""

@dataclass(frozen=True)
class _Draft:
    """One ATC sample before its text is encoded."""

    key: str
    count: int
    question_type: str
    repeat: int
    text: str
    question: str
    answer: str
    sentences: list[str]
    bounds: np.ndarray  # each sentence's first character in the text, then the end of the context


def generate_atc(spec: AtcSpec, *, seed: int, tokens: TokenCounter, names: PersonNames) -> Iterator[dict[str, Any]]:
    """Rows of ATC in one language: needle counts x question types x repeats.

    Each row's random choices (names, relations, sentence forms, order, the people asked about)
    come from the key ``needles=<N>/q=<type>/r=<r>``. Each text is encoded while the next sample
    is drawn (:func:`generators.pipeline.encoded_ahead`).
    """
    drafts = _official_drafts(spec, seed, names) if spec.style in OFFICIAL_STYLES else _drafts(spec, seed, names)
    for draft, _, token_starts in encoded_ahead(tokens, drafts):
        at = token_indices(token_starts, draft.bounds)
        t0, t1 = int(at[0]), int(at[-1])
        depth = np.round(100.0 * (at[:-1] - t0) / max(t1 - t0, 1), 4)
        yield row(
            id=f"atc/{spec.lang}/{draft.key}", input=draft.text, answers=[draft.answer], query=draft.question,
            task="atc", lang=spec.lang, target_tokens=None, depth=None, needle_count=draft.count,
            question_type=draft.question_type, repeat=draft.repeat, n_tokens=len(token_starts), length_buffer=None,
            tokenizer=tokens.name, filler="",
            needles=needle_records(draft.sentences, draft.bounds[:-1].tolist(), at[:-1].tolist(), depth.tolist(),
                                   [""] * draft.count, [None] * draft.count),
        )


def generations(n: int) -> str:
    """``1 generation``, ``3 generations``: the English count the n-th ancestor and descendant wordings use."""
    return f"{n} generation" if n == 1 else f"{n} generations"


def _drafts(spec: AtcSpec, seed: int, names: PersonNames) -> Iterator[tuple[str, _Draft]]:
    """Every sample's text and draft, in row order (all random draws happen here)."""
    frame = KINSHIP[spec.lang]
    joiner = SENTENCE_JOINER[spec.lang]
    tails = {q: kinship_tail(spec.lang, q, atc=True) for q in spec.question_types}
    for count in spec.needle_counts:
        for question_type in spec.question_types:
            wording = frame.questions[question_type]
            intro = frame.atc_intro.format(goal=wording.goal) + frame.atc_context
            for r in range(spec.repeats):
                key = f"needles={count}/q={question_type}/r={r:03d}"
                rng = rng_for(seed, BENCHMARK, f"atc-{spec.lang}", key)
                chain = kinship_chain(rng, count, spec.lang, names)
                ask = answer_question(rng, chain, question_type)
                order = rng.permutation(count)
                fields = {"person": ask.person, "other": ask.other, "n": ask.n, "generations": generations(ask.n)}
                question = frame.atc_question_lead + wording.question.format(**fields)
                sentences = chain.sentences(order)
                context = joiner.join(sentences)
                text = intro + context + "\n\n" + question + tails[question_type].format(**fields)
                lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=count)
                bounds = len(intro) + np.concatenate(([0], np.cumsum(lengths + len(joiner))))
                bounds[-1] -= len(joiner)
                yield text, _Draft(key, count, question_type, r, text, question, ask.answer, sentences, bounds)


def _official_drafts(spec: AtcSpec, seed: int, names: PersonNames) -> Iterator[tuple[str, _Draft]]:
    """OpenCompass v2's ATC samples (atc.py): whole-chain questions, the official vocabulary and prompts."""
    people_names = replace(names, avoid=names.avoid | OFFICIAL_EXAMPLE_NAMES)
    links = OFFICIAL_STYLES[spec.style][spec.lang]
    prompts = OFFICIAL_ATC_PROMPTS[spec.lang]
    for count in spec.needle_counts:
        for question_type in spec.question_types:
            template = prompts[question_type]
            for r in range(spec.repeats):
                key = f"needles={count}/q={question_type}/r={r:03d}"
                rng = rng_for(seed, BENCHMARK, f"atc-{spec.lang}-official", key)
                people = people_names.draw(rng, count + 1, spec.lang)
                sentences_in_chain, total = official_chain(rng, people, spec.lang, links)
                order = rng.permutation(count)
                sentences = [sentences_in_chain[i] for i in order.tolist()]
                story = OFFICIAL_STORY_JOINER.join(sentences)
                eldest, youngest = people[0], people[-1]
                fields, answer = {
                    "eldest_ancestor": ({"last_person": youngest}, eldest),
                    "nth_ancestor": ({"person": youngest, "n": total}, eldest),
                    "nth_descendant": ({"person": eldest, "n": total}, youngest),
                    "relationship_distance": ({"person_a": eldest, "person_b": youngest}, str(total)),
                }[question_type]
                head = template.split("{shuffled_story}", 1)[0].format(**fields)
                text = template.format(shuffled_story=story, **fields)
                question = text.rstrip("\n").rsplit("\n", 1)[-1]
                lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=count)
                bounds = len(head) + np.concatenate(([0], np.cumsum(lengths + len(OFFICIAL_STORY_JOINER))))
                bounds[-1] -= len(OFFICIAL_STORY_JOINER)
                yield text, _Draft(key, count, question_type, r, text, question, answer, sentences, bounds)
