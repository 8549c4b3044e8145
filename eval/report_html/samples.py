"""Every sample of the report's runs as the sample browser shows it: outcome, answer, reason and folded prompt.

A run directory holds what was asked (the run file: every expected sample with its config, row id, task
and metadata), what the model said (``samples.jsonl``) and, once judged, the judge's verdicts; the
prompt text is not kept there, so it is read again from the release rows the run file names (dataset,
revision, split, row selection), rendered by the sample's task as the runner rendered it, and only the
windows around the evidence are kept (:func:`eval.report_html.folding.fold`). A release that cannot be
read here, or is no longer the revision the run used, leaves its samples without a prompt and says why.

Each answered sample is scored again from its record by its task (as ``python -m eval score`` does), so
the page can show what the scorer extracted and why the sample scored what it did. Outcomes: ``correct``
(full score), ``partial`` (between 0 and full), ``wrong`` (0 with an answer read), ``unparsed`` (the
scorer read no answer), ``error``, ``skipped_window`` (over the model's window, never sent),
``missing`` (no record yet) and ``unscored`` (a task the report does not score: one that runs the
model's code).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from eval.benchmarks import BENCHMARK_OF_TASK, BY_ID, get_task, rows_of
from eval.benchmarks.sequential_niah.task import split_references
from eval.release import open_release
from eval.report_html.folding import (
    PROMPT_LAYOUT,
    REASONING_LAYOUT,
    RESPONSE_LAYOUT,
    Mark,
    fold,
)
from eval.report_html.needles import locate
from eval.report_runs import LENGTH_COLUMNS, Run
from eval.rubric import Verdict, read_verdicts
from eval.selection import RowSelection
from eval.store import RunDirectory
from eval.task import Task, TaskOptions
from needlework.errors import NeedleworkError

OUTCOMES: tuple[str, ...] = ("correct", "partial", "wrong", "unparsed", "error", "skipped_window", "missing", "unscored")
SIZE_COLUMNS: tuple[str, ...] = (*(c.name for c in LENGTH_COLUMNS), "scale")
"""Metadata columns that give a sample's context size, the first present wins: tokens (RULERv2, NeedleBench),
HaystackCraft's ``size``, Sequential-NIAH's ``length_bucket``, EMB-S's ladder ``scale``."""
MAX_REFERENCES, MAX_REFERENCE_CHARS, MAX_TEXT_CHARS = 24, 400, 1200


@dataclass(frozen=True)
class PromptSource:
    """Where a run's prompts come from: everything that decides which rows it asked and how they were rendered."""

    dataset: str
    revision: str
    split: str
    limit: int | None
    select: str
    options: str
    benchmark: str


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def facets(metadata: Mapping[str, Any]) -> dict[str, str]:
    """The browser's filter values of a sample: its context size (``len``, from the first of :data:`SIZE_COLUMNS`
    present, with that column's name in ``lenk``) and needle depth; values as ``str`` of the JSON value, as the
    score cells' values are written, so a heatmap cell finds its samples."""
    found: dict[str, str] = {}
    for column in SIZE_COLUMNS:
        if metadata.get(column) is not None:
            found.update(len=str(metadata[column]), lenk=column)
            break
    if metadata.get("depth") is not None:
        found["depth"] = str(metadata["depth"])
    return found


def display_references(benchmark: str, references: Sequence[str]) -> list[str]:
    """The reference answers as a reader reads them (Sequential-NIAH's items without the needles that follow them)."""
    shown = split_references(references)[0] if benchmark == "sequential-niah" else list(references)
    return [_clip(str(r), MAX_REFERENCE_CHARS) for r in shown[:MAX_REFERENCES]]


