"""Sequential-NIAH's LLM judge (Figures 10 and 11, by the row's pipeline and language).

The judge needs a second model call per sample, which the one-pass harness does not make. It runs
after a run, over the run's saved answers: :func:`judge_run` (any
:class:`eval.backends.base.Backend`; verdicts appended to the run directory's judge log with the
raw output and the parsed ``eval_label``, resumable), or :class:`LlmJudge` around any callable
that answers chat messages; :func:`eval.benchmarks.sequential_niah.report.scored_samples` with
``judge=True`` scores a run by the verdicts.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from eval.backends.base import Backend, Message, Request
from eval.benchmarks.sequential_niah.task import TASK_NAMES, SequentialNiahTask
from eval.release import open_release
from eval.store import RunDirectory, is_done
from eval.task import TaskOptions
from generators.sequential_niah.prompts import judge_prompt, order_type_of, parse_eval_label
from needlework.errors import SpecError


@dataclass(frozen=True)
class JudgeCase:
    """One answer for the judge: the question, the answer, the reference, and which prompt applies."""

    key: str
    question: str
    answer: str
    reference: str
    order_type: str
    lang: str

    def messages(self) -> tuple[Message, ...]:
        """The Figure 10 (temporal) or Figure 11 (logical) prompt in the case's language, as one user turn."""
        prompt = judge_prompt(self.order_type, self.lang, query=self.question, answer=self.answer,
                              ref_answer=self.reference)
        return ({"role": "user", "content": prompt},)


def judge_case(key: str, row: Mapping[str, Any], answer: str) -> JudgeCase:
    """The :class:`JudgeCase` of a Sequential-NIAH row (its question, ``reference``, pipeline, language)."""
    return JudgeCase(key, str(row["question"]), answer, str(row["reference"]), order_type_of(str(row["pipeline"])),
                     str(row["lang"]))


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's raw output and its parsed ``eval_label`` (None when unreadable or on error)."""

    key: str
    raw: str | None
    label: str | None
    error: str | None = None

    @property
    def correct(self) -> bool | None:
        """True/False for a readable verdict, None otherwise."""
        return None if self.label is None else self.label == "correct"


class LlmJudge:
    """The paper's LLM judge around any callable that answers chat messages with text."""

    def __init__(self, complete: Callable[[tuple[Message, ...]], str]) -> None:
        self.complete = complete

    def judge(self, case: JudgeCase) -> JudgeVerdict:
        """Ask the judge once; the verdict keeps its raw output."""
        raw = self.complete(case.messages())
        return JudgeVerdict(case.key, raw, parse_eval_label(raw))

    def score(self, case: JudgeCase) -> float:
        """1.0 when the judge says correct, else 0.0 (an unreadable verdict counts as incorrect)."""
        return 1.0 if self.judge(case).correct else 0.0


def read_verdicts(run_dir: Path) -> dict[str, JudgeVerdict]:
    """The judge verdicts saved in a run directory's ``judge.jsonl``, by sample key."""
    return {key: JudgeVerdict(key, r.get("raw"), r.get("eval_label"), (r.get("error") or {}).get("message"))
            for key, r in RunDirectory(run_dir).latest_judgements().items()}


def judge_run(run_dir: Path, backend: Backend, *, generation: Mapping[str, Any] | None = None,
              release: Any = None) -> dict[str, JudgeVerdict]:
    """Judge every answered Sequential-NIAH sample of a finished run with the paper's prompts.

    Reads ``run.json`` and ``samples.jsonl``, takes each answered sample's extracted answer, the
    question and reference from the release row, renders Figure 10 or 11 (by pipeline and
    language), sends them through ``backend`` and appends ``{key, config, row_id, raw, eval_label,
    error}`` to ``judge.jsonl``. Samples already judged (a label, or a final error) are skipped.

    Args:
        run_dir: A run directory of ``python -m eval run``.
        backend: Any eval backend serving the judge model.
        generation: Generation settings for the judge (default ``temperature=0``).
        release: The opened release (default: the run's dataset at its recorded revision).

    Returns:
        Every verdict of the run, by sample key.
    """
    directory = RunDirectory(run_dir)
    saved = directory.read_run()
    info = saved["run"]
    if release is None:
        local = str(info["revision"]).startswith("sha256:")
        release = open_release(info["dataset"], None if local else info["revision"])
    if release.revision != info["revision"]:
        raise SpecError(f"{run_dir}: the release is at {release.revision}, the run used {info['revision']}")
    options = TaskOptions(**info["task_options"])
    records = directory.latest_samples()
    done = {key for key, record in directory.latest_judgements().items() if is_done(record)}
    answered = {key for key, record in records.items() if record.get("error") is None}
    wanted = {(e["config"], e["row_id"]): e for e in saved["expected"]
              if e["task"] in TASK_NAMES and e["key"] in answered and e["key"] not in done}
    cases: dict[str, tuple[JudgeCase, dict[str, Any]]] = {}
    for config in info["configs"]:
        for row in release.iter_rows(config, info["split"], info.get("limit")):
            entry = wanted.get((config, row["id"]))
            if entry is not None:
                task = SequentialNiahTask(entry["task"], options)
                answer = task.extract(records[entry["key"]]["text"] or "")
                cases[entry["key"]] = (judge_case(entry["key"], row, answer), {"config": config, "row_id": row["id"]})
    settings = dict(generation or {"temperature": 0.0})
    requests = [Request(key, case.messages(), settings) for key, (case, _) in cases.items()]

    async def drive() -> None:
        with directory.judge_writer() as writer:
            try:
                async for outcome in backend.stream(iter(requests)):
                    error = None if outcome.error is None else {**asdict(outcome.error), "final": outcome.error.final}
                    writer.append({"key": outcome.key, **cases[outcome.key][1], "raw": outcome.text,
                                   "eval_label": None if outcome.text is None else parse_eval_label(outcome.text),
                                   "error": error})
            finally:
                await backend.aclose()

    if requests:
        asyncio.run(drive())
    return read_verdicts(run_dir)
