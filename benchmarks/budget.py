"""Cost of token-exact budgets, and memory of a streamed build. Run by hand; figures go in notes.

1. Generation cost ratio: time to generate N samples at a target length with the default
   tokenizer, including the one-off preparation (piece counts), divided by the time of one encode
   over the emitted prompts with the same tokenizer. 1.0 would mean generation is free beside
   the one verifying encode that every sample needs.
2. Peak resident memory of ``needlework build rulerv2`` for growing sample counts at one length,
   each in a fresh process, to show it is flat in the number of samples.

Usage::

    python benchmarks/budget.py                    # 20 samples at 128K; 250/500/1000 at 32K
    python benchmarks/budget.py --samples 5 --memory-samples 50,100
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from builders.rulerv2 import load_key_words
from generators.rulerv2.niah_basic import generate
from generators.rulerv2.spec import NiahBasicSpec, RulerOptions
from needlework.cliutil import TokenCount
from needlework.lengths import TOKENS_HELP
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer

_MEMORY_CHILD = """
import resource, sys, json
from pathlib import Path
from builders.rulerv2 import RulerV2Build, build
from generators.rulerv2.spec import RulerOptions
samples, length, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
build(RulerV2Build(tasks=("mk_niah_basic",), lengths=(length,), samples=samples), out, progress=False)
print(json.dumps({"peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def generation_ratio(task: str, length: int, samples: int, tokenizer: str, repeats: int) -> dict:
    """Best-of-``repeats`` generation time over best-of-``repeats`` reference encode time, and the
    median ratio of the alternating pairs (less sensitive to a noisy neighbour)."""
    tokens = load_tokenizer(tokenizer)
    words, _ = load_key_words()
    spec = NiahBasicSpec(task, RulerOptions(lengths=(length,), samples=samples))  # type: ignore[arg-type]
    gen_times, enc_times, texts = [], [], []
    for _ in range(repeats):
        # Generation and the reference encode alternate, so both see the same machine state.
        start = time.perf_counter()
        texts = [row["input"] for row in generate(spec, seed=0, tokens=tokens, words=words)]
        gen_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        n_tokens = sum(len(tokens.encode(t)) for t in texts)
        enc_times.append(time.perf_counter() - start)
    gen, enc = min(gen_times), min(enc_times)
    paired = sorted(g / e for g, e in zip(gen_times, enc_times))
    return {
        "task": task,
        "length": length,
        "samples": samples,
        "tokenizer": tokens.name,
        "prompt_tokens": n_tokens,
        "generate_s": round(gen, 4),
        "one_encode_s": round(enc, 4),
        "ratio": round(gen / enc, 3),
        "median_paired_ratio": round(paired[len(paired) // 2], 3),
    }


def build_peak_memory(samples: int, length: int) -> float:
    """Peak RSS (MiB) of a fresh process that builds ``samples`` rows at ``length``."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", _MEMORY_CHILD, str(samples), str(length), str(Path(tmp) / "release")],
            check=True, capture_output=True, text=True,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])["peak_rss_mib"]


@click.command()
@click.option("--length", type=TokenCount(minimum=1), default=131072, show_default=True, help=TOKENS_HELP)
@click.option("--samples", type=int, default=20, show_default=True)
@click.option("--tokenizer", default=DEFAULT_TOKENIZER, show_default=True)
@click.option("--repeats", type=int, default=7, show_default=True)
@click.option("--memory-length", type=TokenCount(minimum=1), default=32768, show_default=True, help=TOKENS_HELP)
@click.option("--memory-samples", default="250,500,1000", show_default=True)
def main(length: int, samples: int, tokenizer: str, repeats: int, memory_length: int, memory_samples: str) -> None:
    """Print the generation/encode ratio per task and peak build memory per sample count."""
    for task in ("mk_niah", "mv_niah"):
        click.echo(json.dumps(generation_ratio(task, length, samples, tokenizer, repeats)))
    for n in (int(x) for x in memory_samples.split(",")):
        click.echo(json.dumps({"build_samples": n, "length": memory_length, "peak_rss_mib": round(build_peak_memory(n, memory_length), 1)}))


if __name__ == "__main__":
    main()
