"""Throughput (tokens/s) of each named tokenizer on ~500 KB of generated English. Run by hand.

Measures, per tokenizer, the best of ``--repeats`` runs of ``encode`` and ``encode_with_offsets``
over the whole text, and of ``count_batch`` over its 5,000 lines. The text is a deterministic
word salad from wonderwords' word lists (seeded numpy Generator), with capitals, punctuation and
numbers, so runs are comparable across machines and commits.

Usage::

    python benchmarks/tokenizer_speed.py
    python benchmarks/tokenizer_speed.py --lines 2000 --repeats 5
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from importlib.resources import files

import click
import numpy as np

from needlework.errors import TokenizerError
from needlework.tokenizers import available_tokenizers, load_tokenizer


def english_lines(n_lines: int, seed: int) -> list[str]:
    """Sentences of 6-18 words from wonderwords' noun, verb and adjective lists, one per line."""
    assets = files("wonderwords") / "assets"
    lists = ("nounlist.txt", "verblist.txt", "adjectivelist.txt")
    words = np.array(sorted({word for name in lists for word in (assets / name).read_text().split()}))
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n_lines):
        sentence = [str(w) for w in rng.choice(words, size=rng.integers(6, 19))]
        sentence[0] = sentence[0].capitalize()
        if rng.random() < 0.3:
            sentence.insert(int(rng.integers(1, len(sentence))), str(rng.integers(0, 100_000)))
        if rng.random() < 0.5:
            comma = int(rng.integers(1, len(sentence) - 1))
            sentence[comma] += ","
        lines.append(" ".join(sentence) + str(rng.choice([".", ".", ".", "?", "!", ";"])))
    return lines


def best_seconds(run: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` timed calls, which is the least noisy estimate on a shared machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@click.command()
@click.option("--lines", "n_lines", default=5_000, show_default=True, help="Lines of text (about 100 B each).")
@click.option("--repeats", default=3, show_default=True, help="Timed runs per measurement; the best is kept.")
@click.option("--seed", default=0, show_default=True)
def main(n_lines: int, repeats: int, seed: int) -> None:
    """Print tokens/s of encode, encode_with_offsets and count_batch for each named tokenizer."""
    lines = english_lines(n_lines, seed)
    text = "\n".join(lines)
    click.echo(f"text: {len(text.encode('utf-8')):,} bytes, {len(lines):,} lines; best of {repeats}")
    header = ("load s", 7), ("tokens", 9), ("encode tok/s", 14), ("offsets tok/s", 14), ("count_batch tok/s", 18)
    click.echo(f"{'tokenizer':<12}" + "".join(f" {title:>{width}}" for title, width in header))
    for name in available_tokenizers():
        start = time.perf_counter()
        try:
            counter = load_tokenizer(name)
        except TokenizerError as error:
            click.echo(f"{name:<12} skipped: {error}")
            continue
        load = time.perf_counter() - start
        n_tokens = len(counter.encode(text))
        encode = best_seconds(partial(counter.encode, text), repeats)
        offsets = best_seconds(partial(counter.encode_with_offsets, text), repeats)
        batch_tokens = int(counter.count_batch(lines).sum())
        batch = best_seconds(partial(counter.count_batch, lines), repeats)
        click.echo(
            f"{name:<12} {load:>7.2f} {n_tokens:>9,} {n_tokens / encode:>14,.0f} "
            f"{n_tokens / offsets:>14,.0f} {batch_tokens / batch:>18,.0f}"
        )


if __name__ == "__main__":
    main()
