"""Sequential-NIAH samples by the paper's Algorithm 1, fitted to a length bucket by the build's tokenizer.

Algorithm 1 splits a long text ``C`` into ``k + 1`` segments, shuffles the ``k`` needles and
interleaves them, ``C_1 + n_1 + C_2 + ... + n_k + C_{k+1}``, then wraps the result and the
question in the prompt of Figure 1 (:data:`generators.sequential_niah.spec.PROMPT_FRAMES`).
Here:

* **Cuts** are ``k`` distinct sentence ends of the raw text (:func:`sentence_boundaries`),
  drawn uniformly from those before the end of the text used, so every segment holds at least
  one sentence.
* **Needles sit on their own lines**, as in the authors' released examples: a needle is
  preceded by a line break unless the text before it already ends with one, and followed by
  one. The raw text's characters are all kept, so the text used is ``raw[:text_end]`` exactly.
* **Shuffle** is a uniform permutation of the needles; a row lists its needles in text order,
  each with ``answer_index``, the index of the answer item it states.
* **Fit.** The whole prompt must satisfy ``low <= n_tokens < high`` of its bucket. When the
  text with needles would run over ``high``, its tail (the last segment) is dropped at a
  sentence end: first by a proportional estimate from the text's stored token count (aiming
  :data:`TRIM_MARGIN` below ``high``), then, if the verifying encode still runs over, exactly
  from that encode's token offsets. The text is never trimmed below ``low``; a text too short
  for its bucket, or with too few sentences for its needles, raises :class:`BudgetError`.

Every row records the raw text's id, the cuts (character offsets in the raw text), the needle
order and ``text_end``, so :func:`rebuild_row` reproduces its ``input`` exactly and the noise
variants (:mod:`generators.sequential_niah.noise`) are new layouts of the same parts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from generators.budget import JOIN_SLACK, token_indices
from needlework.checks import require_one_of
from needlework.errors import BudgetError, SpecError
from generators.pipeline import encoded_ahead
from generators.seeding import rng_for
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import (
    BENCHMARK, FRAMES, LENGTH_BUCKETS, bucket_named, OFFICIAL_PREFIXES, OFFICIAL_SEPARATOR, OFFICIAL_SUFFIXES, PROMPT_FRAMES, LengthBucket,
)
from generators.sequential_niah.texts import LINE_BREAKS, LongText
from generators.text import sentence_ends
from needlework.tokens import TokenCounter

NEEDLE_LINE = "\n"
"""What ends a needle's line (and starts it, unless the text before already ends a line)."""

ORIGINAL = "original"
TRIM_MARGIN = 0.02
"""When a text must be trimmed, the estimate aims this fraction of the bucket's ``high`` below it."""

MAX_ROUNDS = 6
"""Verifying encodes per sample before giving up on fitting its bucket."""

OnError = Callable[[str, BudgetError], None]
"""Called with a sample id and the error when a sample cannot be built; without one, the error is raised."""


