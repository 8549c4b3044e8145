"""HaystackCraft dynamic NIAH in eval: the items of the ``dynamic`` config, their task, and the lock-step round driver.

An item is (question, strategy, size, mode): modes are 1, 2 or 3 enforced rounds and variable rounds (max 3, early
stop on an extractable answer), plus Appendix D's ablation (``ablation-2``, ``ablation-3``, ``ablation-variable``;
run when named with ``--tasks``). Each round ranks the whole corpus with the round's query q(t) (the build's own
retrieval, :mod:`.dynamic_world`), assembles the haystack with the static assembly (descending), renders the
official prompt (:mod:`generators.haystackcraft.dynamic`) and parses the response (Summary / Refined Question with
the official fall-backs) into the next round's analysis and query (Graph-COM/HaystackCraft ``infer_multi.py``,
``infer_variable.py``).

Throughput: rounds run in lock-step. Every unfinished item's next round goes to the backend in one stream, so a
server works on all questions at once; an item never waits longer than one round on another.

Crash safety: every finished round is one record in the samples log (key: item and round number, so a resumed run
finds it without re-rendering): doc ids, needle ranks, the haystack's tokens (build tokenizer, from the stored
counts), the prompt's tokens as the server counted them (``usage.prompt_tokens``; counting a 128K-token prompt again
here would cost more than the rest of the round's preparation), response, summary, next query. When an item's
final round is recorded, an item record (the sample that is scored, key in ``run.json``'s expected list) follows.
A killed run resumes each item at its first unrecorded round, from the recorded queries and analyses: nothing
finished is asked again, and retrieval being deterministic, the results are those of an unbroken run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tqdm.autonotebook import tqdm

from eval.benchmarks.haystackcraft.tasks import (
    extract_answer,
    official_answer_or_none,
    official_extract_answer,
)
from eval.failures import (
    MIN_SAMPLES_FOR_ERROR_BUDGET,
    ErrorBudgetExceeded,
    describe_failures,
)
from eval.release import Release
from eval.rows import RELEASE_ROWS, Where, column_values
from eval.scoring import exact_match, max_f1
from eval.store import SampleWriter, is_done
from eval.task import TaskOptions
from generators.haystackcraft.dynamic import (
    KIND_FINAL,
    KIND_VARIABLE,
    MODES,
    OFFICIAL_MODES,
    REFINED_MARKER,
    REFINED_QUERY_MARKER,
    Mode,
    ablation_prompt,
    official_prompt,
    parse_mode,
    parse_response,
)
from generators.haystackcraft.preset import OFFICIAL_MAX_NEW_TOKENS
from generators.haystackcraft.spec import BENCHMARK
from generators.strategies import strategy_parts
from needlework.backends.base import WINDOW_ERROR_KINDS, Backend, Outcome, Request
from needlework.errors import SpecError

CONFIG = "dynamic"
DYNAMIC = f"{BENCHMARK}/dynamic"
"""The dynamic NIAH task (every mode; the mode is a metadata column)."""
ROUND_RECORD = "dynamic-round"
"""The ``kind`` of a round record in the samples log (item records have none)."""
DEFAULT_MAX_TOKENS = OFFICIAL_MAX_NEW_TOKENS
"""The official code's ``max_new_tokens`` for non-reasoning open models (``infer_multi.py`` ``main``); override
with ``--gen-kwargs max_tokens=N`` (reasoning models: the official code sets none, GPT-5 16,382)."""
DYNAMIC_METRIC = (
    "HaystackCraft dynamic NIAH (paper §3.3, §4.2): token F1 of the final round's answer, read as the authors' "
    "utils/llm.py reads it (first 'The correct answer is' match; none = 0), against the answer and each alias "
    "(MuSiQue's F1); an item whose final round failed scores 0"
)
DYNAMIC_LENIENT_METRIC = DYNAMIC_METRIC.replace("read as the authors' utils/llm.py reads it (first 'The correct answer "
                                                "is' match; none = 0)", "read by needlework's lenient reader")


def is_dynamic_config(config: str) -> bool:
    """Whether ``config`` is the dynamic NIAH config."""
    return config == CONFIG


@dataclass(frozen=True)
class DynamicTask:
    """Dynamic NIAH: scored on the final round's response as static NIAH is (answer after "correct answer is",
    MuSiQue's F1, exact match beside it). Its prompts are rendered round by round by :func:`drive_rounds`."""

    name: str
    options: TaskOptions
    metric: str = field(init=False, default=DYNAMIC_METRIC)
    metadata_columns: tuple[str, ...] = ("strategy", "retriever", "ppr", "size", "mode", "rounds", "variable",
                                         "ablation", "hops", "qid", "source")

    def __post_init__(self) -> None:
        object.__setattr__(self, "metric", self.options.by_scoring(DYNAMIC_METRIC, DYNAMIC_LENIENT_METRIC))

    def render(self, row: Mapping[str, Any]) -> tuple[dict[str, str], ...]:
        """Not available: a dynamic item's prompts depend on the model's earlier rounds."""
        raise SpecError(f"{row.get('id')}: a dynamic NIAH item is rendered round by round at run time "
                        "(python -m eval run --config dynamic), not as one prompt")

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The answer and its aliases."""
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Strategy, base retriever and PPR flag, size, mode (its rounds, whether variable or ablation), hops,
        question id and source."""
        return {column: row[column] for column in self.metadata_columns}

    def extract(self, response: str) -> str:
        """The answer read as static NIAH reads it: the authors' reader under ``--scoring official`` (the default),
        needlework's lenient one under ``--scoring lenient``."""
        reader = self.options.by_scoring(official_extract_answer, extract_answer)
        return reader(self.options.strip_reasoning(response))

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """MuSiQue's F1: the best token F1 over the answer and aliases."""
        return max_f1(prediction, references)

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """Exact match beside F1."""
        return {"em": exact_match(prediction, references)}


