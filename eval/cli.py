"""``python -m eval``: run, score, report and count. Parses options and calls functions tests call too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from eval.cli_options import (
    backend_options,
    failure_options,
    retry_options,
    vllm_options,
)
from eval.code_execution import DEFAULT_TIMEOUT_S
from eval.store import JUDGE, RESULTS, RunDirectory
from eval.task import (
    ANSWER_PREFIXES,
    REASONING_MODES,
    SCORINGS,
    TaskOptions,
    live_retriever_problem,
)
from generators.embs.spec import SCALE_HELP, scale_label
from generators.sequential_niah.spec import BUCKETS_HELP
from needlework import __version__
from needlework.backends.base import OVER_WINDOW, BackendError, PreflightError
from needlework.cliutil import (
    OneLineErrors,
    TokenCount,
    UserError,
    domain_errors,
    option_name,
    token_list,
)
from needlework.errors import SpecError
from needlework.lengths import TOKENS_HELP

_KEY_START = re.compile(r",(?=\s*[A-Za-z_][A-Za-z0-9_.]*\s*=)")


def parse_gen_kwargs(text: str | None) -> dict[str, Any]:
    """``temperature=0,max_tokens=256,stop=["\\n"]`` -> a dict; values are JSON when they parse.

    Splits only at commas followed by ``name=``, so JSON lists keep their commas.
    """
    if not text:
        return {}
    settings: dict[str, Any] = {}
    for part in _KEY_START.split(text):
        name, sep, raw = part.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"expected name=value, got {part!r}", param_hint="--gen-kwargs")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw.strip()
        settings[name.strip()] = value
    return settings


def _configs(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.strip() for value in values for c in value.split(",") if c.strip()))


def _buckets(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name.lower() for name in _configs(_ctx, _param, values)))


def _scales(_ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    try:
        return tuple(dict.fromkeys(scale_label(label) for label in _configs(_ctx, param, values)))
    except SpecError as err:
        raise UserError(f"{option_name(param)}: {err}") from None


def _live_retriever(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    problem = live_retriever_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


def _dataset_options(fn):
    for option in reversed([
        click.option("--dataset", required=True, help="A release folder or a Hub dataset id (owner/name)."),
        click.option("--revision", default=None, help="Hub revision (branch, tag or commit); pinned to its commit."),
        click.option("--config", "configs", multiple=True, required=True, callback=_configs,
                     help="Config(s) to run; repeat or comma-separate."),
        click.option("--split", default="test", show_default=True),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="Only the first N rows of each config (the run is marked not reportable)."),
        click.option("--lengths", multiple=True, callback=token_list, metavar="TOKENS",
                     help="Only rows with these target_tokens, e.g. 4096,8192 or 4ki,8ki (RULERv2, NeedleBench); "
                          "the run is marked not reportable. " + TOKENS_HELP),
        click.option("--sizes", multiple=True, callback=token_list, metavar="TOKENS",
                     help="Only rows with these haystack sizes, e.g. 8k,16k (HaystackCraft); the run is marked not "
                          "reportable. " + TOKENS_HELP),
        click.option("--buckets", multiple=True, callback=_buckets, metavar="NAMES",
                     help="Only rows in these length buckets, e.g. 4k-7k (Sequential-NIAH); "
                          "the run is marked not reportable. " + BUCKETS_HELP),
        click.option("--scales", multiple=True, callback=_scales, metavar="LABELS",
                     help="Only rows of these ladder scales, e.g. 64K,30M (EverMemBench-S rankings); "
                          "the run is marked not reportable. " + SCALE_HELP.replace("--decimal", "the build's --decimal")),
        click.option("--retrievers", multiple=True, callback=_configs, metavar="NAMES",
                     help="Only the rankings of these retrievers, e.g. bm25 (EverMemBench-S RAG); "
                          "the run is marked not reportable."),
        click.option("--tasks", multiple=True, callback=_configs, metavar="NAMES",
                     help="Only rows of these tasks, e.g. qa (EverMemBench-S: localize, qa); "
                          "the run is marked not reportable."),
        click.option("--rag-k", type=click.IntRange(min=1), default=10, show_default=True,
                     help="EverMemBench-S rankings (RAG): the retriever's top documents put in the prompt."),
        click.option("--live-retriever", default="", callback=_live_retriever, metavar="NAME",
                     help="EverMemBench-S rankings (RAG) ranked now instead of read from the release: bm25, dense, or "
                          "dense:<sentence-transformers model> (the dense extra)."),
        click.option("--gen-kwargs", default=None,
                     help="Generation settings, e.g. temperature=0,max_tokens=256 (default max_tokens: the row's reserve)."),
        click.option("--seed", type=int, default=0, show_default=True, help="Sent to the model and part of each sample key."),
        click.option("--thinking-end", default="</think>", show_default=True,
                     help="Answer = text after the last occurrence of this marker; '' keeps everything."),
        click.option("--reasoning", type=click.Choice(REASONING_MODES), default="auto",
                     show_default=True,
                     help="auto: each benchmark's official reading (NeedleBench: the whole response; the others: the "
                          "text after --thinking-end, or all of it without the marker); required: a response without "
                          "the marker never finished thinking and scores 0 (NeMo-Skills' reasoning mode); remove: "
                          "OpenCompass's reasoning remover (every <think>...</think> block cut out)."),
        click.option("--answer-prefix", type=click.Choice(ANSWER_PREFIXES), default="user",
                     show_default=True, help="Answer prefix at the end of the user turn, as a prefill, or dropped."),
        click.option("--scoring", type=click.Choice(SCORINGS), default="official", show_default=True,
                     help="Read and score answers as the benchmark's official code does (RULERv2: NeMo-Skills; NeedleBench: "
                          "OpenCompass v2; HaystackCraft: Graph-COM utils/llm.py), or needlework's lenient reading (not "
                          "comparable with the papers)."),
    ]):
        fn = option(fn)
    return fn


def task_options(**options: Any) -> TaskOptions:
    """The run's :class:`TaskOptions`; options that contradict each other (``--reasoning required`` with
    ``--thinking-end ''``) are a usage error naming them, not a traceback."""
    try:
        return TaskOptions(**options)
    except ValueError as err:
        raise click.UsageError(str(err)) from err


def _code_execution_options(fn):
    """``--allow-code-execution`` and ``--code-timeout`` (``run`` and ``score``): scoring that runs the model's code."""
    fn = click.option("--code-timeout", "code_timeout_s", type=click.FloatRange(min=0.1), default=None, metavar="SECONDS",
                      help="Seconds one solution and its tests may run (default 5; score: the run's).")(fn)
    return click.option("--allow-code-execution", is_flag=True, default=False,
                        help="Let tasks that score by running the model's code (RULERv2 --mk-base mbpp) run it, in a "
                             "separate Python process with a timeout and resource limits (not a security sandbox).")(fn)