@dataclass(frozen=True)
class Layout:
    """Where the needles (and any noise sentences) go in a raw text.

    Attributes:
        text_end: Characters of the raw text used: ``len(raw)`` or a sentence end.
        cuts: Character offsets in the raw text where the needles go, in text order,
            non-decreasing, each in ``(0, text_end)``. Needles at equal cuts follow each other.
        order: ``order[i]`` is the answer index of the needle at ``cuts[i]`` (a permutation).
        noise: ``(cut, sentence)`` pairs of inserted non-answer sentences (semantic noise), at
            cuts distinct from each other and from the needles' cuts.
        frame: ``(before the text, between the text and the question)``; ``None`` is the fixed
            :data:`generators.sequential_niah.spec.PROMPT_FRAMES` of the language (see :func:`official_frame`).
    """

    text_end: int
    cuts: tuple[int, ...]
    order: tuple[int, ...]
    noise: tuple[tuple[int, str], ...] = ()
    frame: tuple[str, str] | None = None


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt and where its inserted sentences start.

    Attributes:
        text: The prompt.
        needle_chars: Character offset of each needle in ``text``, in text order.
        noise_chars: Character offset of each noise sentence, in ``Layout.noise`` order.
        tail_raw: Raw-text offset where the last segment (after the last insertion) starts.
        tail_prompt: Where that segment starts in ``text``.
    """

    text: str
    needle_chars: tuple[int, ...]
    noise_chars: tuple[int, ...]
    tail_raw: int
    tail_prompt: int


@dataclass(frozen=True)
class Draft:
    """A sample rendered but not yet verified by its encode."""

    id: str
    variant: str
    original_id: str
    qa: SequentialQA
    text: LongText
    bucket: LengthBucket
    needles: tuple[str, ...]
    question: str
    suffix_tokens: int
    layout: Layout
    prompt: Prompt


@lru_cache(maxsize=16)
def sentence_boundaries(raw: str) -> np.ndarray:
    """Sentence ends of a raw long text (int64 character offsets, ascending, excluding 0 and ``len``).

    The places a needle may go: :func:`generators.text.sentence_ends` with
    ``line_breaks`` = :data:`generators.sequential_niah.texts.LINE_BREAKS`. Memoized, because a
    text's original and its noise variants are laid out in turn.
    """
    return np.asarray(sentence_ends(raw, line_breaks=LINE_BREAKS), dtype=np.int64)


def official_frame(seed: int, original_id: str, lang: str) -> tuple[str, str]:
    """The prompt frame of a sample under the ``official`` frames: a prefix of :data:`OFFICIAL_PREFIXES`
    and a question heading of :data:`OFFICIAL_SUFFIXES`, each drawn uniformly and independently, as
    ``build_data`` in the official ``Sequential_NIAH_building_PPL.py`` does (``random.choice`` of each list).

    The draw comes from ``rng_for(seed, "sequential-niah", "frame", original_id)``, its own stream,
    so a sample's other draws do not depend on it and its noise variants keep its frame (as the
    official noise scripts keep the original ``input``'s frame).

    Returns:
        ``(prefix, "\n\n" + heading)``: what goes before the text and between it and the question.
    """
    rng = rng_for(seed, BENCHMARK, "frame", original_id)
    prefixes, headings = OFFICIAL_PREFIXES[lang], OFFICIAL_SUFFIXES[lang]
    prefix = prefixes[int(rng.integers(len(prefixes)))]
    return prefix, OFFICIAL_SEPARATOR + headings[int(rng.integers(len(headings)))]


def check_frames(frames: str) -> None:
    """Raises :class:`SpecError` unless ``frames`` is one of :data:`FRAMES`."""
    require_one_of("frames", frames, FRAMES)


def frame_of(layout: Layout, lang: str) -> tuple[str, str]:
    """The frame a layout renders with: its own, else the language's fixed one."""
    return layout.frame if layout.frame is not None else PROMPT_FRAMES[lang]


def sample_id(qa: SequentialQA, text: LongText) -> str:
    """The id of the original sample pairing ``qa`` with ``text``: ``"<qid>@<text_id>"``."""
    return f"{qa.qid}@{text.text_id}"


def variant_id(original_id: str, variant: str) -> str:
    """The id of a variant row: the original's id, a slash and the variant (``.../reorder/2``)."""
    return original_id if variant == ORIGINAL else f"{original_id}/{variant}"