# --- items -------------------------------------------------------------------------------------------------------


def dynamic_items(release: Release, split: str, where: Where | None, limit: int | None) -> Iterator[dict[str, Any]]:
    """The items of the ``dynamic`` config: question x strategy x size x mode, for the sizes the needles fit.

    Modes: the official four unless ``where`` selects ``task`` values (``--tasks``), which may name the ablation's.
    ``where`` filters every composed column; ``limit`` keeps the first items.
    """
    from eval.benchmarks.haystackcraft.dynamic_world import (
        document_tokens,
        dynamic_block,
    )

    block = dynamic_block(release)
    where = dict(where or {})
    modes = [m for m in MODES if m in where["task"]] if "task" in where else list(OFFICIAL_MODES)
    doc_tokens = document_tokens(release)
    join = int(release.manifest.get("join_tokens", 1))
    emitted = 0
    for question in release.iter_rows(CONFIG, split):
        needles = [int(s) for s in question["support"]]
        needle_total = int(doc_tokens[needles].sum()) + join * (len(needles) - 1)
        for strategy in block["strategies"]:
            base, ppr = strategy_parts(strategy)
            for size in block["sizes"]:
                if size and needle_total > size:
                    continue
                for name in modes:
                    mode = parse_mode(name)
                    item = {**question, "id": f"{question['qid']}/{strategy}/size={size}/{name}", "strategy": strategy,
                            "retriever": base, "ppr": ppr, "size": int(size), "task": name, "mode": name,
                            "rounds": mode.rounds, "variable": mode.variable, "ablation": mode.ablation}
                    if not all(item.get(c) in v for c, v in where.items()):
                        continue
                    if limit is not None and emitted >= limit:
                        return
                    emitted += 1
                    yield item


class HaystackCraftRows:
    """The benchmark's :class:`eval.rows.RowSource`: the release's rows, but composed items for ``dynamic``."""

    def rows(self, release: Release, config: str, split: str, limit: int | None, where: Where | None,
             options: TaskOptions) -> Iterator[dict[str, Any]]:
        """Items of the dynamic config (:func:`dynamic_items`), the published rows of any other."""
        if is_dynamic_config(config):
            return dynamic_items(release, split, where, limit)
        return RELEASE_ROWS.rows(release, config, split, limit, where, options)

    def values(self, release: Release, config: str, split: str, column: str) -> set[Any] | None:
        """For ``dynamic``: every mode (``task``), the built sizes and base retrievers; else the published values."""
        if not is_dynamic_config(config):
            return RELEASE_ROWS.values(release, config, split, column)
        from eval.benchmarks.haystackcraft.dynamic_world import dynamic_block

        block = dynamic_block(release)
        if column == "task":
            return set(MODES)
        if column == "size":
            return {int(s) for s in block["sizes"]}
        if column == "retriever":
            return {strategy_parts(s)[0] for s in block["strategies"]}
        return column_values(release, config, split, column)


