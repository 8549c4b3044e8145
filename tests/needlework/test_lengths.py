"""One syntax for a number of tokens in every command (issue 41): the forms accepted and their values, the forms
refused and their one-line message, the click side every command line uses, and the papers' numbers written in it."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from needlework.cliutil import TokenCount, token_list
from needlework.errors import SpecError
from needlework.lengths import (
    FORMS,
    TOKENS_HELP,
    UNITS,
    number_and_suffix,
    parse_token_list,
    parse_tokens,
)

ACCEPTED: list[tuple[str, int]] = [
    ("0", 0),
    ("8000", 8_000),
    ("8_000", 8_000),
    (" 8000 ", 8_000),
    ("8k", 8_000),
    ("8K", 8_000),
    ("128k", 128_000),
    ("128K", 128_000),
    ("1.5k", 1_500),
    ("1.5K", 1_500),
    ("1_000k", 1_000_000),
    ("1m", 1_000_000),
    ("1M", 1_000_000),
    ("2.5M", 2_500_000),
    ("326M", 326_000_000),
    ("8ki", 8_192),
    ("8Ki", 8_192),
    ("8KI", 8_192),
    ("8kI", 8_192),
    ("110ki", 112_640),
    ("0.5ki", 512),
    ("1mi", 1_048_576),
    ("1Mi", 1_048_576),
]
"""Every accepted form and the count it means."""

REFUSED: list[tuple[str, str]] = [
    ("", "is not a token count"),
    ("k", "is not a token count"),
    ("-8k", "is not a token count"),
    ("+8000", "is not a token count"),
    ("8 k", "is not a token count"),
    ("8kb", "is not a token count"),
    ("8k8", "is not a token count"),
    ("1g", "is not a token count"),
    ("1e3", "is not a token count"),
    ("0x10", "is not a token count"),
    ("1.5", "is not a token count"),
    (".5k", "is not a token count"),
    ("8__000", "is not a token count"),
    ("_8", "is not a token count"),
    ("8_", "is not a token count"),
    ("8,000", "is not a token count"),
    ("\u0663k", "is not a token count"),  # an Arabic-Indic digit
    ("1.0005k", "is not a whole number of tokens"),
    ("0.3ki", "is not a whole number of tokens"),
]
"""Every refused form and what its message says besides the accepted forms."""


@pytest.mark.parametrize(("text", "count"), ACCEPTED)
def test_accepted_forms(text: str, count: int) -> None:
    assert parse_tokens(text) == count
    assert type(parse_tokens(text)) is int


@pytest.mark.parametrize(("text", "problem"), REFUSED)
def test_refused_forms_name_the_value_and_the_accepted_forms_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_tokens(text)
    message = str(caught.value)
    assert message.startswith(f"{text.strip()!r} {problem}") and message.endswith(FORMS)
    assert "\n" not in message


def test_case_never_changes_the_meaning() -> None:
    for number in ("2", "64", "1.5", "110"):
        for suffix in UNITS:
            spellings = {number + s for s in (suffix, suffix.upper(), suffix.capitalize(), suffix.swapcase())}
            if not suffix and "." in number:
                continue
            assert len({parse_tokens(s) for s in spellings}) == 1, spellings


def test_number_and_suffix() -> None:
    assert number_and_suffix(" 1.5K ") == (3 / 2, "k")
    assert number_and_suffix("8Ki") == (8, "ki") and number_and_suffix("8_000") == (8000, "")


def test_lists_keep_order_and_repeats_and_drop_blanks() -> None:
    assert parse_token_list("0,8k,,8_000, 8Ki ") == (0, 8_000, 8_000, 8_192)
    assert parse_token_list("") == () and parse_token_list(" , ") == ()
    with pytest.raises(SpecError, match="^'x' is not a token count"):
        parse_token_list("8k,x")


def test_the_papers_numbers_are_written_in_the_rule() -> None:
    """k is the papers' and official code's 1,000 (HaystackCraft's 8K..128K, OpenCompass's 4k..1000k grids);
    RULERv2's 8k..110k as needlework builds them, and the labels of Sequential-NIAH and EMB-S, are ki."""
    assert parse_token_list("0,8k,16k,32k,64k,128k") == (0, 8_000, 16_000, 32_000, 64_000, 128_000)
    assert parse_token_list("1k,2k,4k,8k,16k,32k,64k,128k")[-1] == 128_000 and parse_tokens("1000k") == parse_tokens("1m")
    assert parse_token_list("8ki,16ki,32ki,64ki,110ki") == (8_192, 16_384, 32_768, 65_536, 112_640)
    assert parse_tokens("64ki") == 65_536 and parse_tokens("1mi") == 1_048_576


def _command() -> click.Command:
    @click.command()
    @click.option("--lengths", multiple=True, callback=token_list)
    @click.option("--max-model-len", type=TokenCount(minimum=1), default=None)
    def command(lengths: tuple[int, ...], max_model_len: int | None) -> None:
        click.echo(f"{lengths} {max_model_len}")

    return command


@pytest.mark.parametrize(("args", "output"), [
    (["--lengths", "2k", "--lengths", "2000,4K,4ki", "--max-model-len", "8K"], "(2000, 4000, 4096) 8000\n"),
    (["--lengths", "2K", "--max-model-len", "8k"], "(2000,) 8000\n"),
    (["--max-model-len", "131072"], "() 131072\n"),
])
def test_click_options_read_token_counts(args: list[str], output: str) -> None:
    result = CliRunner().invoke(_command(), args)
    assert result.exit_code == 0, result.output
    assert result.output == output


@pytest.mark.parametrize(("args", "line"), [
    (["--lengths", "2k,2q"], f"error: --lengths: '2q' is not a token count: write {FORMS}"),
    (["--max-model-len", "8 k"], f"error: --max-model-len: '8 k' is not a token count: write {FORMS}"),
    (["--max-model-len", "0k"], "error: --max-model-len: 0 tokens is below the minimum of 1"),
])
def test_click_options_refuse_in_one_line_naming_the_option(args: list[str], line: str) -> None:
    result = CliRunner().invoke(_command(), args)
    assert result.exit_code == 2
    assert result.output.splitlines() == [line]


def test_the_help_states_the_rule() -> None:
    assert all(s in TOKENS_HELP for s in ("8k = 8K = 8,000", "8ki = 8Ki = 8,192", "1m = 1,000,000"))