def render(raw: str, question: str, needles: Sequence[str], layout: Layout, lang: str) -> Prompt:
    """The prompt of ``layout``: ``before + C_1 + n_1 + C_2 + ... + C_{k+1} + between + question``.

    ``needles[a]`` is the needle of answer ``a``; ``C_i`` are the raw-text segments between
    consecutive insertion points (noise sentences are insertions too).

    Raises:
        SpecError: The layout does not fit the raw text or the needles.
    """
    _check_layout(raw, needles, layout)
    before, between = frame_of(layout, lang)
    items = sorted(
        [(cut, 0, i, needles[a]) for i, (cut, a) in enumerate(zip(layout.cuts, layout.order))]
        + [(cut, 1, j, sentence) for j, (cut, sentence) in enumerate(layout.noise)]
    )
    parts = [before]
    at = len(before)
    raw_at = 0
    last = ""
    needle_chars = [0] * len(layout.cuts)
    noise_chars = [0] * len(layout.noise)
    for cut, kind, index, sentence in items:
        segment = raw[raw_at:cut]
        if segment:
            parts.append(segment)
            at += len(segment)
            last = segment[-1]
        if last and last != NEEDLE_LINE:
            parts.append(NEEDLE_LINE)
            at += len(NEEDLE_LINE)
        (needle_chars if kind == 0 else noise_chars)[index] = at
        parts.append(sentence + NEEDLE_LINE)
        at += len(sentence) + len(NEEDLE_LINE)
        last = NEEDLE_LINE
        raw_at = cut
    parts += [raw[raw_at : layout.text_end], between, question]
    return Prompt("".join(parts), tuple(needle_chars), tuple(noise_chars), raw_at, at)


def draw_layout(qa: SequentialQA, text: LongText, bucket: LengthBucket, tokens: TokenCounter,
                rng: np.random.Generator, frame: tuple[str, str] | None = None) -> Layout:
    """Algorithm 1's random choices: how much of the text to use, ``k`` distinct cuts, the needle order.

    The text is used whole when its stored token count plus the needles, frame and question fit
    :data:`TRIM_MARGIN` under the bucket's ``high``; otherwise it ends at the sentence end where
    a proportional estimate reaches that target (:func:`fit_draft` corrects the estimate).

    Raises:
        BudgetError: The text used has fewer sentence ends than there are needles.
    """
    raw = text.text
    needles = _normalized(qa.needles, tokens)
    before, between = frame if frame is not None else PROMPT_FRAMES[qa.lang]
    fixed = tokens.count(before + between + tokens.normalize(qa.question)
                         + "".join(NEEDLE_LINE + n + NEEDLE_LINE for n in needles))
    bounds = sentence_boundaries(raw)
    target = _target(bucket)
    text_end = len(raw)
    if fixed + text.n_tokens > target:
        chars = (target - fixed) * len(raw) / max(text.n_tokens, 1)
        at = int(np.searchsorted(bounds, chars, side="right")) - 1
        if at < 0:
            raise BudgetError(f"text {text.text_id}: the needles, frame and question ({fixed} tokens) leave no room "
                              f"for text under {bucket.high} tokens")
        text_end = int(bounds[at])
    usable = bounds[: int(np.searchsorted(bounds, text_end, side="left"))]
    k = len(needles)
    if len(usable) < k:
        raise BudgetError(f"text {text.text_id}: {len(usable)} sentence ends in the text used, {k} needles to place")
    cuts = usable[np.sort(rng.choice(len(usable), size=k, replace=False))]
    order = rng.permutation(k)
    return Layout(text_end, tuple(cuts.tolist()), tuple(order.tolist()), frame=frame)


def make_draft(qa: SequentialQA, text: LongText, layout: Layout, tokens: TokenCounter, *, bucket: LengthBucket,
               variant: str = ORIGINAL, original_id: str | None = None) -> Draft:
    """Render ``layout`` of ``qa`` in ``text`` as a draft of the row ``variant`` (ids follow :func:`variant_id`).

    Raises:
        SpecError: ``qa`` and ``text`` differ in language, or the layout does not fit them.
    """
    if qa.lang != text.lang:
        raise SpecError(f"{qa.qid} is {qa.lang} but text {text.text_id} is {text.lang}")
    original = original_id if original_id is not None else sample_id(qa, text)
    needles = _normalized(qa.needles, tokens)
    question = tokens.normalize(qa.question)
    layout = replace(layout, noise=tuple((cut, tokens.normalize(s)) for cut, s in layout.noise))
    suffix_tokens = tokens.count(frame_of(layout, qa.lang)[1] + question)
    prompt = render(text.text, question, needles, layout, qa.lang)
    return Draft(variant_id(original, variant), variant, original, qa, text, bucket, needles, question, suffix_tokens,
                 layout, prompt)