@click.group(cls=OneLineErrors)
@click.version_option(version=__version__, message="needlework eval %(version)s")
def main() -> None:
    """Evaluate models on needlework releases."""


@main.command("run")
@_dataset_options
@backend_options("Model name sent to the server, or the HF model for vLLM.",
                  "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
@click.option("--max-model-len", type=TokenCount(minimum=1), default=None,
              help="The model's window in tokens: prompts over it are skipped (or cut, --over-window) (default: vllm "
                   "reads the model's config; openai asks the server where it says, else does not check). "
                   + TOKENS_HELP)
@click.option("--tokenizer", "window_tokenizer", default=None,
              help="openai: the evaluated model's tokenizer counting prompts for the window (default: the server's "
                   "tokenize route where it has one).")
@click.option("--over-window", type=click.Choice(OVER_WINDOW), default=None,
              help="A prompt over the window: skip it (scored 0), or cut-middle: keep the first and last halves of the "
                   "tokens that fit, as HaystackCraft's authors do (needs --tokenizer). Default: the release's preset "
                   "(HaystackCraft --preset paper: cut-middle), else skip.")
@vllm_options()
@retry_options()
@failure_options("Stop cleanly (exit 3)", " A run whose samples all failed exits 3 whatever its size.")
@click.option("--output-dir", type=click.Path(path_type=Path), default=None,
              help="Run directory (default eval-runs/<release>/<model>, with -<split> for splits other than test); re-running resumes it.")
@click.option("--generations", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Ask every row K times (seeds seed..seed+K-1; set a temperature above 0 with --gen-kwargs): results "
                   "add the mean, maximum and majority over 1..K responses (RULERv2 D.3).")
@click.option("--progress/--no-progress", default=True)
@_code_execution_options
@domain_errors
def run_command(dataset: str, revision: str | None, configs: tuple[str, ...], split: str, limit: int | None,
                lengths: tuple[int, ...], sizes: tuple[int, ...], buckets: tuple[str, ...], scales: tuple[str, ...],
                retrievers: tuple[str, ...], tasks: tuple[str, ...], rag_k: int, live_retriever: str,
                gen_kwargs: str | None, seed: int, thinking_end: str, reasoning: str, answer_prefix: str, scoring: str,
                backend: str, model: str, base_url: str | tuple[str, ...] | None,
                api_key_env: str, concurrency: int, timeout_s: float, max_retries: int, wait_for_server_s: float,
                max_model_len: int | None, window_tokenizer: str | None, over_window: str | None,
                data_parallel_size: int | None, tensor_parallel_size: int, ray_address: str, max_error_rate: float,
                output_dir: Path | None, generations: int, progress: bool, allow_code_execution: bool,
                code_timeout_s: float | None) -> None:
    """Run a model over release splits; re-running the same command resumes."""
    from eval.dynamic_run import run_any
    from eval.runner import RunSpec
    from eval.selection import RowSelection

    spec = RunSpec(
        dataset=dataset, configs=configs, model=model, backend=backend, revision=revision,  # type: ignore[arg-type]
        split=split, base_url=base_url, concurrency=concurrency, limit=limit,
        select=RowSelection(lengths, sizes, buckets, scales, retrievers, tasks), generation=parse_gen_kwargs(gen_kwargs),
        seed=seed, output_dir=output_dir, max_error_rate=max_error_rate, timeout_s=timeout_s,
        max_retries=max_retries, task_options=task_options(
            thinking_end=thinking_end or None, answer_prefix=answer_prefix, scoring=scoring, rag_k=rag_k,
            live_retriever=live_retriever, allow_code_execution=allow_code_execution,
            code_timeout_s=code_timeout_s or DEFAULT_TIMEOUT_S, reasoning=reasoning),
        api_key_env=api_key_env, max_model_len=max_model_len, wait_for_server_s=wait_for_server_s,
        window_tokenizer=window_tokenizer, over_window=over_window, generations=generations,
        data_parallel_size=data_parallel_size, tensor_parallel_size=tensor_parallel_size, ray_address=ray_address,
    )
    try:
        outcome = run_any(spec, progress=progress)  # HaystackCraft's dynamic config runs round by round
    except PreflightError as err:
        raise UserError(str(err)) from err
    except BackendError as err:
        raise UserError(f"run stopped: {err}") from err
    _echo_summary(outcome.run_dir, outcome.results)
    click.echo(f"{outcome.new_samples} new samples, {outcome.skipped_done} already done")


@main.command("score", help=f"Re-score runs from their saved samples alone and rewrite {RESULTS}.")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False))
@_code_execution_options
@domain_errors
def score_command(run_dirs: tuple[Path, ...], allow_code_execution: bool, code_timeout_s: float | None) -> None:
    from eval.runner import score_run

    for run_dir in run_dirs:
        _echo_summary(run_dir, score_run(run_dir, allow_code_execution=allow_code_execution, code_timeout_s=code_timeout_s))


