"""Stage III, collision testing (§3.3, A.1.3): label each near non-RefList document of a query.

For each query, the top-k nearest documents outside its RefList are judged against (Query,
Answer, RefList):

- **conflict**: contradicts the query/answer/reference content -> the whole query is dropped;
- **hard_negative**: similar but does not support the answer -> kept as a distractor;
- **false_negative**: provides valid evidence -> added to the RefList.

On the synthetic world the judge is an exact oracle over the facts a document states (spec §3),
in either direction for a symmetric relation (:func:`with_mirrors`: the article of a spouse states
the marriage too): it states a required fact -> false negative; it states the same (subject, relation) as a required
fact with another object or year -> conflict (a consistent world never has one; tests inject one);
otherwise hard negative. Twins of the path's entities are added as hard negatives whatever their
rank (``origin="twin"``). Real sources use an LLM verifier (``builders/embs_llm.py``) instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generators.world.model import Fact
from generators.world.schema import SYMMETRIC_RELATIONS


@dataclass(frozen=True)
class Verdict:
    """One labelled collision candidate (a ``collisions`` row without its qid).

    Attributes:
        doc_id: The candidate document.
        rank: Its 1-based rank among all documents under the collision retriever.
        score: The retriever's score.
        label: ``conflict``, ``hard_negative`` or ``false_negative``.
        labeler: ``oracle`` or the verifying model's id.
        origin: ``retrieved`` (top-k) or ``twin`` (a twin of a path entity).
    """

    doc_id: int
    rank: int
    score: float
    label: str
    labeler: str
    origin: str


def _year(fact: Fact) -> str | None:
    return fact.time[:4] if fact.time else None


def with_mirrors(statements: Sequence[Fact]) -> list[Fact]:
    """``statements`` and, for each of a symmetric relation (:data:`SYMMETRIC_RELATIONS`), the same fact read from
    its object: "A married B in 2022" states B's marriage to A as much as A's to B."""
    mirrored = [Fact(f.object, f.relation, f.subject, f.time, f.value) for f in statements
                if f.relation in SYMMETRIC_RELATIONS and f.object is not None]
    return [*statements, *mirrored]


def oracle_label(required: Sequence[Fact], statements: Sequence[Fact]) -> str:
    """The exact Stage III label of a document stating ``statements`` (either direction of a symmetric relation
    counts, :func:`with_mirrors`) for a query needing ``required``."""
    needed = {(f.subject, f.relation): f for f in required}
    supports = False
    for stated in with_mirrors(statements):
        want = needed.get((stated.subject, stated.relation))
        if want is None:
            continue
        if stated.object != want.object or _year(stated) != _year(want):
            return "conflict"
        supports = True
    return "false_negative" if supports else "hard_negative"


@dataclass(frozen=True)
class Tested:
    """A query after Stage III: its RefList (false negatives appended), hard negatives, and whether it survives."""

    ref_list: tuple[int, ...]
    hard_negatives: tuple[int, ...]
    dropped: bool


def apply_verdicts(ref_list: Sequence[int], verdicts: Sequence[Verdict]) -> Tested:
    """Drop the query on any conflict; else add false negatives to the RefList and keep hard negatives (rank order)."""
    if any(v.label == "conflict" for v in verdicts):
        return Tested(tuple(ref_list), (), True)
    refs = list(ref_list)
    refs += [v.doc_id for v in verdicts if v.label == "false_negative" and v.doc_id not in refs]
    negatives = tuple(dict.fromkeys(v.doc_id for v in sorted(verdicts, key=lambda v: v.rank) if v.label == "hard_negative"))
    return Tested(tuple(refs), negatives, False)