def fit_draft(draft: Draft, token_starts: np.ndarray, tokens: TokenCounter) -> dict[str, Any]:
    """The row of ``draft`` once its prompt lies in its bucket, given its first encode's token starts.

    A prompt at or over ``high`` loses the tail of its last segment at the last sentence end whose
    token offset (read from the encode) leaves room for the question; a prompt under ``low`` whose
    text was trimmed gets more of it back. Each change is verified by a new encode.

    Raises:
        BudgetError: The bucket cannot be met (text too short, or no sentence end to trim at
            after the last insertion) within :data:`MAX_ROUNDS` encodes.
    """
    layout, prompt, starts = draft.layout, draft.prompt, token_starts
    bucket = draft.bucket
    tried: set[int] = set()
    for _ in range(MAX_ROUNDS):
        n = len(starts)
        if bucket.low <= n < bucket.high:
            if tokens.normalize(prompt.text) != prompt.text:
                raise BudgetError(f"{draft.id}: the prompt is not in {tokens.name}'s normalized form; normalize the "
                                  "long texts with tokens.normalize() so character offsets stay exact")
            return _row(draft, layout, prompt, starts)
        tried.add(layout.text_end)
        end = _trimmed_end(draft, layout, prompt, starts) if n >= bucket.high else _extended_end(draft, layout, prompt, n)
        if end in tried:
            break
        layout = replace(layout, text_end=end)
        prompt = render(draft.text.text, draft.question, draft.needles, layout, draft.qa.lang)
        _, starts = tokens.encode_with_offsets(prompt.text)
    raise BudgetError(f"{draft.id}: could not fit bucket {bucket.name} ({bucket.low} <= tokens < {bucket.high}); "
                      f"last prompt had {len(starts)} tokens")


def rows_from_drafts(drafts: Iterable[Draft], tokens: TokenCounter, on_error: OnError | None = None) -> Iterator[dict[str, Any]]:
    """Rows of ``drafts`` in order, each prompt encoded while the next draft is made (:func:`encoded_ahead`).

    Args:
        drafts: Drafts in row order (all random draws happen while producing them).
        tokens: The build's tokenizer.
        on_error: Receives ``(id, error)`` of a draft that cannot fit its bucket, which is then
            skipped; ``None`` raises the error.
    """
    for draft, _, starts in encoded_ahead(tokens, ((d.prompt.text, d) for d in drafts)):
        try:
            yield fit_draft(draft, starts, tokens)
        except BudgetError as err:
            if on_error is None:
                raise
            on_error(draft.id, err)


def generate_samples(pairs: Iterable[tuple[SequentialQA, LongText]], *, seed: int, tokens: TokenCounter,
                     buckets: Sequence[LengthBucket] = LENGTH_BUCKETS,
                     on_error: OnError | None = None, frames: str = "fixed") -> Iterator[dict[str, Any]]:
    """Original rows (``variant="original"``) of many ``(QA, long text)`` pairs, in pair order.

    Each sample's random choices come from ``rng_for(seed, "sequential-niah", "samples", id)``
    with ``id = "<qid>@<text_id>"``, so a text reused with another QA gets other cuts. The bucket
    is the text's ``length_bucket``. Prompts are encoded one ahead (:func:`rows_from_drafts`).

    Args:
        pairs: ``(qa, text)`` pairs of the same language.
        seed: The build seed.
        tokens: The build's tokenizer.
        buckets: The buckets the texts' ``length_bucket`` names refer to.
        on_error: See :func:`rows_from_drafts`; also receives samples whose text has too few sentences.
        frames: One of :data:`FRAMES`: ``official`` draws each sample's frame (:func:`official_frame`).

    Raises:
        SpecError: Unknown ``frames``.
    """
    check_frames(frames)

    def drafts() -> Iterator[Draft]:
        for qa, text in pairs:
            key = sample_id(qa, text)
            try:
                bucket = bucket_named(text.length_bucket, buckets)
                frame = official_frame(seed, key, qa.lang) if frames == "official" else None
                layout = draw_layout(qa, text, bucket, tokens, rng_for(seed, BENCHMARK, "samples", key), frame)
            except BudgetError as err:
                if on_error is None:
                    raise
                on_error(key, err)
                continue
            yield make_draft(qa, text, layout, tokens, bucket=bucket)

    return rows_from_drafts(drafts(), tokens, on_error)


