"""The multiple-choice Ancestral Trace Challenge of OpenCompass NeedleBench v1, with circular evaluation.

OpenCompass ``opencompass/datasets/needlebench/atc_choice.py`` (``NeedleBenchATCDataset.load``) and its configs
``opencompass/configs/datasets/needlebench/atc/atc_choice*.py``, reproduced (read, not copied):

* a question of ``N`` "needles" has ``N`` people (v1 counts people; v2's ATC draws ``N + 1``), linked eldest
  first by ``N - 1`` sentences, each a uniformly drawn link form of
  :data:`~generators.needlebench.official_choice.CHOICE_LINKS` with a uniformly drawn term of
  :data:`~generators.needlebench.official.OFFICIAL_TERMS`, shuffled and joined with nothing between them;
* the question asks for the eldest relative of the youngest person; the options are the chain's first four
  people, eldest first, the eldest (the answer) as ``A``; a chain of fewer than four people is padded with
  other names;
* every question is asked four times, its options rotated by ``ABCD``, ``BCDA``, ``CDAB`` and ``DABC``
  (``get_circular_example``, which the loader always applies), so the right letter is ``A``, ``D``, ``C``, ``B``;
  OpenCompass scores them with ``CircularEvaluator``: its ``perf_4``, the share of questions whose four
  rotations are all answered right, is the circular score (:mod:`eval.benchmarks.needlebench.choice`);
* the prompt is the config's few-shot conversation (four worked questions, plain or with reasoning) and then the
  question as ``Question: {question}`` (``问题: {question}``), where ``question`` is the story, `` \\n``, the
  question, ``\\n`` and the options ``A. name\\n`` ... ``D. name\\n``.

Each row is one rotation: ``answers`` holds its right letter, ``options`` the four names in the order shown,
``circular_pattern`` the rotation and ``question_id`` the key the four rotations share. ``input`` is the last user
turn; ``few_shot`` the turns before it. ``n_tokens`` counts the whole conversation as OpenCompass renders it for a
model without a chat template (the turns joined by line breaks, ``LMTemplateParser.parse_template``); each
needle's offsets are in ``input``. Random choices come from the key ``needles=<N>/r=<r>``, shared by the plain
and the reasoning task, so both ask the same questions (OpenCompass seeds both from the repeat index).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from generators.budget import token_indices
from generators.needlebench.kinship import PersonNames
from generators.needlebench.official import OFFICIAL_EXAMPLE_NAMES, official_chain
from generators.needlebench.official_choice import (
    CHOICE_EXAMPLE_NAMES,
    CHOICE_FEW_SHOT,
    CHOICE_LINKS,
    CHOICE_QUESTION,
    CHOICE_STORY_JOINER,
    CHOICE_TURN,
    CIRCULAR_PATTERNS,
    OPTION_LETTERS,
)
from generators.needlebench.rows import needle_records, row
from generators.needlebench.spec import BENCHMARK, AtcChoiceSpec
from generators.pipeline import encoded_ahead
from generators.seeding import rng_for
from needlework.tokens import TokenCounter

CHOICE_QUESTION_TYPE = "eldest_ancestor"
"""Every multiple-choice question asks for the youngest person's eldest relative."""


@dataclass(frozen=True)
class ChoiceQuestion:
    """One question before rotation.

    Attributes:
        people: The chain, eldest first (``N`` names).
        sentences: The link sentences in the order they appear in the story.
        story: The sentences joined.
        question: The question about ``people[-1]``.
        options: The four options before rotation, the answer (``people[0]``) first.
    """

    people: tuple[str, ...]
    sentences: tuple[str, ...]
    story: str
    question: str
    options: tuple[str, ...]


def choice_question(rng: np.random.Generator, count: int, lang: str, names: PersonNames) -> ChoiceQuestion:
    """The chain, story, question and options of one question with ``count`` people (atc_choice.py's ``load``).

    The people and the padding names are drawn together, so all four options are distinct; ``names`` must
    already avoid the few-shot examples' names.
    """
    drawn = names.draw(rng, max(count, len(OPTION_LETTERS)), lang)
    people = tuple(drawn[:count])
    in_chain, _ = official_chain(rng, people, lang, CHOICE_LINKS[lang])
    order = rng.permutation(count - 1).tolist()
    sentences = tuple(in_chain[i] for i in order)
    story = CHOICE_STORY_JOINER.join(sentences)
    options = (*people, *drawn[count:])[: len(OPTION_LETTERS)]
    return ChoiceQuestion(people, sentences, story, CHOICE_QUESTION[lang].format(last_person=people[-1]), options)


