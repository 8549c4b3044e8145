"""Resolve RULERv2 source options (``world``, a folder, a file, ``hub:owner/name``) to base-task pools.

Multiple-choice sources feed multi-key and multi-value NIAH: ``world`` (the embedded default:
questions generated from the synthetic world's facts), an MMLU folder of the original CSVs, any
MCQ table file with the same columns, or ``hub:cais/mmlu``. Multi-doc QA sources: ``world`` (world
articles and questions), a HotpotQA distractor-setting JSON/JSONL file, or
``hub:hotpotqa/hotpot_qa``. Each resolution also returns the fingerprints recorded in the manifest,
and the qids of repeated questions it dropped (:mod:`builders.sources.pool_dedupe`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from builders.hashing import file_sha256, folder_sha256
from builders.sources.hotpotqa import read_hotpotqa_hub, read_hotpotqa_json
from builders.sources.math_problems import HUB_REPOS, read_math_file, read_math_hub
from builders.sources.mmlu import (
    read_mcq_distractors,
    read_mcq_distractors_hub,
    read_mcq_table,
    read_mmlu_folder,
    read_mmlu_hub,
)
from builders.sources.pool_dedupe import mcq_key, unique_docqa_pool, unique_mcq_pool
from builders.sources.squad_musique import (
    SQUAD_HUB,
    read_musique_file,
    read_musique_hub,
    read_squad_file,
    read_squad_hub,
)
from generators.rulerv2.pools import DocQaPool, McqPool
from generators.rulerv2.world_pools import DEFAULT_WORLD, world_pools
from builders.sources.names import HUB, WORLD
from needlework.errors import InputError


ATTRIBUTION = {
    "world": "questions and documents generated from needlework's synthetic world (Apache-2.0)",
    "mmlu": "MMLU questions (Hendrycks et al., MIT license)",
    "hotpotqa": "HotpotQA paragraphs and questions (Yang et al., CC BY-SA 4.0)",
    "squad": "SQuAD paragraphs and questions (Rajpurkar et al., CC BY-SA 4.0)",
    "musique": "MuSiQue paragraphs and questions (Trivedi et al., CC BY 4.0)",
    "gsm8k": "GSM8K math word problems (Cobbe et al., MIT license)",
    "math500": "MATH-500 problems (Hendrycks et al.'s MATH, MIT license; the subset of Lightman et al.)",
    "mbpp": "MBPP programming problems and tests (Austin et al., CC BY 4.0)",
}


@dataclass(frozen=True)
class Resolved:
    """A pool with what the manifest records about where it came from, and the qids of the repeated
    questions dropped from it (``duplicates``)."""

    pool: McqPool | DocQaPool
    fingerprints: dict[str, str]
    dropped: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()


def without_duplicates(resolved: Resolved) -> Resolved:
    """``resolved`` with its pool's repeated questions dropped and their qids added to ``duplicates``."""
    if isinstance(resolved.pool, McqPool):
        pool, dropped = unique_mcq_pool(resolved.pool)
    elif isinstance(resolved.pool, DocQaPool):
        pool, dropped = unique_docqa_pool(resolved.pool)
    else:
        return resolved
    return replace(resolved, pool=pool, duplicates=resolved.duplicates + dropped)


@lru_cache(maxsize=4)
def _world(seed: int) -> tuple[McqPool, DocQaPool]:
    return world_pools(DEFAULT_WORLD, seed)


def _world_fingerprint(seed: int) -> dict[str, str]:
    s = DEFAULT_WORLD
    return {"world": f"generated: docs={s.docs} langs={','.join(s.langs)} questions={s.questions} seed={seed}"}


def resolve_mcq(source: str, seed: int) -> Resolved:
    """The multiple-choice pool of ``source`` without repeated questions (:func:`without_duplicates`)."""
    return without_duplicates(_resolve_mcq(source, seed))


