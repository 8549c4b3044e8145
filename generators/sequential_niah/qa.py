"""The record every needle pipeline produces: a question, its ordered answer items and their needles."""

from __future__ import annotations

from dataclasses import dataclass

from generators.sequential_niah.spec import LANGS, PIPELINES
from needlework.checks import require_one_of
from needlework.errors import SpecError


@dataclass(frozen=True)
class SequentialQA:
    """One question whose answer is an ordered list of items, each stated by one needle.

    Attributes:
        qid: Stable id, unique within a build (e.g. ``"synthetic-temporal/en/000017"``).
        lang: ``en`` or ``zh``.
        pipeline: One of :data:`generators.sequential_niah.spec.PIPELINES`.
        question: The question as asked in the prompt.
        answers: The answer items in their true (temporal or logical) order.
        needles: ``needles[i]`` is the sentence inserted into the text that states ``answers[i]``.
        ordered: Whether the question asks for the items in order. Logical questions always do;
            temporal questions may ask only for the events of a period (Appendix A, Table 6).
        reference: The reference answer as text, items listed in true order (the paper's ``answer``).
        distractors: Near-miss needles that must not be answers (same subject outside the period,
            a look-alike subject, a step of another procedure): the semantic-noise variant (§5.3)
            inserts one or two, and judge data uses them as redundant items.
        source: Where the question came from (``"syn"``, ``"icews14"``, ``"world"``, a file label).
        subject: Who or what the needles are about (the diary's author, the temporal question's
            actor, the logical question's person, place or task), for the generated semantic noise
            of the ``paper`` preset (:mod:`generators.sequential_niah.semantic`); ``""`` if unknown.
        subject_is_person: Whether ``subject`` is a person's name, the only kind a semantic-noise near
            sentence renames (a diary's author and the world's actors are people; a temporal KG's actor
            may be a country, a sector such as ``Military (Thailand)`` or an organization:
            :func:`generators.sequential_niah.tkg.looks_like_person`).
        articles: Ids of the long-text source documents about the needles' entities (``world/<doc
            id>`` of the world's articles): pairing never puts the QA into a long text made of one
            of them, so that a needle's fact does not also stand in its haystack (issue 24).
    """

    qid: str
    lang: str
    pipeline: str
    question: str
    answers: tuple[str, ...]
    needles: tuple[str, ...]
    ordered: bool
    reference: str
    distractors: tuple[str, ...]
    source: str
    subject: str = ""
    articles: tuple[str, ...] = ()
    subject_is_person: bool = True

    def __post_init__(self) -> None:
        require_one_of(f"{self.qid}: lang", self.lang, LANGS)
        require_one_of(f"{self.qid}: pipeline", self.pipeline, PIPELINES)
        if len(self.answers) != len(self.needles) or len(self.answers) < 2:
            raise SpecError(f"{self.qid}: needs at least 2 answers and one needle per answer, got "
                            f"{len(self.answers)} answers and {len(self.needles)} needles")
        if len(set(self.needles)) != len(self.needles):
            raise SpecError(f"{self.qid}: needles must be distinct")
        if set(self.distractors) & set(self.needles):
            raise SpecError(f"{self.qid}: a distractor is also a needle")