def response_marks(text: str, prediction: str, references: Sequence[str], thinking_end: str | None) -> list[Mark]:
    """Where the extracted answer (``extracted``) and the references (``hit``) occur in a response.

    The extracted answer is searched after the reasoning (the text after the last thinking marker); an answer
    the scorer rebuilt (EMB-S's canonical IDs ``3, 17``) is searched piece by piece. References are searched
    case-insensitively, a few occurrences each.
    """
    after = text.rfind(thinking_end) + len(thinking_end) if thinking_end and thinking_end in text else 0
    marks: list[Mark] = []
    answer = prediction.strip()
    if answer and answer != text.strip():
        found = text.find(answer, after)
        pieces = [(found, answer)] if found >= 0 else [(text.find(p, after), p) for p in answer.split(", ") if p]
        marks += [Mark(at, at + len(p), "extracted", "what the scorer extracted") for at, p in pieces if at >= 0]
    lowered = text.lower()
    for reference in dict.fromkeys(r.strip() for r in references if r and r.strip() and len(r) <= 300):
        position = after
        for _ in range(3):
            at = lowered.find(reference.lower(), position)
            if at < 0:
                break
            marks.append(Mark(at, at + len(reference), "hit", "reference found"))
            position = at + len(reference)
    return marks


def outcome_of(score: float | None, prediction: str) -> str:
    """``unparsed`` (nothing read), ``correct`` (full score), ``partial`` or ``wrong`` for an answered sample."""
    if not prediction.strip():
        return "unparsed"
    if score is None:
        return "unscored"
    return "correct" if score >= 1.0 - 1e-9 else "partial" if score > 0 else "wrong"


def explain(task: Task, prediction: str, references: Sequence[str], shown: Sequence[str], score: float,
            extra: Mapping[str, float]) -> str:
    """Why an answered sample scored what it did: the score, the secondary scores, Sequential-NIAH's item match,
    and how many of the references as shown (``shown``) the extracted answer holds."""
    if not prediction.strip():
        return "the scorer read no answer from the response, so it scores 0"
    parts = [f"score {100 * score:.1f}"]
    parts += [f"{name} {value:.3g}" for name, value in extra.items()]
    if hasattr(task, "details"):
        found = task.details(prediction, references)
        parts.append(f"{len(found.matched)} of {len(found.matched) + len(found.missing)} items matched, "
                     f"{len(found.extra)} extra, order {'kept' if found.order_ok else 'broken'}")
    lowered = prediction.lower()
    plain = [r for r in shown if r and len(r) <= 300 and r.strip()]
    if plain and len(plain) <= MAX_REFERENCES:
        held = sum(1 for r in plain if r.strip().lower() in lowered)
        parts.append(f"{held} of {len(plain)} references appear in the extracted answer")
    return "; ".join(parts)


def sample_view(run_index: int, entry: Mapping[str, Any], record: Mapping[str, Any] | None, task: Task,
                benchmark: str, options: TaskOptions, verdict: Verdict | None) -> dict[str, Any]:
    """One sample as the page's script reads it (short keys: the page holds thousands)."""
    view: dict[str, Any] = {"r": run_index, "c": entry["config"], "id": entry["row_id"], "t": entry["task"],
                            "f": facets(entry.get("metadata") or {}), "p": -1}
    if entry.get("generation") is not None:
        view["g"] = entry["generation"]
    if record is None:
        return {**view, "o": "missing", "why": "no answer recorded yet: the run is incomplete (re-run to resume)"}
    references = [str(r) for r in record.get("references") or []]
    view["ref"] = display_references(benchmark, references)
    error = record.get("error")
    if error is not None:
        kind = str(error.get("kind"))
        outcome = "skipped_window" if kind == "skipped_window" else "error"
        why = ("over the model's window, counted before sending: skipped, not truncated" if outcome == "skipped_window"
               else f"the request failed ({kind}{'' if error.get('final') else ', transient'}) and scores 0")
        return {**view, "o": outcome, "s": 0.0, "why": f"{why}: {_clip(str(error.get('message') or ''), 400)}"}
    text = str(record.get("text") or "")
    if getattr(task, "executes_code", False):
        view.update(o="unscored", why="scored by running the model's code, which the report does not do "
                                      "(python -m eval score --allow-code-execution re-scores the run)")
        prediction, marks = "", []
    else:
        prediction = task.extract(text)
        score = task.score(prediction, references)
        extra = task.secondary_scores(prediction, references) if hasattr(task, "secondary_scores") else {}
        view.update(o=outcome_of(score, prediction), s=round(score, 6),
                    why=explain(task, prediction, references, view["ref"], score, extra))
        if prediction == text and text:
            view["xw"] = 1  # the scorer reads the whole response: not repeated
        else:
            view["x"] = _clip(prediction)
        marks = response_marks(text, prediction, view["ref"], options.thinking_end)
    # Reasoning written into the response (up to the last thinking marker) is folded as reasoning is, apart from
    # the answer: kept whole it cost twice the page bytes of the same reasoning sent as reasoning_content.
    end = options.thinking_end
    answer_at = text.rfind(end) + len(end) if end and end in text else 0
    view["resp"] = fold(text[answer_at:], [replace(m, start=m.start - answer_at, end=m.end - answer_at) for m in marks],
                        RESPONSE_LAYOUT).record()
    reasoning = "\n\n".join(part for part in (str(record.get("reasoning") or ""), text[:answer_at]) if part)
    if reasoning:
        view["rsn"] = fold(reasoning, [], REASONING_LAYOUT).record()
    notes = []
    if record.get("finish_reason") == "length":
        notes.append("the answer stopped at max_tokens (finish_reason 'length') and may be cut off")
    cut = record.get("window_cut")
    if cut:
        notes.append(f"the prompt's middle was cut by {cut.get('tokens')} tokens to fit the model's window")
    if verdict is not None:
        raw = "" if verdict.raw is None else f" (judge said: {_clip(verdict.raw, 300)})"
        notes.append(f"judge verdict: {verdict.value!r}" + (f", score {100 * verdict.score:.1f}" if verdict.score is not None
                                                             else "") + raw)
    if notes:
        view["notes"] = notes
    return view