@main.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where to write report.md, report.html and the plots (default: the first run directory).")
@domain_errors
def report_command(run_dirs: tuple[Path, ...], out_dir: Path | None) -> None:
    """Write report.html (leaderboard, tables, plots and a sample browser; one offline file), a Markdown summary
    and PNG plots for one or several runs."""
    from eval.report import write_report

    files = write_report(list(run_dirs), out_dir or run_dirs[0])
    if files.html is not None:
        click.echo(str(files.html))
    click.echo(str(files.markdown))
    for plot in files.plots:
        click.echo(str(plot))


@main.command("judge", help="Judge the answers of finished runs with an LLM, by the rubric of the run's benchmark "
                           "(Sequential-NIAH: the paper's judge prompts; EverMemBench-S: Figure 6's 0-5 score of "
                           f"embs/qa answers); verdicts are kept in {JUDGE} and a re-run resumes.")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False))
@backend_options("The judge model (Sequential-NIAH's paper fine-tunes Qwen2.5-7B-Instruct; EverMemBench-S's uses Grok-4).",
                  "OpenAI-compatible endpoint of the judge.")
@click.option("--gen-kwargs", default=None, help="Judge generation settings (default temperature=0).")
@domain_errors
def judge_command(run_dirs: tuple[Path, ...], backend: str, model: str, base_url: str | tuple[str, ...] | None, api_key_env: str,
                  concurrency: int, gen_kwargs: str | None) -> None:
    from eval.judge import judge_run, judged_benchmark
    from needlework.backends import backend_for

    generation = parse_gen_kwargs(gen_kwargs) or None
    for run_dir in run_dirs:
        directory = RunDirectory(run_dir)
        judged_benchmark(directory.read_run(), run_dir)  # fails before a backend is made
        judge = backend_for(backend, model, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency)
        verdicts = judge_run(run_dir, judge, generation=generation, judge_model=model)
        scores = [v.score for v in verdicts.values() if v.score is not None]
        correct = sum(score == 1.0 for score in scores)
        unparsed = sum(v.value is None for v in verdicts.values())
        mean = f", mean score {sum(scores) / len(scores):.3f} of 1" if scores else ""
        click.echo(f"{run_dir}: {len(verdicts)} judged, {correct} correct (full marks){mean}"
                   + (f", {unparsed} without a verdict" if unparsed else "") + f" ({directory.judge_file})")