def _resolve_mcq(source: str, seed: int) -> Resolved:
    """The multiple-choice pool of ``source``: ``world``, ``hub:REPO``, an MMLU folder or an MCQ table file."""
    if source == WORLD:
        return Resolved(_world(seed)[0], _world_fingerprint(seed))
    if source.startswith(HUB):
        repo = source[len(HUB) :]
        return Resolved(read_mmlu_hub(repo), {f"hub:{repo}": "(Hub dataset; revision as resolved by datasets)"})
    path = Path(source)
    if path.is_dir():
        return Resolved(read_mmlu_folder(path), {str(path): folder_sha256(path)})
    if path.is_file():
        return Resolved(read_mcq_table(path), {str(path): file_sha256(path)})
    raise InputError(source, None, None, "no such file or folder; a multiple-choice source is 'world', hub:REPO, an MMLU folder or an MCQ table file")


DOCQA_KINDS = ("squad", "musique")
"""Multi-doc QA sources besides HotpotQA (Appendix D.2), named by a prefix: ``squad`` (``rajpurkar/squad``
validation), ``squad:hub:REPO``, ``squad:PATH``, ``musique:PATH`` or ``musique:hub:REPO``."""


def _resolve_docqa_kind(kind: str, rest: str) -> Resolved:
    if kind == "squad" and (not rest or rest.startswith(HUB)):
        repo = rest[len(HUB) :] if rest else SQUAD_HUB
        return Resolved(read_squad_hub(repo).pool, {f"squad:hub:{repo}": "(Hub dataset; revision as resolved by datasets)"})
    if kind == "musique" and rest.startswith(HUB):
        repo = rest[len(HUB) :]
        read = read_musique_hub(repo)
        return Resolved(read.pool, {f"musique:hub:{repo}": "(Hub dataset; revision as resolved by datasets)"}, read.dropped)
    path = Path(rest)
    if not rest or not path.is_file():
        raise InputError(rest or kind, None, None, f"no such file; a {kind} source is {kind}:PATH (JSON, JSONL or Parquet)"
                         + (" or squad (the Hub dataset)" if kind == "squad" else " or musique:hub:REPO"))
    read = read_squad_file(path) if kind == "squad" else read_musique_file(path)
    return Resolved(read.pool, {f"{kind}:{path}": file_sha256(path)}, read.dropped)


def resolve_docqa(source: str, seed: int) -> Resolved:
    """The multi-doc QA pool of ``source`` without repeated questions (:func:`without_duplicates`)."""
    return without_duplicates(_resolve_docqa(source, seed))


def _resolve_docqa(source: str, seed: int) -> Resolved:
    """The multi-doc QA pool of ``source``: ``world``, ``hub:REPO`` or a HotpotQA JSON/JSONL file, or a
    SQuAD or MuSiQue source named by its kind (:data:`DOCQA_KINDS`)."""
    kind, _, rest = source.partition(":")
    if kind in DOCQA_KINDS:
        return _resolve_docqa_kind(kind, rest)
    if source == WORLD:
        return Resolved(_world(seed)[1], _world_fingerprint(seed))
    if source.startswith(HUB):
        repo = source[len(HUB) :]
        read = read_hotpotqa_hub(repo)
        return Resolved(read.pool, {f"hub:{repo}": "(Hub dataset; revision as resolved by datasets)"}, tuple(read.dropped))
    path = Path(source)
    if path.is_file():
        read = read_hotpotqa_json(path)
        return Resolved(read.pool, {str(path): file_sha256(path)}, tuple(read.dropped))
    raise InputError(source, None, None, "no such file; a multi-doc QA source is 'world', hub:REPO or a HotpotQA JSON/JSONL file")