def _verdicts(directory: RunDirectory, benchmark: str) -> dict[str, Verdict]:
    rubric = BY_ID[benchmark].judge if benchmark in BY_ID else None
    return read_verdicts(directory, rubric) if rubric is not None and directory.has_judgements() else {}


def collect(runs: Sequence[Run]) -> dict[str, Any]:
    """The sample browser's data for the runs: ``runs``, ``tasks`` (metric per task), ``samples`` and ``prompts``.

    A run directory without a run file (results alone), or whose files cannot be read, contributes no samples
    and a note saying why; so do a run's samples of a task this version does not know.
    """
    samples: list[dict[str, Any]] = []
    tasks: dict[str, dict[str, str]] = {}
    wanted: dict[PromptSource, dict[tuple[str, str], list[int]]] = defaultdict(lambda: defaultdict(list))
    sources: dict[PromptSource, list[int]] = defaultdict(list)
    notes: dict[int, list[str]] = defaultdict(list)
    for index, run in enumerate(runs):
        directory = RunDirectory(run.directory)
        if not directory.is_run():
            notes[index].append("no run file in the run directory (results alone): no samples to show")
            continue
        try:
            source, views, unknown = run_samples(index, directory, tasks)
        except NeedleworkError as err:
            notes[index].append(f"samples not shown: {str(err).splitlines()[0]}")
            continue
        notes[index] += [f"samples of task {name} not shown: this version does not know the task" for name in unknown]
        sources[source].append(index)
        for view in views:
            samples.append(view)
            wanted[source][(view["c"], view["id"])].append(len(samples) - 1)
    prompts: list[dict[str, Any]] = []
    for source, by_row in wanted.items():
        problem = _read_prompts(source, by_row, samples, prompts)
        for index in sources[source] if problem else ():
            notes[index].append(f"prompts not shown: {problem}")
    return {"runs": [{"label": run.label, "model": str((run.results.get("run") or {}).get("model") or ""),
                      "notes": notes.get(index, [])} for index, run in enumerate(runs)],
            "tasks": tasks, "samples": samples, "prompts": prompts}