def check_stated_once(row: dict[str, Any], qa: SequentialQA) -> None:
    """Check that each needle of ``row`` occurs exactly once in its ``input`` (where it was
    inserted) and that no answer sentence of its own (:func:`generators.sequential_niah.splits.stated_sentences`)
    occurs at all: a fact standing twice in a haystack gives the order question two answers (issue 24).

    Raises:
        SpecError: Naming the row, the needle or answer, and how often it occurs.
    """
    text = row["input"]
    for needle in row["needles"]:
        found = text.count(needle["text"])
        if found != 1:
            raise SpecError(f"row {row['id']}: needle {needle['answer_index']} ({needle['text'][:60]!r}) occurs {found} "
                            "times in input, not once; its long text states it too")
    for answer, needle in zip(qa.answers, qa.needles):
        if answer not in needle and answer in text:
            raise SpecError(f"row {row['id']}: answer {answer[:60]!r} occurs in input outside its needle")


def layout_of_row(row: dict[str, Any]) -> Layout:
    """The layout a row records: ``text_end``, ``cuts``, needle order (``answer_index`` in text order), noise."""
    return Layout(int(row["text_end"]), tuple(int(c) for c in row["cuts"]),
                  tuple(int(n["answer_index"]) for n in row["needles"]),
                  tuple((int(d["cut"]), d["text"]) for d in row["distractors"]))


def rebuild_row(qa: SequentialQA, text: LongText, *, cuts: Sequence[int], order: Sequence[int], text_end: int,
                tokens: TokenCounter, noise: Sequence[tuple[int, str]] = (), variant: str = ORIGINAL,
                original_id: str | None = None, buckets: Sequence[LengthBucket] = LENGTH_BUCKETS,
                frame: tuple[str, str] | None = None) -> dict[str, Any]:
    """A row rebuilt from its raw text, cuts, needle order and ``text_end`` (no random draw), with one encode.

    Args:
        qa: The question, answers and needles.
        text: The raw long text (the ``texts`` config's row).
        cuts: Character offsets in the raw text, in text order.
        order: Answer index of the needle at each cut.
        text_end: Characters of the raw text used.
        tokens: The build's tokenizer.
        noise: ``(cut, sentence)`` noise insertions of a semantic-noise variant.
        variant: ``original`` or the variant name; ``original_id`` defaults to the pair's id.
        buckets: The buckets the text's ``length_bucket`` names refer to.
        frame: The row's frame when not the fixed one (:func:`official_frame` of its ``original_id``).

    Raises:
        BudgetError: The rebuilt prompt is not inside the text's bucket.
    """
    bucket = bucket_named(text.length_bucket, buckets)
    layout = Layout(int(text_end), tuple(map(int, cuts)), tuple(map(int, order)), tuple((int(c), s) for c, s in noise),
                    frame)
    draft = make_draft(qa, text, layout, tokens, bucket=bucket, variant=variant, original_id=original_id)
    _, starts = tokens.encode_with_offsets(draft.prompt.text)
    if not bucket.low <= len(starts) < bucket.high:
        raise BudgetError(f"{draft.id}: rebuilt prompt has {len(starts)} tokens, outside {bucket.name}")
    return _row(draft, layout, draft.prompt, starts)


