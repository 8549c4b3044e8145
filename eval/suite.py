"""``python -m eval suite SUITE.yaml``: one model over every entry of a suite file, then one report.

Parses options and calls :mod:`eval.suite_run` (which a test can call too); the suite file is read by
:mod:`eval.suite_file`. Both are imported when the command runs, so ``python -m eval --help`` loads neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from eval.cli_options import (
    backend_options,
    base_urls,
    failure_options,
    retry_options,
    vllm_options,
)
from needlework.cliutil import TokenCount, UserError, domain_errors
from needlework.lengths import TOKENS_HELP

DRY_RUN_URL = "URL"
"""The base URL a dry run without ``--base-url`` builds its runs with (nothing is sent)."""


@click.command("suite")
@click.argument("suite_file", type=click.Path(path_type=Path))
@backend_options("Model name sent to the server, or the HF model for vLLM; one model per suite run.",
                 "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
@click.option("--max-model-len", type=TokenCount(minimum=1), default=None,
              help="The model's window in tokens: the preflight counts the samples over it, and runs skip (or cut) them "
                   "as eval run does. " + TOKENS_HELP)
@click.option("--tokenizer", default=None,
              help="The evaluated model's tokenizer: counts the preflight's prompts (default: each release's) and the "
                   "window rule's (default: the server's tokenize route).")
@vllm_options()
@retry_options()
@failure_options("Per entry, as eval run: its run stops (and the suite goes on to the next entry, then exits 3)")
@click.option("--output-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Root of the run directories (default: the suite's output_dir, else eval-runs, as eval run).")
@click.option("--report-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where the report goes (default: the suite's report_dir, else <root>/reports/<suite>/<model>).")
@click.option("--price-input", type=click.FloatRange(min=0.0), default=None, help="USD per million prompt tokens.")
@click.option("--price-output", type=click.FloatRange(min=0.0), default=None, help="USD per million output tokens.")
@click.option("--dry-run", is_flag=True, default=False,
              help="Count every prompt, print the totals and each entry's eval run command, and stop (no request).")
@click.option("--judge-model", default=None,
              help="Judge every entry whose benchmark has an LLM judge with this model (default: the suite's judge).")
@click.option("--judge-base-url", multiple=True, callback=base_urls, help="The judge's endpoint (default: the suite's, else --base-url).")
@click.option("--judge-api-key-env", default=None, help="Environment variable holding the judge's API key.")
@click.option("--no-judge", is_flag=True, default=False, help="Judge nothing (a later run with a judge judges then).")
@click.option("--allow-code-execution", is_flag=True, default=False,
              help="Let tasks that score by running the model's code (RULERv2 --mk-base mbpp) run it (as eval run).")
@click.option("--progress/--no-progress", default=True)
@domain_errors
def suite_command(suite_file: Path, model: str, backend: str, base_url: str | tuple[str, ...] | None, api_key_env: str,
                  concurrency: int, max_model_len: int | None, tokenizer: str | None, data_parallel_size: int | None,
                  tensor_parallel_size: int, ray_address: str, timeout_s: float, max_retries: int,
                  wait_for_server_s: float, max_error_rate: float, output_dir: Path | None, report_dir: Path | None,
                  price_input: float | None, price_output: float | None, dry_run: bool, judge_model: str | None,
                  judge_base_url: str | tuple[str, ...] | None, judge_api_key_env: str | None, no_judge: bool,
                  allow_code_execution: bool, progress: bool) -> None:
    """Run one model over a suite file's releases and configs: count every prompt, run each entry as eval run
    would (same run directories, resuming), judge where a benchmark has a judge, and write one report.

    Re-running the same command resumes where it stopped. See docs/guides/suites.md for the file's fields.
    """
    from eval import suite_run
    from eval.suite_file import load_suite

    suite = load_suite(suite_file)
    if backend == "openai" and not base_url and not dry_run:
        raise UserError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    options = suite_run.RunOptions(
        model=model, backend=backend, base_url=base_url or (DRY_RUN_URL if backend == "openai" else None),
        api_key_env=api_key_env, concurrency=concurrency, max_model_len=max_model_len, tokenizer=tokenizer,
        timeout_s=timeout_s, max_retries=max_retries, wait_for_server_s=wait_for_server_s, max_error_rate=max_error_rate,
        data_parallel_size=data_parallel_size, tensor_parallel_size=tensor_parallel_size, ray_address=ray_address,
        allow_code_execution=allow_code_execution, output_dir=output_dir, report_dir=report_dir, judge=not no_judge,
        judge_model=judge_model, judge_base_url=judge_base_url, judge_api_key_env=judge_api_key_env)
    plans = suite_run.count_plans(suite, suite_run.plan_suite(suite, options), options)
    report_to = suite_run.report_dir(suite, options, plans)
    click.echo(f"suite {suite.path}: {len(plans)} entries, model {model}; report: {report_to}")
    for line in totals_table(plans, max_model_len, price_input, price_output):
        click.echo(line)
    if dry_run:
        click.echo("each entry is this eval run command:")
        for plan in plans:
            click.echo(f"  {plan.entry.where}: {suite_run.command_line(plan, options)}")
        return
    try:
        outcome = suite_run.run_suite(plans, options, report_to, progress=progress, notify=click.echo)
    except suite_run.SuiteStopped as err:
        raise _exit(str(err), err.exit_status) from err
    new = sum(o.new_samples for o in outcome.entries)
    click.echo(f"{new} new samples, {sum(o.skipped_done for o in outcome.entries)} already done")
    if outcome.report is not None:
        click.echo(f"report: {outcome.report.html or outcome.report.markdown}"
                   + (f" (and {outcome.report.markdown.name})" if outcome.report.html else ""))
    if outcome.stopped:
        raise _exit(f"{len(outcome.stopped)} of {len(outcome.entries)} entries stopped: "
                    + "; ".join(f"{o.plan.entry.where} ({o.plan.entry.label}): {o.stopped}" for o in outcome.stopped), 3)


def _exit(message: str, status: int) -> UserError:
    error = UserError(message)
    error.exit_code = status
    return error


def totals_table(plans: Any, max_model_len: int | None, price_input: float | None, price_output: float | None) -> list[str]:
    """The preflight's table: per entry and in total, samples, those already done, prompt tokens, the longest
    prompt, the output ceiling, the samples over the window (``cut`` where the release cuts them instead of
    skipping) and the cost; then who judges."""
    window = f"{max_model_len:,} tokens" if max_model_len else "unknown (give --max-model-len to count what is over it)"
    lines = [f"prompts counted as eval count counts them (the chat format's overhead included); model window: {window}",
             _row("entry", "samples", "done", "prompt tokens", "longest", "max output", "over window", "cost USD",
                  "tokenizer")]
    counted = [plan for plan in plans if plan.count.counted]
    for plan in plans:
        count, label = plan.count, f"[{plan.entry.index}] {plan.entry.label}"
        if not count.counted:
            lines.append(_row(label, f"{count.samples:,}", *"-" * 6, "(dynamic: retrieved round by round, not counted)"))
            continue
        over = "-" if count.over_window is None else f"{count.over_window:,}" + (
            " cut" if count.window_rule == "cut-middle" else "")
        lines.append(_row(label, f"{count.samples:,}", f"{count.done:,}", f"{count.total('prompt_tokens'):,}",
                          f"{count.total('max_prompt_tokens'):,}", f"{count.total('max_output_tokens'):,}", over,
                          _cost(count.cost_usd(price_input, price_output)), count.tokenizer))
    costs = [plan.count.cost_usd(price_input, price_output) for plan in counted]
    lines.append(_row("total" + (" (counted entries)" if len(counted) < len(plans) else ""),
                      f"{sum(p.count.samples for p in counted):,}", f"{sum(p.count.done for p in counted):,}",
                      f"{sum(p.count.total('prompt_tokens') for p in counted):,}",
                      f"{max((p.count.total('max_prompt_tokens') for p in counted), default=0):,}",
                      f"{sum(p.count.total('max_output_tokens') for p in counted):,}",
                      "-" if max_model_len is None else f"{sum(p.count.over_window or 0 for p in counted):,}",
                      _cost(None if not costs or costs[0] is None else sum(c or 0.0 for c in costs)), ""))
    for plan in plans:
        if plan.judged_benchmark:
            judge = plan.judge
            who = ("not judged: no judge model (set judge: in the suite, or --judge-model)" if judge is None else
                   f"judged by {judge.model}" + (f" at {judge.base_url}" if isinstance(judge.base_url, str) else ""))
            lines.append(f"[{plan.entry.index}] {plan.entry.label}: {who}")
    return lines


def _row(label: str, *cells: str) -> str:
    """One line of the table: the label cut to 33 characters, then right-aligned columns, then the tokenizer."""
    label = label if len(label) <= 33 else label[:32] + "…"
    widths = (8, 8, 15, 9, 12, 13, 10)
    return (f"{label:<34}" + "".join(f"{cell:>{width}}" for cell, width in zip(cells, widths)) + f"  {cells[-1]}").rstrip()


def _cost(cost: float | None) -> str:
    return "-" if cost is None else f"{cost:.2f}"


__all__ = ["suite_command", "totals_table"]