def resolve_math(base: str, source: str) -> Resolved:
    """The math pool of base task ``base`` (``gsm8k``, ``math500``) from ``source``: ``""`` (the base
    task's Hub dataset, :data:`builders.sources.math_problems.HUB_REPOS`), ``hub:REPO`` or a local file
    in the original format (JSON Lines, JSON or Parquet)."""
    if not source or source.startswith(HUB):
        repo = source[len(HUB) :] if source else HUB_REPOS[base][0]
        return Resolved(read_math_hub(base, repo), {f"hub:{repo}": "(Hub dataset; revision as resolved by datasets)"})
    path = Path(source)
    if path.is_file():
        return Resolved(read_math_file(base, path), {str(path): file_sha256(path)})
    raise InputError(source, None, None, f"no such file; a {base} source is hub:REPO or a JSONL/JSON/Parquet file of its records")




def with_mcq_distractors(resolved: Resolved, source: str) -> Resolved:
    """``resolved``'s pool with the ``paper`` preset's separate distractor questions from ``source``:
    ``hub:REPO`` (its ``auxiliary_train`` split), an ``auxiliary_train`` folder of CSVs or an MCQ table."""
    if source.startswith(HUB):
        repo = source[len(HUB) :]
        questions = read_mcq_distractors_hub(repo)
        prints = {f"hub:{repo} (auxiliary_train)": "(Hub dataset; revision as resolved by datasets)"}
    else:
        path = Path(source)
        questions = read_mcq_distractors(path)
        prints = {str(path): folder_sha256(path) if path.is_dir() else file_sha256(path)}
    gold = {mcq_key(q) for q in resolved.pool.questions}
    repeated = sum(mcq_key(q) in gold for q in questions)
    if questions and repeated * 2 > len(questions):
        raise InputError(source, None, None, f"{repeated:,} of its {len(questions):,} distractor questions are the gold "
                         "questions themselves (is it the test split?); the paper preset hides the test questions among "
                         "MMLU's auxiliary_train questions: pass that folder as --mcq-distractors")
    pool = replace(resolved.pool, distractors=questions)
    return without_duplicates(Resolved(pool, {**resolved.fingerprints, **prints}, resolved.dropped, resolved.duplicates))


def with_docqa_filler(resolved: Resolved, source: str) -> Resolved:
    """``resolved``'s pool with the ``paper`` preset's filler documents: every paragraph of a HotpotQA
    train file or ``hub:REPO``'s ``train`` split, unique by title, appended after the pool's own
    documents (a title already in the pool is not added twice); only these fill contexts at random."""
    if source.startswith(HUB):
        repo = source[len(HUB) :]
        train = read_hotpotqa_hub(repo, split="train").pool
        prints = {f"hub:{repo} (train)": "(Hub dataset; revision as resolved by datasets)"}
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(source, None, None, "no such file; HotpotQA train paragraphs come from a JSON/JSONL file or hub:REPO")
        train = read_hotpotqa_json(path).pool
        prints = {str(path): file_sha256(path)}
    pool = resolved.pool
    own = {d.title: i for i, d in enumerate(pool.documents)}
    extra = [d for d in train.documents if d.title not in own]
    filler = [own[d.title] for d in train.documents if d.title in own]
    filler += range(len(pool.documents), len(pool.documents) + len(extra))
    pool = replace(pool, documents=pool.documents + tuple(extra), filler=tuple(sorted(filler)))
    return Resolved(pool, {**resolved.fingerprints, **prints}, resolved.dropped, resolved.duplicates)


def attribution(names: set[str]) -> str:
    """The card's sources paragraph for the pools used (by pool name)."""
    parts = ["key-value needles drawn from the `wonderwords` word lists (MIT), as RULER does"]
    for name in sorted(names):
        parts.append(ATTRIBUTION.get(name, f"the user-supplied source `{name}`"))
    return (
        "## Sources and licenses\n\n"
        + "This release contains "
        + "; ".join(parts)
        + ". The prompt templates follow the RULERv2 paper (Tables 2, 3 and 4). Generated text is released "
        "under Apache-2.0; text taken from a source keeps that source's license."
    )