def rotate(options: tuple[str, ...], pattern: str) -> tuple[tuple[str, ...], str]:
    """The options shown under a circular pattern and the letter of the answer (originally ``A``) among them.

    ``get_circular_example``: option ``i`` becomes the original option ``pattern[i]``; the answer's new letter
    is where ``A`` went (``BCDA`` -> ``D``).
    """
    shown = tuple(options[OPTION_LETTERS.index(letter)] for letter in pattern)
    return shown, OPTION_LETTERS[pattern.index(OPTION_LETTERS[0])]


def choice_prompt(story: str, question: str, options: tuple[str, ...], lang: str) -> str:
    """The last user turn: ``Question: {story} \\n{question}\\nA. ...\\nD. ...\\n`` (``问题: ...`` in Chinese).

    atc_choice.py builds ``shuffled_story + ' ' + '\\n' + question``, strips it and appends ``'\\n'`` and
    ``get_number(options)`` (``"A. name\\n"`` per option); the config's last turn is ``Question: {question}``.
    """
    body = (story + " \n" + question).strip() + "\n"
    body += "".join(f"{letter}. {option}\n" for letter, option in zip(OPTION_LETTERS, options))
    return CHOICE_TURN[lang].format(question=body)


def few_shot_turns(lang: str, reasoning: bool) -> list[dict[str, str]]:
    """The few-shot conversation before the question, as chat messages (``role``, ``content``)."""
    return [{"role": role, "content": text} for role, text in CHOICE_FEW_SHOT[(lang, reasoning)]]


@dataclass(frozen=True)
class _Draft:
    """One rotation before its last user turn is encoded."""

    key: str
    count: int
    repeat: int
    question: ChoiceQuestion
    pattern: str
    shown: tuple[str, ...]
    letter: str
    text: str


def generate_atc_choice(spec: AtcChoiceSpec, *, seed: int, tokens: TokenCounter,
                        names: PersonNames) -> Iterator[dict[str, Any]]:
    """Rows of the multiple-choice ATC in one language: needle counts x repeats x the four rotations.

    Args:
        spec: Language, needle counts (people per question), repeats and the few-shot variant.
        seed: Build seed.
        tokens: The build's tokenizer: needle offsets in ``input`` and ``n_tokens`` of the whole conversation.
        names: Person names (the few-shot examples' and the official prompts' names are never drawn).
    """
    people_names = replace(names, avoid=names.avoid | OFFICIAL_EXAMPLE_NAMES | CHOICE_EXAMPLE_NAMES)
    shots = few_shot_turns(spec.lang, spec.reasoning)
    head = "".join(turn["content"] + "\n" for turn in shots)
    lead = len(CHOICE_TURN[spec.lang].split("{", 1)[0])
    for draft, _, token_starts in encoded_ahead(tokens, _drafts(spec, seed, people_names)):
        sentences = draft.question.sentences
        lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
        bounds = lead + np.concatenate(([0], np.cumsum(lengths)))
        at = token_indices(token_starts, bounds)
        t0, t1 = int(at[0]), int(at[-1])
        depth = np.round(100.0 * (at[:-1] - t0) / max(t1 - t0, 1), 4)
        yield {
            **row(id=f"{draft.key}/circular={draft.pattern}", input=draft.text, answers=[draft.letter],
                  query=draft.question.question, task=spec.task, lang=spec.lang, target_tokens=None, depth=None,
                  needle_count=draft.count, question_type=CHOICE_QUESTION_TYPE, repeat=draft.repeat,
                  n_tokens=tokens.count(head + draft.text), length_buffer=None, tokenizer=tokens.name, filler="",
                  needles=needle_records(sentences, bounds[:-1].tolist(), at[:-1].tolist(), depth.tolist(),
                                         [""] * len(sentences), [None] * len(sentences))),
            "options": list(draft.shown), "circular_pattern": draft.pattern, "question_id": draft.key,
            "few_shot": shots,
        }


def _drafts(spec: AtcChoiceSpec, seed: int, names: PersonNames) -> Iterator[tuple[str, _Draft]]:
    """Every row's last user turn and draft, in row order (all random draws happen here)."""
    for count in spec.needle_counts:
        for r in range(spec.repeats):
            rng = rng_for(seed, BENCHMARK, f"atc-choice-{spec.lang}", f"needles={count}/r={r:03d}")
            question = choice_question(rng, count, spec.lang, names)
            key = f"{spec.task}/{spec.lang}/needles={count}/r={r:03d}"
            for pattern in CIRCULAR_PATTERNS:
                shown, letter = rotate(question.options, pattern)
                text = choice_prompt(question.story, question.question, shown, spec.lang)
                yield text, _Draft(key, count, r, question, pattern, shown, letter, text)
