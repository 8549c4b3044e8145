"""The ``needlework`` command: parses options and calls builder functions that tests call too.

``needlework build <benchmark>`` is generated from each registered builder's spec
(:mod:`builders.options`); ``build demo``, ``validate``, ``push`` and ``info`` work on any release.

The command answers at once: it imports the light build specs (:mod:`builders.specs`) to know its
options, and each subcommand imports the modules that do its work (pyarrow, polars, the
retrievers ...) only when it runs, so ``--help`` and ``--version`` load none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from builders.options import click_options, spec_from_options
from builders.registry import IDS, Registered, registered
from needlework import __version__
from needlework.cliutil import OneLineErrors, domain_errors, interruptible
from needlework.releases import check_release_folder
from needlework.tokenizers import DEFAULT_TOKENIZER


@click.group(cls=OneLineErrors)
@click.version_option(version=__version__, message="needlework %(version)s")
def main() -> None:
    """Build long-context needle-in-a-haystack benchmarks as Hugging Face datasets."""


class _BuildGroup(click.Group):
    """``needlework build``: ``demo`` plus one command per registered benchmark, made from its spec
    only when it is named (so ``build needlebench`` imports no other benchmark's spec)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*IDS, *self.commands])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in IDS:
            return build_command(registered(cmd_name))
        return super().get_command(ctx, cmd_name)


@main.group(cls=_BuildGroup)
def build() -> None:
    """Build a benchmark release into a folder."""


def build_command(entry: Registered) -> click.Command:
    """``needlework build <id>``: ``--out``, the options of the builder's spec, ``--quiet``.

    SIGINT and SIGTERM stop the build cleanly: the unfinished release folder is removed, the
    previous one (if any) stays, and the exit status is 130 or 143.
    """

    @interruptible
    @domain_errors
    def run(out: Path, quiet: bool, **values: Any) -> None:
        from builders.preflight import check_before_work
        from builders.release import skip_pyarrow_pandas_probe

        spec = spec_from_options(entry.spec, values)
        check_before_work(spec, out)
        skip_pyarrow_pandas_probe()
        report = entry.builder().build(spec, out, progress=not quiet)
        for line in report.lines():
            click.echo(line)

    params = [
        click.Option(["--out"], type=click.Path(path_type=Path), required=True, help="Release folder to write."),
        *click_options(entry.spec),
        click.Option(["--quiet"], is_flag=True, help="No progress bars."),
    ]
    return click.Command(entry.id, params=params, callback=run, help=entry.summary, short_help=entry.summary)


@build.command("demo")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder to hold one release per benchmark.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--tokenizer", default=DEFAULT_TOKENIZER, show_default=True, help="Tokenizer spec for every benchmark.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@interruptible
@domain_errors
def build_demo_command(out: Path, seed: int, tokenizer: str, quiet: bool) -> None:
    """Every implemented benchmark, small, on its embedded default (offline)."""
    from builders.demo import build_demo
    from builders.release import skip_pyarrow_pandas_probe

    skip_pyarrow_pandas_probe()
    report = build_demo(out, seed=seed, tokenizer=tokenizer, progress=not quiet)
    for name, path in report.releases.items():
        click.echo(f"{name}: {path}")


@main.command()
@click.argument("release", type=click.Path(path_type=Path))
@domain_errors
def validate(release: Path) -> None:
    """Recompute content hashes and check that card, files and manifest agree (exit 1 if not)."""
    from builders.validate import validate_release

    check_release_folder(release, reader="needlework validate reads a local folder")
    problems = validate_release(release)
    for problem in problems:
        click.echo(problem)
    if problems:
        raise SystemExit(1)
    click.echo(f"{release}: valid")


@main.command()
@click.argument("release", type=click.Path(path_type=Path))
@click.argument("repo_id")
@click.option("--tag", default=None, help="Version tag of the pushed commit (default v{needlework version}-{content hash}).")
@click.option("--private", is_flag=True, help="Create the dataset repository private.")
@click.option("--message", default=None, help="Commit message.")
@click.option("--dry-run", is_flag=True, help="Validate and list what would be uploaded; contact nobody.")
@domain_errors
def push(release: Path, repo_id: str, tag: str | None, private: bool, message: str | None, dry_run: bool) -> None:
    """Validate RELEASE, upload it to the Hub dataset REPO_ID in one commit and tag it.

    The token comes from HF_TOKEN or the login cache (hf auth login), never from an argument.
    """
    from builders.push import check_push_target, plan_push, push_release

    check_push_target(repo_id, tag)  # before anything is read: a bad id or tag is refused at once
    check_release_folder(release, reader="needlework push reads a local folder")
    plan = plan_push(release, repo_id, tag)
    if dry_run:
        for line in plan.lines():
            click.echo(line)
        return
    result = push_release(plan, private=private, message=message)  # a Hub failure is one HubError line
    for line in result.lines():
        click.echo(line)


@main.command()
@click.argument("release", type=click.Path(path_type=Path))
@domain_errors
def info(release: Path) -> None:
    """Configs, rows and token statistics (per target length, size or bucket) of a release."""
    import polars as pl

    from builders.info import summarize_release

    check_release_folder(release, reader="needlework info reads a local folder")
    manifest, summaries = summarize_release(release)
    tok = manifest.get("tokenizer", {})
    click.echo(f"{manifest.get('benchmark')}  needlework {manifest.get('needlework_version')}  seed {manifest.get('seed')}")
    click.echo(f"tokenizer {tok.get('name')}  fingerprint {str(tok.get('fingerprint'))[:16]}")
    for s in summaries:
        click.echo(f"\n{s.config}/{s.split}: {s.rows:,} rows")
        if s.table is not None:
            click.echo(s.heading())
            with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
                click.echo(str(s.table))