@main.command("judge-accuracy", help="Measure a judge model on a Sequential-NIAH release's labelled candidates "
                                      "(judge-test): accuracy by candidate type in the layout of the paper's Tables 4 "
                                      "and 6, printed and written to the run directory; re-running resumes.")
@click.option("--dataset", required=True, help="A Sequential-NIAH release folder or Hub dataset id.")
@click.option("--revision", default=None, help="Hub revision (branch, tag or commit).")
@click.option("--config", default="judge-test", show_default=True, help="The judge config to measure on.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N candidates (not reportable).")
@backend_options("The judge model.", "OpenAI-compatible endpoint of the judge.")
@click.option("--gen-kwargs", default=None, help="Judge generation settings (default temperature=0).")
@retry_options()
@click.option("--output-dir", type=click.Path(path_type=Path), default=None,
              help="Run directory (default eval-runs/<release>/<model>-<config>).")
@click.option("--progress/--no-progress", default=True)
@domain_errors
def judge_accuracy_command(dataset: str, revision: str | None, config: str, limit: int | None, backend: str, model: str,
                           base_url: str | tuple[str, ...] | None, api_key_env: str, concurrency: int, gen_kwargs: str | None,
                           timeout_s: float, max_retries: int, output_dir: Path | None, progress: bool) -> None:
    from eval.judge_accuracy import judge_accuracy
    from eval.runner import RunSpec

    spec = RunSpec(dataset=dataset, configs=(config,), model=model, backend=backend, revision=revision,  # type: ignore[arg-type]
                   split=config.removeprefix("judge-"), base_url=base_url, concurrency=concurrency, limit=limit,
                   generation=parse_gen_kwargs(gen_kwargs), output_dir=output_dir, timeout_s=timeout_s,
                   max_retries=max_retries, api_key_env=api_key_env)
    try:
        outcome = judge_accuracy(spec, progress=progress)
    except PreflightError as err:
        raise UserError(str(err)) from err
    except BackendError as err:
        raise UserError(f"judge accuracy stopped: {err}") from err
    click.echo(outcome.text)
    click.echo(f"{RunDirectory(outcome.run_dir).results_file}\n{outcome.report}")