def task_for_dynamic_row(row: Mapping[str, Any]) -> str | None:
    """:data:`DYNAMIC` for a composed dynamic item (it has a ``mode``), else None."""
    return DYNAMIC if "mode" in row and "rounds" in row else None


# --- keys and state ----------------------------------------------------------------------------------------------


def _digest(material: Sequence[Any]) -> str:
    return hashlib.sha256(json.dumps(list(material), sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class KeyBase:
    """What every key of a run shares: release, config, model, generation settings and seed."""

    identity: str
    revision: str
    model: str
    generation: Mapping[str, Any]
    seed: int

    def item(self, row_id: str) -> str:
        """The item's (scored sample's) key."""
        return _digest([self.identity, self.revision, CONFIG, row_id, self.model, dict(self.generation), self.seed,
                        "dynamic-item"])

    def round(self, row_id: str, number: int) -> str:
        """Round ``number``'s key: independent of the prompt, so a resumed run finds the round without rebuilding it."""
        return _digest([self.identity, self.revision, CONFIG, row_id, self.model, dict(self.generation), self.seed,
                        "round", number])


@dataclass
class ItemState:
    """One item's progress: its done rounds (records), whether it is finished and recorded."""

    item: dict[str, Any]
    key: str
    mode: Mode
    rounds: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    recorded: bool = False
    stalled: bool = False

    @property
    def next_round(self) -> int:
        """The 1-based number of the round to run next."""
        return len(self.rounds) + 1

    @property
    def query(self) -> str:
        """q(t): the question, then each round's refined question (or query)."""
        return self.rounds[-1]["next_query"] if self.rounds else str(self.item["question"])

    def absorb(self, record: Mapping[str, Any]) -> None:
        """Take a done round record: append it; a final round, an early stop or a final error finishes the item."""
        self.rounds.append(dict(record))
        if record.get("final") or record.get("error") is not None:
            self.finished = True


def restore(items: Sequence[dict[str, Any]], keys: KeyBase, records: Mapping[str, Mapping[str, Any]]) -> list[ItemState]:
    """Every item's state from the samples log: its consecutive done rounds from round 1."""
    states = []
    for item in items:
        state = ItemState(item, keys.item(item["id"]), parse_mode(item["mode"]))
        while not state.finished:
            record = records.get(keys.round(item["id"], state.next_round))
            if record is None or not is_done(record):
                break
            state.absorb(record)
        item_record = records.get(state.key)
        state.recorded = item_record is not None and is_done(item_record)
        states.append(state)
    return states


# --- rounds ------------------------------------------------------------------------------------------------------


def round_prompt(state: ItemState, kind: str, haystack: str) -> str:
    """The prompt of ``state``'s next round: the official one, or Appendix D's for an ablation mode."""
    summaries = [r["summary"] for r in state.rounds]
    if state.mode.ablation:
        queries = [r["query"] for r in state.rounds]
        return ablation_prompt(kind, haystack, state.query, str(state.item["question"]), queries, summaries)
    return official_prompt(kind, haystack, state.query, summaries)


def interpret(state: ItemState, kind: str, outcome: Outcome, options: TaskOptions) -> dict[str, Any]:
    """What a round's response means: final or not, early stop, and the analysis and next query it gives.

    A variable round whose response the authors' ``utils/llm.py`` ``extract_answer`` matches
    (:func:`eval.benchmarks.haystackcraft.tasks.official_answer_or_none` is not ``None``, even an empty match) stops
    the item early, as ``infer_variable.py`` does;
    a final round ends it; any other round's response is parsed (:func:`parse_response`; the ablation reads
    ``Refined Query:``) after the official ``.strip()``.
    """
    if outcome.error is not None or outcome.text is None:
        return {"final": False, "early_stop": False, "summary": None, "next_query": None}
    response = options.strip_reasoning(outcome.text)
    if kind == KIND_FINAL:
        return {"final": True, "early_stop": False, "summary": None, "next_query": None}
    if kind == KIND_VARIABLE and official_answer_or_none(response) is not None:
        return {"final": True, "early_stop": True, "summary": None, "next_query": None}
    summary, next_query = parse_response(response, REFINED_QUERY_MARKER if state.mode.ablation else REFINED_MARKER)
    return {"final": False, "early_stop": False, "summary": summary, "next_query": next_query}


def item_record(state: ItemState, task: DynamicTask) -> dict[str, Any]:
    """The scored sample of a finished item: the last round's response and outcome, usage and time summed over rounds,
    and what ``infer_multi.py`` / ``infer_variable.py`` save per item (queries, summaries, pred, early_stop,
    rounds_used). ``pred`` is informative: scoring reads the response again with the run's scoring."""
    last = state.rounds[-1]
    references, metadata = task.references(state.item), task.metadata(state.item)
    usage = {k: sum(int(r["usage"].get(k, 0)) for r in state.rounds) for k in last["usage"]}
    return {
        "key": state.key, "config": CONFIG, "row_id": state.item["id"], "task": DYNAMIC, "references": references,
        "metadata": dict(metadata), "text": last["text"], "reasoning": last.get("reasoning"),
        "finish_reason": last.get("finish_reason"), "usage": usage, "error": last.get("error"),
        "attempts": sum(int(r.get("attempts", 1)) for r in state.rounds),
        "latency_s": round(sum(float(r.get("latency_s", 0.0)) for r in state.rounds), 4),
        "rounds_used": len(state.rounds), "early_stop": bool(last.get("early_stop")),
        "pred": task.extract(last["text"]) if last.get("error") is None and last.get("text") is not None else None,
        "queries": [r["query"] for r in state.rounds], "summaries": [r["summary"] for r in state.rounds[:-1]],
        "round_keys": [r["key"] for r in state.rounds],
    }


@dataclass
class DriveStats:
    """What a drive did: requests sent, rounds (lock-step passes), most requests in flight, time outside the model."""

    requests: int = 0
    passes: int = 0
    max_in_flight: int = 0
    prepare_s: float = 0.0
    failures: list[dict[str, Any]] = field(default_factory=list)


def rank_round(world: Any, states: Sequence[ItemState]) -> None:
    """Rank the next round's queries of ``states`` together, one ``world.rank`` call per strategy.

    Rounds run in lock-step, so every query of a pass is known before its first prompt is built; ranking them
    as one batch lets the ranking iterate them together (one batched PPR solve per strategy,
    ``PprGraph.pagerank_many``, bitwise equal to one query at a time). The world memoizes the rankings, so the
    prompts built afterwards find them.
    """
    by_strategy: dict[str, list[ItemState]] = {}
    for state in states:
        by_strategy.setdefault(str(state.item["strategy"]), []).append(state)
    for strategy, group in by_strategy.items():
        world.rank(strategy, [s.query for s in group], [s.item["support"] for s in group])


async def drive_rounds(states: Sequence[ItemState], world: Any, backend: Backend, writer: SampleWriter, keys: KeyBase,
                       settings: Mapping[str, Any], task: DynamicTask, *, max_error_rate: float = 1.0,
                       progress: bool = False) -> DriveStats:
    """Run every unfinished item to its end in lock-step passes; append round and item records as they complete.

    Each pass sends the next round of every unfinished item in one stream (prompts built lazily as the backend asks
    for them). A round with a transient error leaves its item for the next invocation. A prompt over the model's
    window is the backend's to skip or cut (``--over-window``); the record says which (``error``, ``window_cut``).

    Raises:
        ErrorBudgetExceeded: more than ``max_error_rate`` of the rounds sent failed.
    """
    stats = DriveStats()
    in_flight = 0
    bar = tqdm(unit="round", disable=not progress, dynamic_ncols=True)

    def finish(state: ItemState) -> None:
        if state.finished and not state.recorded and not state.stalled:
            writer.append(item_record(state, task))
            state.recorded = True

    for state in states:
        finish(state)
    stubs: dict[str, tuple[ItemState, dict[str, Any]]] = {}

    def feed(active: list[ItemState]) -> Iterator[Request]:
        nonlocal in_flight
        for state in active:
            began = time.perf_counter()
            number = state.next_round
            kind = state.mode.kind(number)
            strategy, size = str(state.item["strategy"]), int(state.item["size"])
            ranking = world.rank(strategy, [state.query], [state.item["support"]])[0]
            haystack = world.haystack(ranking, size)
            if haystack is None:
                raise SpecError(f"{state.item['id']}: the needles alone exceed size {size}")
            prompt = round_prompt(state, kind, haystack.text)
            key = keys.round(state.item["id"], number)
            stub = {"key": key, "kind": ROUND_RECORD, "item": state.key, "config": CONFIG, "row_id": state.item["id"],
                    "round": number, "round_kind": kind, "query": state.query, "doc_ids": haystack.doc_ids,
                    "needle_ids": [int(n) for n in ranking.needle_ids], "needle_ranks": [int(r) for r in ranking.needle_ranks],
                    "needle_positions": haystack.needle_positions, "predicted_haystack_tokens": haystack.predicted_tokens,
                    "truncated_tokens": haystack.truncated_tokens,
                    "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest()}
            stubs[key] = (state, stub)
            stats.prepare_s += time.perf_counter() - began
            in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, in_flight)
            yield Request(key, ({"role": "user", "content": prompt},), settings)

    try:
        while True:
            active = [s for s in states if not s.finished and not s.stalled]
            if not active:
                break
            stats.passes += 1
            began = time.perf_counter()
            rank_round(world, active)
            stats.prepare_s += time.perf_counter() - began
            outcomes = backend.stream(feed(active))
            try:
                async for outcome in outcomes:
                    in_flight -= 1
                    state, stub = stubs.pop(outcome.key)
                    kind = stub["round_kind"]
                    record = {**stub, **outcome.fields(), "prompt_tokens": outcome.usage.prompt_tokens,
                              **interpret(state, kind, outcome, task.options)}
                    writer.append(record)
                    stats.requests += 1
                    bar.update(1)
                    if outcome.error is not None and outcome.error.kind not in WINDOW_ERROR_KINDS:
                        stats.failures.append(asdict(outcome.error))
                    if is_done(record):
                        state.absorb(record)
                        finish(state)
                    else:
                        state.stalled = True
                    if (stats.requests >= MIN_SAMPLES_FOR_ERROR_BUDGET
                            and len(stats.failures) > max_error_rate * stats.requests):
                        raise ErrorBudgetExceeded(
                            f"stopped: {len(stats.failures)} of {stats.requests} dynamic rounds failed "
                            f"(--max-error-rate {max_error_rate:g}): {describe_failures(stats.failures)}; fix the "
                            "cause and re-run the same command to resume")
            finally:
                await outcomes.aclose()  # type: ignore[attr-defined]
    finally:
        bar.close()
        await backend.aclose()
    return stats


def run_rounds(states: Sequence[ItemState], world: Any, backend: Backend, writer: SampleWriter, keys: KeyBase,
               settings: Mapping[str, Any], task: DynamicTask, **kwargs: Any) -> DriveStats:
    """:func:`drive_rounds` in a fresh event loop."""
    return asyncio.run(drive_rounds(states, world, backend, writer, keys, settings, task, **kwargs))


def selected_modes(where: Mapping[str, Collection[Any]] | None) -> list[str]:
    """The modes a run covers: the ``--tasks`` selection, else the official four."""
    if where and "task" in where:
        return [m for m in MODES if m in where["task"]]
    return list(OFFICIAL_MODES)


def task_for_any_row(row: Mapping[str, Any]) -> str:
    """The benchmark's row rule: :data:`DYNAMIC` for a dynamic item, else the static rule
    (:func:`eval.benchmarks.haystackcraft.tasks.task_for_row`)."""
    from eval.benchmarks.haystackcraft.tasks import task_for_row

    return task_for_dynamic_row(row) or task_for_row(row)
