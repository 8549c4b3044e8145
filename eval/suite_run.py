"""Run a suite (:mod:`eval.suite_file`): count every prompt first, then each entry as ``python -m eval run`` runs it,
judge the entries whose benchmark has a judge, and write one report.

An entry becomes the :class:`eval.runner.RunSpec` that ``eval run`` would build from the same options
(:func:`entry_spec`) and runs through :func:`eval.dynamic_run.run_any`, into the run directory ``eval run`` would
choose below the suite's output root. So the suite keeps no state of its own: each run resumes from its run
directory, and a killed suite, run again, skips every finished sample of every entry.

Failure rules are ``eval run``'s, per entry. A run stopped by its error budget, or one whose samples all failed
(exit 3 for ``eval run``), is reported and the suite goes on with the next entry, then exits 3 after the report. A
model that cannot be reached, refuses the key or is unknown (exit 2) stops the suite at once, as it would stop
every later entry too.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from eval.benchmarks import BY_ID, get_task
from eval.benchmarks.haystackcraft.dynamic import dynamic_items, is_dynamic_config
from eval.code_execution import refuse_code_execution
from eval.count import ConfigCount, CountedRequest, add_up, counted_requests
from eval.release import Release, open_release
from eval.runner import (
    RunSpec,
    default_run_dir,
    over_window,
    sample_key,
)
from eval.selection import SELECTED_COLUMNS, RowSelection
from eval.store import RunDirectory, is_done
from eval.suite_file import (
    DEFAULT_OUTPUT_ROOT,
    MODEL_PLACEHOLDER,
    JudgeSettings,
    Suite,
    SuiteEntry,
)
from eval.task import TaskOptions
from needlework.backends.base import Request
from needlework.errors import NeedleworkError, SpecError
from needlework.tokenizers import load_tokenizer


@dataclass(frozen=True)
class RunOptions:
    """What the command line gives every entry: the model, how it is reached, and the run's failure rules
    (``python -m eval run``'s options of the same names).

    Attributes:
        tokenizer: The evaluated model's tokenizer: it counts the prompts of the preflight (default: each
            release's) and of the window rule (default: the server's tokenize route).
        output_dir: The root of the run directories (default: the suite's ``output_dir``, else ``eval-runs``).
        report_dir: Where the report goes (default: the suite's, else ``<root>/reports/<suite>/<model>``).
        judge_model, judge_base_url, judge_api_key_env: Override every entry's judge (a judge model given here
            also judges entries whose suite names none); ``judge=False`` judges nothing.
    """

    model: str
    backend: str = "openai"
    base_url: str | tuple[str, ...] | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 16
    max_model_len: int | None = None
    tokenizer: str | None = None
    timeout_s: float = 600.0
    max_retries: int = 6
    wait_for_server_s: float = 0.0
    max_error_rate: float = 0.1
    data_parallel_size: int | None = None
    tensor_parallel_size: int = 1
    ray_address: str = ""
    allow_code_execution: bool = False
    output_dir: Path | None = None
    report_dir: Path | None = None
    judge: bool = True
    judge_model: str | None = None
    judge_base_url: str | tuple[str, ...] | None = None
    judge_api_key_env: str | None = None


@dataclass(frozen=True)
class EntryCount:
    """What an entry would send: :class:`eval.count.ConfigCount` per config (rows are samples: a row asked
    ``generations`` times counts that often), the samples already done and those over the model's window.

    ``window_rule`` is what a prompt over the window gets: ``skip``, or ``cut-middle`` (a HaystackCraft paper
    release). ``configs`` is empty for HaystackCraft's dynamic config, whose prompts are retrieved round by round
    (``items`` counts its items; tokens are unknown before the run).
    """

    tokenizer: str
    configs: tuple[ConfigCount, ...] = ()
    done: int | None = 0
    over_window: int | None = None
    items: int = 0
    window_rule: str = "skip"

    @property
    def samples(self) -> int:
        """Samples (or dynamic items) the entry covers."""
        return sum(c.rows for c in self.configs) or self.items

    @property
    def counted(self) -> bool:
        """Whether the prompts were counted (not a dynamic entry)."""
        return bool(self.configs) or not self.items

    def total(self, name: str) -> int:
        """``prompt_tokens`` or ``max_output_tokens`` summed, ``max_prompt_tokens`` as the maximum."""
        values = [getattr(c, name) for c in self.configs]
        return (max(values, default=0) if name == "max_prompt_tokens" else sum(values))

    def cost_usd(self, price_input: float | None, price_output: float | None) -> float | None:
        """Upper-bound cost at USD prices per million tokens (None without prices or counts)."""
        costs = [c.cost_usd(price_input, price_output) for c in self.configs]
        return None if not costs or costs[0] is None else sum(cost or 0.0 for cost in costs)


@dataclass(frozen=True)
class EntryPlan:
    """An entry ready to run: its run spec, release, run directory and judge, and its preflight count."""

    entry: SuiteEntry
    spec: RunSpec
    release: Release
    run_dir: Path
    judge: JudgeSettings | None
    judged_benchmark: bool
    count: EntryCount | None = None


@dataclass(frozen=True)
class EntryOutcome:
    """How an entry's run (and judge) ended."""

    plan: EntryPlan
    new_samples: int = 0
    skipped_done: int = 0
    results: Mapping[str, Any] | None = None
    stopped: str | None = None
    judged: int | None = None


@dataclass(frozen=True)
class SuiteOutcome:
    """Every entry's outcome and the report written."""

    entries: tuple[EntryOutcome, ...]
    report: Any = None
    report_dir: Path | None = None

    @property
    def stopped(self) -> list[EntryOutcome]:
        """The entries whose run stopped (error budget, or every sample failed)."""
        return [e for e in self.entries if e.stopped]


FIELD_OF_OPTION = {"--gen-kwargs": "generation", "--config": "configs", "--generations": "generations",
                   "--limit": "limit", "--over-window": "over_window", "--revision": "revision",
                   "--live-retriever": "live_retriever", "--rag-k": "rag_k", "--reasoning": "reasoning",
                   "--thinking-end": "thinking_end", "--answer-prefix": "answer_prefix",
                   **{f"--{name}": name for name in SELECTED_COLUMNS}}
"""``eval run`` option -> entry field, to name the field of a message the run layer words for the command line."""


_OPTION = re.compile(r"--[a-z][a-z-]*[a-z]")


def field_of(message: str, default: str = "") -> str:
    """The entry field a run-layer message is about (the first ``eval run`` option it names), else ``default``."""
    return next((FIELD_OF_OPTION[o] for o in _OPTION.findall(message) if o in FIELD_OF_OPTION), default)


def entry_error(suite: Suite, entry: SuiteEntry, err: Exception, default: str = "") -> NeedleworkError:
    """``err`` as a :class:`eval.suite_file.SuiteError` naming the suite file, the entry and the field it is about."""
    name = field_of(str(err), default)
    return suite.error(f"{entry.where}.{name}" if name else entry.where, str(err))


def task_options(entry: SuiteEntry, allow_code_execution: bool = False) -> TaskOptions:
    """The entry's :class:`eval.task.TaskOptions`, as ``eval run`` builds them from the same options."""
    return TaskOptions(thinking_end=entry.thinking_end, answer_prefix=entry.answer_prefix,  # type: ignore[arg-type]
                       scoring=entry.scoring, rag_k=entry.rag_k, live_retriever=entry.live_retriever,  # type: ignore[arg-type]
                       allow_code_execution=allow_code_execution, code_timeout_s=entry.code_timeout,
                       reasoning=entry.reasoning)  # type: ignore[arg-type]


def entry_spec(entry: SuiteEntry, options: RunOptions, output_dir: Path | None = None) -> RunSpec:
    """The :class:`eval.runner.RunSpec` of ``python -m eval run`` given the entry's options and the command line's.

    Raises:
        SpecError: Options that contradict each other (``ValueError`` of the task options included).
    """
    try:
        options_of_task = task_options(entry, options.allow_code_execution)
    except ValueError as err:
        raise SpecError(f"--reasoning: {err}" if "reasoning" in str(err) else str(err)) from err
    return RunSpec(
        dataset=entry.dataset, configs=entry.configs, model=options.model, backend=options.backend,  # type: ignore[arg-type]
        revision=entry.revision, split=entry.split, base_url=options.base_url, concurrency=options.concurrency,
        limit=entry.limit, select=RowSelection(**{name: getattr(entry, name) for name in SELECTED_COLUMNS}),
        generation=dict(entry.generation), seed=entry.seed, output_dir=output_dir, max_error_rate=options.max_error_rate,
        timeout_s=options.timeout_s, max_retries=options.max_retries, task_options=options_of_task,
        api_key_env=options.api_key_env, max_model_len=options.max_model_len, wait_for_server_s=options.wait_for_server_s,
        window_tokenizer=options.tokenizer, over_window=entry.over_window, generations=entry.generations,
        data_parallel_size=options.data_parallel_size, tensor_parallel_size=options.tensor_parallel_size,
        ray_address=options.ray_address,
    )


def check_entries(suite: Suite, options: RunOptions) -> list[RunSpec]:
    """Every entry's run spec, built without opening a release: what a suite file can be checked for on its own.

    Raises:
        SuiteError: An entry's options contradict each other or the command line's (naming entry and field).
    """
    specs = []
    for entry in suite.entries:
        if any(is_dynamic_config(c) for c in entry.configs) and len(entry.configs) > 1:
            raise suite.error(f"{entry.where}.configs", "HaystackCraft's dynamic config runs on its own: "
                                                        "give it an entry of its own (and a run_dir)")
        try:
            specs.append(entry_spec(entry, options))
        except SpecError as err:
            raise entry_error(suite, entry, err) from None
    return specs


def output_root(suite: Suite, options: RunOptions) -> Path:
    """The root of the suite's run directories: ``--output-dir``, else the suite's ``output_dir``, else ``eval-runs``."""
    return options.output_dir or suite.output_dir or DEFAULT_OUTPUT_ROOT


def report_dir(suite: Suite, options: RunOptions, plans: Sequence[EntryPlan]) -> Path:
    """Where the suite's report goes: ``--report-dir``, the suite's ``report_dir``, else ``<root>/reports/<suite>/<model>``
    (the model's folder name as in its run directories)."""
    if options.report_dir or suite.report_dir:
        return options.report_dir or suite.report_dir  # type: ignore[return-value]
    return output_root(suite, options) / "reports" / suite.path.stem / _model_folder(plans[0].release, options.model)


def _model_folder(release: Release, model: str) -> str:
    """``model`` as ``eval run``'s default run directory spells it (its last part, for the test split)."""
    return default_run_dir(release, model).name


def entry_run_dir(entry: SuiteEntry, release: Release, root: Path, model: str) -> Path:
    """The entry's run directory: its ``run_dir`` below ``root`` (``{model}`` replaced), else the one ``eval run``
    chooses by default (``<release>/<model>``, ``-<split>`` for another split than test) with ``root`` for ``eval-runs``."""
    if entry.run_dir:
        return root / entry.run_dir.replace(MODEL_PLACEHOLDER, _model_folder(release, model))
    return root / default_run_dir(release, model, entry.split).relative_to(DEFAULT_OUTPUT_ROOT)


def resolve_judge(entry: SuiteEntry, options: RunOptions) -> JudgeSettings | None:
    """The entry's judge with the command line's overrides: ``{model}`` is the evaluated model, and a judge without
    a ``base_url`` is asked at the evaluated model's ``--base-url``."""
    if not options.judge:
        return None
    judge = entry.judge
    if judge is None and options.judge_model is None:
        return None
    judge = judge or JudgeSettings(model=options.judge_model or "")
    judge = replace(judge, model=(options.judge_model or judge.model).replace(MODEL_PLACEHOLDER, options.model))
    if options.judge_base_url is not None:
        judge = replace(judge, base_url=options.judge_base_url)
    if options.judge_api_key_env is not None:
        judge = replace(judge, api_key_env=options.judge_api_key_env)
    if judge.base_url is None and judge.backend == "openai":
        judge = replace(judge, base_url=options.base_url)
    return judge


def plan_suite(suite: Suite, options: RunOptions) -> list[EntryPlan]:
    """Open every entry's release and check what needs it (configs, split, selected values, the code-execution
    consent, the run directories, none shared by two entries), before any request.

    Raises:
        SuiteError: Naming the file, the entry and the field.
    """
    specs = check_entries(suite, options)
    root = output_root(suite, options)
    plans: list[EntryPlan] = []
    by_dir: dict[Path, SuiteEntry] = {}
    for entry, spec in zip(suite.entries, specs):
        try:
            release = open_release(spec.dataset, spec.revision)
        except NeedleworkError as err:
            raise entry_error(suite, entry, err, "dataset") from None
        try:
            for config in spec.configs:
                release.split_info(config, spec.split)
        except NeedleworkError as err:
            raise suite.error(f"{entry.where}.{'configs' if 'no config' in str(err) else 'split'}", str(err)) from None
        try:
            spec.select.check(release, spec.configs, spec.split)
        except NeedleworkError as err:
            raise entry_error(suite, entry, err) from None
        run_dir = entry_run_dir(entry, release, root, options.model)
        key = run_dir.resolve()
        if key in by_dir:
            raise suite.error(f"{entry.where}.run_dir", f"{run_dir} is {by_dir[key].where}'s run directory too; give one "
                                                        "of them a run_dir of its own (e.g. haystackcraft/{model}-dynamic)")
        by_dir[key] = entry
        try:
            RunDirectory(run_dir).check_can_hold_a_run()
        except NeedleworkError as err:
            raise suite.error(f"{entry.where}.run_dir", str(err)) from None
        benchmark = BY_ID.get(release.benchmark)  # an unknown benchmark fails on its task, as eval run fails
        judged = benchmark is not None and benchmark.judge is not None
        plans.append(EntryPlan(entry, replace(spec, output_dir=run_dir), release, run_dir,
                               resolve_judge(entry, options) if judged else None, judged))
    return plans


def count_plans(suite: Suite, plans: Sequence[EntryPlan], options: RunOptions) -> list[EntryPlan]:
    """The plans with their preflight counts (:func:`count_entry`); one tokenizer load per name.

    Raises:
        SuiteError: A release names no tokenizer and none was given, or an entry's tasks run the model's code
            without ``--allow-code-execution``.
    """
    tokenizers: dict[str, Any] = {}
    counted = []
    for plan in plans:
        try:
            counted.append(replace(plan, count=count_entry(plan, options, tokenizers)))
        except NeedleworkError as err:
            raise entry_error(suite, plan.entry, err) from None
    return counted


def count_entry(plan: EntryPlan, options: RunOptions, tokenizers: dict[str, Any] | None = None) -> EntryCount:
    """Count an entry's prompts as ``python -m eval count`` does (:func:`eval.count.count_run`: the rendered messages
    with the tokenizer, plus the chat format's overhead; ``max_tokens`` as the output), per sample, with the samples
    already in its run directory and those whose tokens plus ``max_tokens`` exceed ``--max-model-len``.
    """
    spec, release = plan.spec, plan.release
    name = options.tokenizer or (release.manifest.get("tokenizer") or {}).get("name")
    if any(is_dynamic_config(c) for c in spec.configs):
        items = sum(1 for _ in dynamic_items(release, spec.split, spec.select.where(), spec.limit))
        return EntryCount(tokenizer=str(name or "-"), done=None, items=items)
    if not name:
        raise SpecError(f"{spec.dataset}: the manifest names no tokenizer; pass --tokenizer")
    tokenizers = {} if tokenizers is None else tokenizers
    counter = tokenizers.get(name) or tokenizers.setdefault(name, load_tokenizer(name))
    records = RunDirectory(plan.run_dir).latest_samples()
    done_keys = {key for key, record in records.items() if is_done(record)}
    tasks: set[str] = set()
    seen: Counter[str] = Counter()

    def checked() -> Iterator[CountedRequest]:  # one pass, no prompt kept: a 128K-token prompt is ~0.5 MB
        for task_name, r in counted_requests(spec, release, counter):
            tasks.add(task_name)
            seen["done"] += sample_key(release, r.config, r.row_id, Request("", r.messages, r.settings), spec.model,
                                       r.seed) in done_keys
            seen["over"] += options.max_model_len is not None and r.prompt_tokens + r.output_tokens > options.max_model_len
            yield r

    configs = tuple(add_up(spec.configs, checked()))
    refuse_code_execution((get_task(t, spec.task_options) for t in tasks), spec.task_options.allow_code_execution)
    return EntryCount(tokenizer=name, configs=configs, done=seen["done"],
                      over_window=seen["over"] if options.max_model_len is not None else None,
                      window_rule=over_window(spec, release))


def run_suite(plans: Sequence[EntryPlan], options: RunOptions, report_to: Path, *, progress: bool = True,
              notify: Callable[[str], None] = lambda line: None) -> SuiteOutcome:
    """Run every entry (:func:`eval.dynamic_run.run_any`, as ``eval run``), judge those with a judge, and write one
    report (:func:`eval.report.write_report`) over every run directory that has results, in entry order.

    Raises:
        SuiteStopped: The model or a judge cannot be reached, refuses the key or is unknown (exit 2), or the suite
            was interrupted (exit 130); every finished sample is kept and a re-run resumes.
    """
    from eval.dynamic_run import run_any
    from eval.failures import ErrorBudgetExceeded, RunFailed
    from needlework.backends.base import BackendError, PreflightError

    outcomes: list[EntryOutcome] = []
    for number, plan in enumerate(plans, 1):
        entry = plan.entry
        notify(f"[{number}/{len(plans)}] {entry.label}: {plan.run_dir}")
        try:
            try:
                outcome = run_any(plan.spec, progress=progress)
                done = EntryOutcome(plan, outcome.new_samples, outcome.skipped_done, outcome.results)
            except (ErrorBudgetExceeded, RunFailed) as err:
                done = EntryOutcome(plan, getattr(err, "new_samples", 0), 0, _results(plan.run_dir), stopped=str(err))
            except PreflightError as err:
                raise SuiteStopped(f"{entry.where} ({entry.label}): {err}", done=outcomes) from err
            except BackendError as err:
                raise SuiteStopped(f"{entry.where} ({entry.label}): run stopped: {err}", done=outcomes) from err
            notify("  " + summary_line(done))
            if plan.judge is not None and not done.stopped:
                done = replace(done, judged=_judge(plan, notify))
        except KeyboardInterrupt:
            raise SuiteStopped(f"interrupted during {entry.where} ({entry.label}); re-run the same command to resume",
                               exit_status=130, done=outcomes) from None
        outcomes.append(done)
    from eval.report import write_report

    run_dirs = [o.plan.run_dir for o in outcomes if RunDirectory(o.plan.run_dir).results_file.is_file()]
    files = write_report(run_dirs, report_to) if run_dirs else None
    return SuiteOutcome(tuple(outcomes), files, report_to if files else None)


class SuiteStopped(NeedleworkError, RuntimeError):
    """The suite stopped before its last entry; ``done`` holds the entries that finished first."""

    def __init__(self, message: str, *, exit_status: int = 2, done: Sequence[EntryOutcome] = ()) -> None:
        super().__init__(message)
        self.exit_status = exit_status
        self.done = tuple(done)


def _judge(plan: EntryPlan, notify: Callable[[str], None]) -> int:
    """Judge the entry's answered samples (:func:`eval.judge.judge_run`, resumable); the number of verdicts."""
    from eval.judge import judge_run
    from needlework.backends import backend_for
    from needlework.backends.base import BackendError

    judge = plan.judge
    assert judge is not None
    backend = backend_for(judge.backend, judge.model, base_url=judge.base_url, api_key_env=judge.api_key_env,
                          concurrency=judge.concurrency)
    try:
        verdicts = judge_run(plan.run_dir, backend, generation=dict(judge.generation) or None, release=plan.release,
                             judge_model=judge.model)
    except BackendError as err:
        raise SuiteStopped(f"{plan.entry.where} ({plan.entry.label}): judge {judge.model}: {err}") from err
    notify(f"  judged by {judge.model}: {len(verdicts)} verdicts ({RunDirectory(plan.run_dir).judge_file})")
    return len(verdicts)


def _results(run_dir: Path) -> dict[str, Any] | None:
    directory = RunDirectory(run_dir)
    return directory.read_results() if directory.results_file.is_file() else None


def summary_line(outcome: EntryOutcome) -> str:
    """``score 41.7% over 12 samples (0 errors); 12 new, 0 already done``, and why a run stopped."""
    results = outcome.results or {}
    overall = (results.get("scores") or {}).get("overall") or {}
    score = overall.get("score")
    shown = "-" if score is None else f"{100 * score:.1f}%"
    line = (f"score {shown} over {overall.get('n', 0)} samples ({overall.get('n_errors', 0)} errors); "
            f"{outcome.new_samples} new, {outcome.skipped_done} already done")
    return line + (f"; stopped: {outcome.stopped}" if outcome.stopped else "")


def command_line(plan: EntryPlan, options: RunOptions) -> str:
    """The ``python -m eval run`` command that runs the entry as the suite does (same run directory and samples)."""
    entry = plan.entry
    args = ["python", "-m", "eval", "run", "--dataset", entry.dataset]
    args += ["--revision", entry.revision] if entry.revision else []
    args += ["--config", ",".join(entry.configs)]
    args += ["--split", entry.split] if entry.split != "test" else []
    for name in SELECTED_COLUMNS:
        values = getattr(entry, name)
        args += [f"--{name}", ",".join(map(str, values))] if values else []
    args += ["--limit", str(entry.limit)] if entry.limit else []
    if entry.generation:
        args += ["--gen-kwargs", ",".join(f"{k}={json.dumps(v)}" for k, v in entry.generation.items())]
    defaults = SuiteEntry(0, "", ("x",))
    for name, option in (("seed", "--seed"), ("generations", "--generations"), ("reasoning", "--reasoning"),
                         ("answer_prefix", "--answer-prefix"), ("scoring", "--scoring"), ("rag_k", "--rag-k"),
                         ("live_retriever", "--live-retriever"), ("code_timeout", "--code-timeout"),
                         ("over_window", "--over-window")):
        if getattr(entry, name) != getattr(defaults, name):
            args += [option, str(getattr(entry, name))]
    if entry.thinking_end != defaults.thinking_end:
        args += ["--thinking-end", entry.thinking_end or ""]
    args += ["--model", options.model]
    args += ["--backend", options.backend] if options.backend != "openai" else []
    urls = [options.base_url] if isinstance(options.base_url, str) else list(options.base_url or ())
    for url in urls:
        args += ["--base-url", url]
    args += ["--output-dir", str(plan.run_dir)]
    return " ".join(shlex.quote(a) for a in args)


__all__ = ["EntryCount", "EntryOutcome", "EntryPlan", "RunOptions", "SuiteOutcome", "SuiteStopped", "check_entries",
           "command_line", "count_entry", "count_plans", "entry_spec", "field_of", "plan_suite", "report_dir", "run_suite"]