@main.command("count")
@_dataset_options
@click.option("--tokenizer", default=None, help="Tokenizer to count with (default: the release's).")
@click.option("--price-input", type=click.FloatRange(min=0.0), default=None, help="USD per million prompt tokens.")
@click.option("--price-output", type=click.FloatRange(min=0.0), default=None, help="USD per million output tokens.")
@domain_errors
def count_command(dataset: str, revision: str | None, configs: tuple[str, ...], split: str, limit: int | None,
                  lengths: tuple[int, ...], sizes: tuple[int, ...], buckets: tuple[str, ...], scales: tuple[str, ...],
                  retrievers: tuple[str, ...], tasks: tuple[str, ...], rag_k: int, live_retriever: str,
                  gen_kwargs: str | None, seed: int,
                  thinking_end: str, reasoning: str, answer_prefix: str, scoring: str, tokenizer: str | None,
                  price_input: float | None, price_output: float | None) -> None:
    """Dry run: prompt tokens (and cost, given prices) of a run, without calling a model."""
    from eval.count import CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_PER_PROMPT, count_run
    from eval.runner import RunSpec
    from eval.selection import RowSelection

    spec = RunSpec(dataset=dataset, configs=configs, model="(count)", backend="vllm", revision=revision, split=split,
                   limit=limit, select=RowSelection(lengths, sizes, buckets, scales, retrievers, tasks),
                   generation=parse_gen_kwargs(gen_kwargs), seed=seed,
                   task_options=task_options(thinking_end=thinking_end or None, answer_prefix=answer_prefix,
                                            scoring=scoring, rag_k=rag_k, live_retriever=live_retriever,
                                            reasoning=reasoning))
    name, counts = count_run(spec, tokenizer)
    click.echo(f"tokenizer: {name} (+{CHAT_TOKENS_PER_PROMPT} tokens per prompt and {CHAT_TOKENS_PER_MESSAGE} "
               "per message for the chat format)")
    click.echo(f"{'config':<24}{'rows':>8}{'prompt tokens':>16}{'longest':>10}{'max output':>12}{'cost USD':>12}")
    total_cost = None
    for c in counts:
        cost = c.cost_usd(price_input, price_output)
        total_cost = cost if total_cost is None else total_cost + (cost or 0.0)
        click.echo(f"{c.config:<24}{c.rows:>8}{c.prompt_tokens:>16,}{c.max_prompt_tokens:>10,}{c.max_output_tokens:>12,}"
                   f"{'-' if cost is None else f'{cost:.2f}':>12}")
    if len(counts) > 1:
        click.echo(f"{'total':<24}{sum(c.rows for c in counts):>8}{sum(c.prompt_tokens for c in counts):>16,}"
                   f"{max(c.max_prompt_tokens for c in counts):>10,}{sum(c.max_output_tokens for c in counts):>12,}"
                   f"{'-' if total_cost is None else f'{total_cost:.2f}':>12}")


def _percent(score: float | None) -> str:
    """A 0-1 score as the reports print it: a percentage with its unit, ``-`` for none."""
    return "-" if score is None else f"{100 * score:.1f}%"


def _echo_summary(run_dir: Path, results: dict[str, Any]) -> None:
    overall = results["scores"]["overall"]
    click.echo(f"{RunDirectory(run_dir).results_file}: score {_percent(overall.get('score'))} "
               f"over {overall['n']} samples ({overall['n_errors']} errors)"
               + ("" if results["reportable"] else f"; not reportable: {'; '.join(results['not_reportable_because'])}"))
    for config, stats in results["scores"]["by"].get("config", {}).items():
        click.echo(f"  {config}: {_percent(stats.get('score'))} (n={stats['n']})")
    width = results.get("width")
    if width:
        for name in ("average", "maximum", "majority"):
            click.echo(f"  {name} over 1..{width['k'][-1]} responses: "
                       + ", ".join(_percent(v) for v in width[name]))
    for warning in results.get("warnings", []):
        click.echo(f"  warning: {warning}")


# the suite command lives in its own module (it shares eval.cli_options), registered last
from eval.suite import suite_command

main.add_command(suite_command)
