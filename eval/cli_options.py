"""The command-line options that reach a model, shared by ``eval run``, ``judge``, ``judge-accuracy`` and ``suite``.

One definition per option, so that the commands cannot drift apart in names, defaults or checks. Each
function returns a decorator that adds its options in the order ``--help`` lists them. This module
imports only click and the ground floor, so every command module can import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from eval.failures import MIN_SAMPLES_FOR_ERROR_BUDGET
from needlework.backends import BACKENDS

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

MAX_ERROR_RATE_HELP = (f"checked from {MIN_SAMPLES_FOR_ERROR_BUDGET} finished samples on; prompts over the model's "
                       "window do not count.")
"""How the error budget is checked (the end of every ``--max-error-rate`` help)."""


def base_urls(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> str | tuple[str, ...] | None:
    """One ``--base-url`` as itself, several as a tuple (a pool of endpoints), none as None."""
    return (values[0] if len(values) == 1 else values) if values else None


def _all(options: list[Decorator]) -> Decorator:
    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            fn = option(fn)
        return fn
    return apply


def backend_options(model_help: str, base_url_help: str) -> Decorator:
    """Backend, model, endpoint(s), API key variable and concurrency."""
    return _all([
        click.option("--backend", type=click.Choice(list(BACKENDS)), default="openai", show_default=True),
        click.option("--model", required=True, help=model_help),
        click.option("--base-url", multiple=True, callback=base_urls,
                     help=base_url_help + " Repeat it to spread requests over several servers of the model "
                                          "(--concurrency each), failing over when one dies."),
        click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
                     help="Environment variable holding the API key (never written anywhere)."),
        click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True),
    ])


def vllm_options() -> Decorator:
    """How the vllm backend spreads over GPUs and machines."""
    return _all([
        click.option("--data-parallel-size", type=click.IntRange(min=1), default=None, metavar="N",
                     help="vllm: run N engine replicas (each --tensor-parallel-size GPUs) through Ray Data's LLM batch "
                          "processor, on the same token ids and settings (default: one engine in this process, no Ray)."),
        click.option("--tensor-parallel-size", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
                     help="vllm: GPUs per engine (vLLM tensor parallelism)."),
        click.option("--ray-address", default="", metavar="ADDRESS",
                     help="vllm --data-parallel-size: the Ray cluster to join (auto, HEAD_IP:6379 or "
                          "ray://HEAD_IP:10001); default: $RAY_ADDRESS, else a new local cluster."),
    ])


def retry_options() -> Decorator:
    """Seconds per request attempt and retries of a failed request."""
    return _all([
        click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.1), default=600.0, show_default=True,
                     help="Seconds per request attempt."),
        click.option("--max-retries", type=click.IntRange(min=0), default=6, show_default=True),
    ])


def failure_options(stops: str, after: str = "") -> Decorator:
    """How long to wait for a server that is starting, and the error budget: ``stops`` says what stops when it is
    spent, :data:`MAX_ERROR_RATE_HELP` how it is checked, ``after`` anything the command adds."""
    return _all([
        click.option("--wait-for-server", "wait_for_server_s", type=click.FloatRange(min=0.0), default=0.0,
                     show_default=True, metavar="SECONDS",
                     help="Keep trying a server that cannot be reached yet (one just started) for this long "
                          "before giving up; 0 gives up at once."),
        click.option("--max-error-rate", type=click.FloatRange(0.0, 1.0), default=0.1, show_default=True,
                     help=f"{stops} once more than this fraction of samples failed, {MAX_ERROR_RATE_HELP}{after}"),
    ])
