"""Pure scorers. Each takes the extracted prediction and the references and returns a float in [0, 1].

The RULERv2 score (paper §2, "Our final score combines recall-based accuracy and word error
rate"): for each reference ``r`` and prediction ``p``

    s(r, p) = max( match(r, p), clip(1 - WER(T(r), T(p)), 0, 1) )

where ``match`` is RULER's case-insensitive substring test (1 if ``r.lower()`` occurs in
``p.lower()``), and ``WER`` is jiwer's word error rate of the single pair, computed after the
transform ``T``: lower-case, remove punctuation, collapse runs of spaces, strip, split on
whitespace. WER can exceed 1 (insertions), so ``1 - WER`` is clipped at 0. "All" tasks
(multi-value) average ``s`` over the references; "part" tasks take the best reference.
"""

from __future__ import annotations

from typing import Literal, Sequence

import jiwer



class _RemovePunctuation(jiwer.RemovePunctuation):
    """jiwer's punctuation removal (every Unicode ``P*`` character) in one ``str.translate`` pass.

    Same output as the parent, which calls ``str.replace`` once per punctuation character (819 of
    them) and made re-scoring wrong answers the slowest part of resuming a run.
    """

    def __init__(self) -> None:
        super().__init__()
        self._table = str.maketrans("", "", "".join(sorted(self.tokens_to_remove)))

    def process_string(self, s: str) -> str:
        return s.translate(self._table)


WER_TRANSFORM = jiwer.Compose(
    [
        jiwer.ToLowerCase(),
        _RemovePunctuation(),
        jiwer.RemoveMultipleSpaces(),
        jiwer.Strip(),
        jiwer.ReduceToListOfListOfWords(),
    ]
)

Aggregate = Literal["all", "part"]


def string_match(reference: str, prediction: str) -> float:
    """RULER's match: 1.0 if the reference occurs in the prediction, ignoring case, else 0.0."""
    return 1.0 if reference.lower() in prediction.lower() else 0.0


def one_minus_wer(reference: str, prediction: str) -> float:
    """``1 - WER`` of one (reference, prediction) pair after :data:`WER_TRANSFORM`, clipped to [0, 1].

    Per-pair on purpose: ``jiwer.wer`` on lists pools errors over the whole corpus. An empty
    reference (after the transform) scores 1 only against an empty prediction.
    """
    ref_words, hyp_words = WER_TRANSFORM(reference)[0], WER_TRANSFORM(prediction)[0]
    if not ref_words or not hyp_words:
        return 1.0 if ref_words == hyp_words else 0.0
    wer = jiwer.wer(" ".join(ref_words), " ".join(hyp_words))
    return min(1.0, max(0.0, 1.0 - wer))


def ruler_reference_score(reference: str, prediction: str) -> float:
    """``max(match, 1 - WER)`` for one reference: the RULERv2 per-reference score."""
    matched = string_match(reference, prediction)
    return matched if matched == 1.0 else max(matched, one_minus_wer(reference, prediction))


def ruler_score(references: Sequence[str], prediction: str, aggregate: Aggregate) -> float:
    """RULERv2 score of one prediction: mean over references ("all") or best reference ("part")."""
    if not references:
        raise ValueError("ruler_score needs at least one reference")
    scores = [ruler_reference_score(r, prediction) for r in references]
    return sum(scores) / len(scores) if aggregate == "all" else max(scores)