def _row(draft: Draft, layout: Layout, prompt: Prompt, starts: np.ndarray) -> dict[str, Any]:
    """One row of the contract's schema (column order as the builder's features)."""
    qa = draft.qa
    needle_tokens = token_indices(starts, prompt.needle_chars).tolist() if layout.cuts else []
    noise_tokens = token_indices(starts, prompt.noise_chars).tolist() if layout.noise else []
    needles = [
        {"text": draft.needles[a], "answer_index": a, "char_offset": c, "token_offset": t, "segment": i}
        for i, (a, c, t) in enumerate(zip(layout.order, prompt.needle_chars, needle_tokens))
    ]
    distractors = [
        {"text": s, "char_offset": c, "token_offset": t, "cut": cut}
        for (cut, s), c, t in zip(layout.noise, prompt.noise_chars, noise_tokens)
    ]
    return {
        "id": draft.id, "input": prompt.text, "question": draft.question, "answers": list(qa.answers),
        "reference": qa.reference, "ordered": qa.ordered, "needles": needles, "lang": qa.lang,
        "pipeline": qa.pipeline, "length_bucket": draft.bucket.name, "n_tokens": len(starts),
        "text_id": draft.text.text_id, "cuts": list(layout.cuts), "qid": qa.qid, "source": qa.source,
        "variant": draft.variant, "original_id": draft.original_id, "text_end": layout.text_end,
        "distractors": distractors,
    }


def _target(bucket: LengthBucket) -> int:
    """Tokens a trimmed prompt aims at: :data:`TRIM_MARGIN` under the bucket's top."""
    return bucket.high - 1 - max(JOIN_SLACK, int(bucket.high * TRIM_MARGIN))


def _trimmed_end(draft: Draft, layout: Layout, prompt: Prompt, starts: np.ndarray) -> int:
    """The last sentence end after the last insertion whose prompt prefix leaves room for the question."""
    bounds = sentence_boundaries(draft.text.text)
    first = int(np.searchsorted(bounds, prompt.tail_raw, side="right"))
    stop = int(np.searchsorted(bounds, layout.text_end, side="left"))
    candidates = bounds[first:stop]
    if len(candidates):
        before = token_indices(starts, prompt.tail_prompt + (candidates - prompt.tail_raw))
        fits = np.nonzero(before + draft.suffix_tokens + JOIN_SLACK < draft.bucket.high)[0]
        if len(fits):
            return int(candidates[fits[-1]])
    raise BudgetError(f"{draft.id}: {len(starts)} tokens, over {draft.bucket.high}, and no sentence end after the last "
                      "needle to trim the text at")


def _extended_end(draft: Draft, layout: Layout, prompt: Prompt, n: int) -> int:
    """A later sentence end (or the text's end) aiming at :func:`_target`, for a prompt under ``low``."""
    raw = draft.text.text
    if layout.text_end >= len(raw):
        raise BudgetError(f"{draft.id}: {n} tokens with the whole text {draft.text.text_id}, under the "
                          f"{draft.bucket.low} of {draft.bucket.name}")
    bounds = sentence_boundaries(raw)
    want = layout.text_end + int((_target(draft.bucket) - n) * len(prompt.text) / max(n, 1))
    after = int(np.searchsorted(bounds, layout.text_end, side="right"))
    if want >= len(raw) or after >= len(bounds):
        return len(raw)
    at = int(np.searchsorted(bounds, want, side="right")) - 1
    return int(bounds[max(at, after)])


def _normalized(texts: Sequence[str], tokens: TokenCounter) -> tuple[str, ...]:
    return tuple(tokens.normalize(t) for t in texts)


def _check_layout(raw: str, needles: Sequence[str], layout: Layout) -> None:
    k = len(needles)
    if not 0 < layout.text_end <= len(raw):
        raise SpecError(f"text_end {layout.text_end} outside the raw text (1..{len(raw)})")
    if len(layout.cuts) != k or sorted(layout.order) != list(range(k)):
        raise SpecError(f"a layout needs {k} cuts and a permutation of 0..{k - 1}, got {len(layout.cuts)} cuts and "
                        f"order {list(layout.order)}")
    if any(b < a for a, b in zip(layout.cuts, layout.cuts[1:])):
        raise SpecError(f"cuts must be non-decreasing, got {list(layout.cuts)}")
    noise_cuts = [c for c, _ in layout.noise]
    if len(set(noise_cuts)) != len(noise_cuts) or set(noise_cuts) & set(layout.cuts):
        raise SpecError("noise sentences need cuts distinct from each other and from the needles'")
    if any(not 0 < c < layout.text_end for c in (*layout.cuts, *noise_cuts)):
        raise SpecError(f"every cut must lie inside the text used (0, {layout.text_end})")