def run_samples(index: int, directory: RunDirectory, tasks: dict[str, dict[str, str]]
                ) -> tuple[PromptSource, list[dict[str, Any]], list[str]]:
    """One run's prompt source, its samples' views (:func:`sample_view`) and the task names it has that this version
    does not know; ``tasks`` gains each known task's metric.

    Raises:
        NeedleworkError: The run file, the samples or the verdicts cannot be read.
    """
    saved = directory.read_run()
    info, provenance = saved.get("run") or {}, saved.get("provenance") or {}
    options = TaskOptions.from_record(info.get("task_options") or {})
    expected = saved.get("expected") or []
    benchmark = str(provenance.get("benchmark") or next(
        (BENCHMARK_OF_TASK[e["task"]].id for e in expected if e["task"] in BENCHMARK_OF_TASK), ""))
    records, verdicts = directory.latest_samples(), _verdicts(directory, benchmark)
    source = PromptSource(str(info.get("dataset")), str(info.get("revision")), str(info.get("split") or "test"),
                          info.get("limit"), json.dumps(info.get("select") or {}, sort_keys=True),
                          json.dumps(info.get("task_options") or {}, sort_keys=True), benchmark)
    made: dict[str, Task] = {}
    unknown: list[str] = []
    views = []
    for entry in expected:
        name = entry["task"]
        if name not in made and name not in unknown:
            if name in BENCHMARK_OF_TASK:
                made[name] = get_task(name, options)
                tasks.setdefault(name, {"metric": str(made[name].metric)})
            else:
                unknown.append(name)
        if name in made:
            views.append(sample_view(index, entry, records.get(entry["key"]), made[name], benchmark, options,
                                     verdicts.get(entry["key"])))
    return source, views, unknown


def _read_prompts(source: PromptSource, by_row: Mapping[tuple[str, str], list[int]], samples: list[dict[str, Any]],
                  prompts: list[dict[str, Any]]) -> str | None:
    """Read the rows ``by_row`` names from the source's release, fold each prompt, point its samples at it.

    Returns:
        Why no prompt could be read (the release is missing, another revision, unreadable), else None.
    """
    try:  # every failure of the release is the run's note, never the report's end
        hub_revision = None if source.revision.startswith("sha256:") else source.revision
        release = open_release(source.dataset, hub_revision)
        if release.revision != source.revision:
            return (f"{source.dataset} is now at revision {release.revision[:19]}, not {source.revision[:19]} as the run "
                    "used, so its rows may not be the prompts the model saw")
        options = TaskOptions.from_record(json.loads(source.options))
        if options.live_retriever:
            return (f"the run ranked documents at run time (--live-retriever {options.live_retriever}); the report "
                    "does not rank them again")
        where = RowSelection.from_record(json.loads(source.select)).where()
        row_source = rows_of(source.benchmark)
        configs = list(dict.fromkeys(config for config, _ in by_row))
        for config in configs:
            needed = {row_id for c, row_id in by_row if c == config}
            for row in row_source.rows(release, config, source.split, source.limit, where, options):
                if row["id"] not in needed:
                    continue
                needed.discard(row["id"])
                indexes = by_row[(config, row["id"])]
                task = get_task(samples[indexes[0]]["t"], options)
                prompts.append(prompt_view(source.benchmark, row, task))
                for index in indexes:
                    samples[index]["p"] = len(prompts) - 1
                if not needed:
                    break
    except (NeedleworkError, OSError) as err:
        return str(err).splitlines()[0] if str(err) else type(err).__name__
    return None


def prompt_view(benchmark: str, row: Mapping[str, Any], task: Task) -> dict[str, Any]:
    """One release row's prompt, folded around its evidence, with its question, as the page's script reads it."""
    messages = task.render(row)
    prompt = next((m["content"] for m in reversed(messages) if m["role"] == "user"), messages[-1]["content"])
    located = locate(benchmark, row, prompt, [str(r) for r in task.references(row)])
    view = fold(prompt, located.marks, PROMPT_LAYOUT, located.scale).record()
    view.update(how=located.how, measured=located.scale.measured, turns=len(messages))
    if located.missing:
        view["missing"] = list(located.missing)
    for field in ("question", "query"):
        if row.get(field):
            view.update(q=_clip(str(row[field])), qf=field)
            break
    return view


__all__ = ["OUTCOMES", "PromptSource", "collect", "facets", "prompt_view", "sample_view"]
