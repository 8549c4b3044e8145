"""Overhead of the eval harness against an instant server: throughput, and resume time. Run by hand.

1. Throughput: requests per second that ``eval.runner.run`` sustains at ``--concurrency`` (64) on
   ``--length`` (8K-token) prompts of a real RULERv2 release (mk_niah_basic, ``--samples`` rows),
   against a loopback server that answers at once. The server is a bare asyncio HTTP/1.1 protocol
   in its own process (so it shares neither the harness's GIL nor its event loop): it reads each
   body in full and returns one fixed, valid chat completion. Reported: wall time and requests/s
   of the whole run, requests/s of the streaming phase alone (the run's phases are timed by
   wrapping ``eval.runner``'s functions), the harness's CPU time and peak RSS, and the server's CPU
   time (to show it is not the bottleneck).
2. Resume: time to re-run a finished ``--resume-samples`` (10,000) run, which makes no request;
   best and median of ``--repeats``, once more in a fresh process (imports included), then where
   the time goes: the pieces timed one by one, and a cProfile of one resume.

3. EMB-S prefix sharing (``--sections embs-prefix``): the prompt tokens an EverMemBench-S
   long-context run sends at ``--embs-scales`` (64K, 128K, 256K), and the prefill tokens a prefix
   cache must compute when the prompts come in the harness's order against naive orders; target:
   grouped at most 5% of naive. The prompts are the harness's (``rows_of("embs").rows`` of each
   ``contexts-<scale>`` config, rendered by their task), tokenized with the release's tokenizer;
   the cache is ``benchmarks/prefix_cache.py``, a sequential model of vLLM's automatic prefix
   caching (16-token blocks hashed by prefix, LRU eviction). Requests run one at a time
   (concurrency and decode are ignored); the chat template is left out (a constant prefix, the same
   for every order). Orders:

   - grouped: the release's row order, which the harness sends (configs in ``--embs-scales``
     order; each config corpus by corpus; each corpus's queries; localize then qa);
   - token-id: the vLLM backend's order (``plan_chunks`` sorts the prompts by token ids);
   - query-major (naive): query by query in the ``queries`` config's order, each visiting every
     scale (ascending) and at each scale localize then qa, so only a query's two tasks at one scale
     meet back to back. The ``queries`` config lists a domain's queries mostly together, so a cache
     with room for one domain's corpora at every scale (64K + 128K + 256K) still reuses them;
   - shuffled (naive): a seeded random permutation (``--shuffle-seed``).

   An order that never reuses a corpus computes about every token sent, k times the grouped order
   (k prompts per corpus: 2 tasks x the queries of a domain), so grouped / naive is about 1 / k at
   best: the target needs k >= 20, i.e. 10 queries per domain or more (the builder's default is 24).

   Each at ``--cache-blocks`` (default: room for 2 x the largest prompt) and at a tight capacity
   (the largest prompt + 1 block). A prompt is tokenized as its corpus's ids (once per corpus)
   followed by its instruction's ids; ``--embs-verify`` prompts per scale are tokenized whole to
   check that this is the same sequence. Without ``--embs-release`` a release is built.

Releases are built in child processes (so the harness's peak RSS is its own) into a temporary
folder, removed at the end unless ``--keep``.

Usage::

    python benchmarks/eval_overhead.py                       # 2,000 samples; resume 10,000; 8K
    python benchmarks/eval_overhead.py --samples 500 --resume-samples 2000 --keep
    python benchmarks/eval_overhead.py --sections embs-prefix --embs-release /tmp/embs-small
    python benchmarks/eval_overhead.py --sections embs-prefix   # builds 2,000 entities, 24 queries/domain
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from prefix_cache import BLOCK_SIZE, block_hashes, blocks_for, simulate

from eval import runner
from needlework.backends.base import Request
from needlework.backends.token_ids import pack_ids
from eval.benchmarks import get_task, rows_of, task_name_for_row
from eval.release import Release, open_release
from eval.results import aggregate_scores, score_samples
from eval.runner import RunSpec, sample_key
from eval.store import RESULTS, RUN_FILE, SAMPLES, RunDirectory, latest_records
from eval.task import TaskOptions
from needlework.tokenizers import load_tokenizer

REPO = Path(__file__).resolve().parents[1]
CONFIG = "mk_niah_basic"
THROUGHPUT_TARGET = 200.0  # requests/s at concurrency 64 on 8K prompts
RESUME_TARGET_S = 2.0  # re-running a finished 10,000-sample run
SECTIONS = ("throughput", "resume", "embs-prefix")
EMBS_SCALES = ("64K", "128K", "256K")
EMBS_SPLIT = "test"
EMBS_PREFIX_TARGET = 0.05  # prefill tokens of the grouped order, at most this share of a naive order's
EMBS_ORDERS = ("grouped", "token-id", "query-major", "shuffled")
EMBS_NAIVE = ("query-major", "shuffled")

_BUILD_CHILD = """
import json, resource, sys, time
from pathlib import Path
from builders.rulerv2 import RulerV2Build, build
samples, length, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
start = time.perf_counter()
report = build(RulerV2Build(tasks=("mk_niah_basic",), lengths=(length,), samples=samples), out, progress=False)
print(json.dumps({"build_s": time.perf_counter() - start, "rows": report.rows,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# A bare HTTP/1.1 keep-alive server: find the end of the head, read Content-Length bytes of body,
# answer a fixed chat completion. GET (any path) answers {"requests", "cpu_s"} for the benchmark.
_SERVER_CHILD = r"""
import asyncio, json, sys, time

def response(body, status=b"200 OK"):
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)

COMPLETION = response(json.dumps({
    "id": "chatcmpl-instant", "object": "chat.completion", "model": "instant",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "1234567890"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 8192, "completion_tokens": 4, "total_tokens": 8196},
}).encode())
served = 0

class Instant(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer, self.end, self.is_get = transport, bytearray(), -1, False

    def data_received(self, data):
        global served
        buffer = self.buffer
        buffer += data
        while True:
            if self.end < 0:
                head_end = buffer.find(b"\r\n\r\n")
                if head_end < 0:
                    return
                head = bytes(buffer[:head_end]).lower()
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"transfer-encoding":
                        self.transport.write(response(b'{"error": "chunked bodies unsupported"}', b"501 Not Implemented"))
                        self.transport.close()
                        return
                self.is_get = head.startswith(b"get ")
                self.end = head_end + 4 + length
            if len(buffer) < self.end:
                return
            del buffer[:self.end]
            self.end = -1
            if self.is_get:
                self.transport.write(response(json.dumps({"requests": served, "cpu_s": time.process_time()}).encode()))
            else:
                served += 1
                self.transport.write(COMPLETION)

async def main():
    server = await asyncio.get_running_loop().create_server(Instant, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def build_release(out: Path, samples: int, length: int) -> dict[str, Any]:
    """Build a mk_niah_basic release of ``samples`` rows at ``length`` tokens in a child process."""
    done = subprocess.run([sys.executable, "-c", _BUILD_CHILD, str(samples), str(length), str(out)],
                          check=True, capture_output=True, text=True, env=_child_env())
    return json.loads(done.stdout.strip().splitlines()[-1])


class InstantServer:
    """The instant server in a child process; ``stats()`` reads its request count and CPU time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _SERVER_CHILD], stdout=subprocess.PIPE,
                                        text=True, env=_child_env())
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, float]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@contextmanager
def phase_timer() -> Iterator[dict[str, float]]:
    """Time the phases of ``runner.run`` (first call of each wrapped function) without editing it."""
    phases: dict[str, float] = {}
    names = ("plan_samples", "write_run_file", "score_run")
    originals = {name: getattr(runner, name) for name in (*names, "_drive")}
    latest_samples = RunDirectory.latest_samples

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                phases.setdefault(name, time.perf_counter() - start)
        return wrapper

    async def drive(*args: Any, **kwargs: Any) -> int:
        start = time.perf_counter()
        try:
            return await originals["_drive"](*args, **kwargs)
        finally:
            phases.setdefault("_drive", time.perf_counter() - start)

    for name in names:
        setattr(runner, name, timed(name, originals[name]))
    runner._drive = drive  # type: ignore[assignment]
    RunDirectory.latest_samples = timed("latest_records", latest_samples)  # type: ignore[method-assign]
    try:
        yield phases
    finally:
        for name, fn in originals.items():
            setattr(runner, name, fn)
        RunDirectory.latest_samples = latest_samples  # type: ignore[method-assign]


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def timed_run(spec: RunSpec, server: InstantServer) -> dict[str, Any]:
    """Run ``spec`` once, timing its phases, CPU (harness and server) and requests made."""
    before, cpu = server.stats(), _cpu_s()
    with phase_timer() as phases:
        start = time.perf_counter()
        outcome = runner.run(spec, progress=False)
        wall = time.perf_counter() - start
    after = server.stats()
    requests = int(after["requests"] - before["requests"])
    stream = phases.get("_drive")
    other = wall - sum(phases.values())
    return {
        "wall_s": wall, "new_samples": outcome.new_samples, "skipped_done": outcome.skipped_done,
        "requests": requests, "requests_per_s": requests / wall,
        "stream_requests_per_s": requests / stream if stream else None,
        "phases": {**phases, "other": other}, "harness_cpu_s": _cpu_s() - cpu,
        "server_cpu_s": after["cpu_s"] - before["cpu_s"], "counts": outcome.results["counts"],
    }


def resume_pieces(spec: RunSpec, run_dir: Path, scratch: Path) -> tuple[dict[str, float], float]:
    """The work of a resume, piece by piece, as ``runner.run`` does it (results go to ``scratch``)."""
    pieces = dict.fromkeys(("open release", "parquet read (iter_rows)", "render + generation_for",
                            "sample_key (hashes)", "task.metadata"), 0.0)
    t0 = time.perf_counter()
    release = open_release(spec.dataset, spec.revision)
    pieces["open release"] = time.perf_counter() - t0
    expected = []
    for config in spec.configs:
        rows = release.iter_rows(config, spec.split, spec.limit)
        while True:
            t0 = time.perf_counter()
            row = next(rows, None)
            t1 = time.perf_counter()
            pieces["parquet read (iter_rows)"] += t1 - t0
            if row is None:
                break
            task_name = task_name_for_row(release.benchmark, row)
            task = get_task(task_name, spec.task_options)
            request = Request("", task.render(row), spec.generation_for(row))
            t2 = time.perf_counter()
            key = sample_key(release, config, row["id"], request, spec.model, spec.seed)
            t3 = time.perf_counter()
            metadata = task.metadata(row)
            t4 = time.perf_counter()
            pieces["render + generation_for"] += t2 - t1
            pieces["sample_key (hashes)"] += t3 - t2
            pieces["task.metadata"] += t4 - t3
            expected.append({"key": key, "config": config, "row_id": row["id"], "task": task_name, "metadata": metadata})
    t0 = time.perf_counter()
    latest_records(run_dir / SAMPLES)
    pieces["read samples.jsonl (latest_records)"] = time.perf_counter() - t0
    backend_info = runner.make_backend(spec).describe()
    t0 = time.perf_counter()
    runner.write_run_file(scratch, spec, release, backend_info, expected)
    pieces["write run.json (indent=2)"] = time.perf_counter() - t0
    shutil.copyfile(run_dir / SAMPLES, scratch / SAMPLES)
    t0 = time.perf_counter()
    runner.score_run(scratch)
    score_total = time.perf_counter() - t0
    # score_run's own pieces, repeated outside it.
    t0 = time.perf_counter()
    saved = json.loads((scratch / RUN_FILE).read_text(encoding="utf-8"))
    t1 = time.perf_counter()
    records = latest_records(scratch / SAMPLES)
    t2 = time.perf_counter()
    options = TaskOptions(**saved["run"]["task_options"])
    scored = score_samples(saved["expected"], records, options)
    t3 = time.perf_counter()
    aggregate_scores(scored, "metric")
    t4 = time.perf_counter()
    pieces["score_run: read run.json"] = t1 - t0
    pieces["score_run: read samples.jsonl again"] = t2 - t1
    pieces["score_run: score_samples"] = t3 - t2
    pieces["score_run: aggregate_scores"] = t4 - t3
    pieces["score_run: rest (counts, usage, write results.json)"] = score_total - (t4 - t0)
    # The instant server's fixed answer is always wrong, which takes the scorer's slow path (WER);
    # a right answer stops at the string match. Not part of the sum: the best case, for scale.
    right = {key: {**record, "text": ", ".join(record["references"])} for key, record in records.items()}
    t0 = time.perf_counter()
    score_samples(saved["expected"], right, options)
    best_case = time.perf_counter() - t0
    return pieces, best_case


def profile_resume(spec: RunSpec, top: int) -> tuple[str, str]:
    """cProfile of one resume: the ``top`` functions by own time and by cumulative time."""
    profiler = cProfile.Profile()
    outcome = profiler.runcall(runner.run, spec, progress=False)
    assert outcome.new_samples == 0, outcome.new_samples
    texts = []
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order).print_stats(top)
        text = out.getvalue()
        texts.append(text[text.find("   ncalls"):].rstrip())
    return texts[0], texts[1]


_COLD_RESUME_CHILD = """
import json, resource, sys, time
start = time.perf_counter()
from pathlib import Path
from eval.runner import RunSpec, run
imported = time.perf_counter()
spec = RunSpec(dataset=sys.argv[1], configs=("mk_niah_basic",), model="instant", base_url=sys.argv[2],
               concurrency=int(sys.argv[3]), output_dir=Path(sys.argv[4]))
outcome = run(spec, progress=False)
assert outcome.new_samples == 0, outcome.new_samples
print(json.dumps({"import_s": imported - start, "run_s": time.perf_counter() - imported,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def cold_resume(spec: RunSpec) -> dict[str, float]:
    """Resume in a fresh interpreter, as ``python -m eval run`` would: imports, run, peak RSS."""
    done = subprocess.run([sys.executable, "-c", _COLD_RESUME_CHILD, spec.dataset, spec.base_url or "",
                           str(spec.concurrency), str(spec.output_dir)],
                          check=True, capture_output=True, text=True, env=_child_env())
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class EmbsPrompt:
    """One EMB-S long-context request as a prefix cache sees it: where it comes from, its length,
    the chained hashes of its full blocks and its token ids packed for sorting (corpus, instruction)."""

    row_id: str
    qid: str
    scale: str
    task: str
    corpus: str
    n_tokens: int
    hashes: list[int]
    sort_key: tuple[bytes, bytes]


def build_embs_release(out: Path, entities: int, queries_per_domain: int, max_scale: str) -> float:
    """Build an EMB-S release on the synthetic world, no retrieval regime, ladder and contexts up to
    ``max_scale``, in a child process; return its seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from builders.cli import main; main()", "build", "embs", "--out", str(out),
                    "--entities", str(entities), "--queries-per-domain", str(queries_per_domain), "--retrievers", "none",
                    "--materialize", max_scale, "--max-scale", max_scale, "--quiet"],
                   check=True, capture_output=True, text=True, env=_child_env())
    return time.perf_counter() - start


def embs_prompts(release: Release, scales: Sequence[str], verify: int, seed: int
                 ) -> tuple[list[EmbsPrompt], dict[str, int], dict[str, Any]]:
    """The harness's EMB-S prompts at ``scales``, in its order (the release's row order, configs in
    ``scales`` order), tokenized as corpus ids + instruction ids; the queries' release ranks; checks.

    ``verify`` prompts per scale (seeded pick) are also tokenized whole and compared with the
    concatenation; the checks also count corpora whose token count differs from the release's.
    """
    tokens = load_tokenizer(release.manifest["tokenizer"]["name"])
    options = TaskOptions()
    pick = random.Random(seed)
    query_rank = {row["qid"]: rank for rank, row in enumerate(release.iter_rows("queries", EMBS_SPLIT))}
    corpora: dict[str, tuple[np.ndarray, list[int], bytes]] = {}
    prompts: list[EmbsPrompt] = []
    checks = {"verified": 0, "verified_equal": 0, "corpus_count_mismatches": 0, "corpora": 0}
    for scale in scales:
        rows = list(rows_of(release.benchmark).rows(release, f"contexts-{scale}", EMBS_SPLIT, None, None, options))
        verified = set(pick.sample(range(len(rows)), min(verify, len(rows))))
        for index, row in enumerate(rows):
            corpus = f"{scale}/{row['domain']}"
            if corpus not in corpora:
                ids = tokens.encode(row["context"])
                checks["corpora"] += 1
                checks["corpus_count_mismatches"] += int(len(ids) != row["context_tokens"])
                corpora[corpus] = (ids, block_hashes(ids), pack_ids(ids))
            corpus_ids, corpus_hashes, corpus_packed = corpora[corpus]
            (message,) = get_task(task_name_for_row(release.benchmark, row), options).render(row)
            text = message["content"]
            if not text.startswith(row["context"]):
                raise ValueError(f"{row['id']}: the prompt does not start with its corpus")
            instruction = tokens.encode(text[len(row["context"]):])
            if index in verified:
                checks["verified"] += 1
                checks["verified_equal"] += int(np.array_equal(tokens.encode(text), np.concatenate([corpus_ids, instruction])))
            full = len(corpus_hashes) * BLOCK_SIZE
            tail = np.concatenate([corpus_ids[full:], instruction])
            hashes = corpus_hashes + block_hashes(tail, parent=corpus_hashes[-1] if corpus_hashes else 0)
            prompts.append(EmbsPrompt(row["id"], row["qid"], scale, row["task"], corpus, len(corpus_ids) + len(instruction),
                                      hashes, (corpus_packed, pack_ids(instruction))))
    packed = [value[2] for value in corpora.values()]
    # Sorting (corpus, instruction) pairs is sorting the whole id sequences unless a corpus's ids
    # are a proper prefix of another's.
    checks["corpus_prefix_of_another"] = sum(a != b and b.startswith(a) for a in packed for b in packed)
    return prompts, query_rank, checks


def grouped_order(prompts: Sequence[EmbsPrompt]) -> list[int]:
    """The harness's order: the prompts as composed (release row order)."""
    return list(range(len(prompts)))


def token_id_order(prompts: Sequence[EmbsPrompt]) -> list[int]:
    """The vLLM backend's order: by token ids, the row id breaking ties (``plan_chunks``)."""
    return sorted(range(len(prompts)), key=lambda i: (prompts[i].sort_key, prompts[i].row_id))


def query_major_order(prompts: Sequence[EmbsPrompt], query_rank: dict[str, int], scales: Sequence[str]) -> list[int]:
    """Naive: query by query (release rank), each over every scale (in ``scales`` order), localize then qa."""
    tasks = {"localize": 0, "qa": 1}
    return sorted(range(len(prompts)), key=lambda i: (query_rank[prompts[i].qid], scales.index(prompts[i].scale),
                                                      tasks.get(prompts[i].task, 2), i))


def shuffled_order(count: int, seed: int) -> list[int]:
    """Naive: a seeded random permutation."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return order


def prefill_by_scale(prompts: Sequence[EmbsPrompt], order: Sequence[int], capacity: int) -> dict[str, int]:
    """Tokens the prefix cache computes per scale when ``prompts`` run in ``order``."""
    computed = simulate(((prompts[i].hashes, prompts[i].n_tokens) for i in order), capacity)
    by_scale: dict[str, int] = {}
    for i, tokens in zip(order, computed):
        by_scale[prompts[i].scale] = by_scale.get(prompts[i].scale, 0) + tokens
    return by_scale


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def measure_embs_prefix(release_path: Path, scales: Sequence[str], cache_blocks: int | None, verify: int,
                        seed: int) -> list[tuple[str, str, str]]:
    """Section 3: print the EMB-S prefix-sharing tables; return the summary rows."""
    start = time.perf_counter()
    release = open_release(str(release_path))
    prompts, query_rank, checks = embs_prompts(release, scales, verify, seed)
    prepared = time.perf_counter() - start
    largest = max(blocks_for(p.n_tokens) for p in prompts)
    capacities = {"ample": cache_blocks or 2 * largest, "tight": largest + 1}
    orders = {"grouped": grouped_order(prompts), "token-id": token_id_order(prompts),
              "query-major": query_major_order(prompts, query_rank, scales),
              "shuffled": shuffled_order(len(prompts), seed)}
    per_corpus = len(prompts) / len({p.corpus for p in prompts})
    print(f"\n[embs prefix] {release_path}: {len(prompts)} prompts at {', '.join(scales)} "
          f"({len({p.corpus for p in prompts})} corpora, {per_corpus:g} prompts each), tokenizer "
          f"{release.manifest['tokenizer']['name']}; tokenized and hashed in {prepared:.1f} s")
    print(f"  checks: {checks['verified_equal']}/{checks['verified']} prompts tokenized whole equal corpus ids + "
          f"instruction ids; {checks['corpus_count_mismatches']}/{checks['corpora']} corpora differ from the release's "
          f"token count; {checks['corpus_prefix_of_another']} corpora are a prefix of another")
    print(f"  bound: an order that never reuses a corpus computes about every token sent, {per_corpus:g} x what computing "
          f"each corpus once costs, so grouped / naive >= about 1 / {per_corpus:g} = {_percent(1, per_corpus)}")
    sent = {scale: sum(p.n_tokens for p in prompts if p.scale == scale) for scale in scales}
    samples = {scale: sum(p.scale == scale for p in prompts) for scale in scales}
    summary: list[tuple[str, str, str]] = []
    for label, capacity in capacities.items():
        computed, seconds = {}, {}
        for name, order in orders.items():
            t0 = time.perf_counter()
            computed[name] = prefill_by_scale(prompts, order, capacity)
            seconds[name] = time.perf_counter() - t0
        print(f"\n  cache {label}: {capacity:,} blocks of {BLOCK_SIZE} ({capacity * BLOCK_SIZE:,} tokens; largest prompt "
              f"{largest:,} blocks); prefill tokens computed, and grouped as a share of each naive order")
        header = (f"    {'scale':>6s} {'samples':>7s} {'sent':>12s} " + " ".join(f"{name:>12s}" for name in EMBS_ORDERS)
                  + " " + " ".join(f"{'g/' + name:>14s}" for name in (*EMBS_NAIVE, "sent")))
        print(header)
        for scale in (*scales, "total"):
            pick = list(scales) if scale == "total" else [scale]
            row_sent = sum(sent[s] for s in pick)
            totals = {name: sum(computed[name].get(s, 0) for s in pick) for name in EMBS_ORDERS}
            print(f"    {scale:>6s} {sum(samples[s] for s in pick):7d} {row_sent:12,d} "
                  + " ".join(f"{totals[name]:12,d}" for name in EMBS_ORDERS) + " "
                  + " ".join(f"{_percent(totals['grouped'], totals[name]):>14s}" for name in EMBS_NAIVE)
                  + f" {_percent(totals['grouped'], row_sent):>14s}")
        print("    simulated in " + ", ".join(f"{name} {seconds[name]:.1f} s" for name in EMBS_ORDERS), flush=True)
        total = {name: sum(computed[name].values()) for name in EMBS_ORDERS}
        verdicts = [f"{name} " + ("OK" if total["grouped"] <= EMBS_PREFIX_TARGET * total[name] else "MISSED")
                    for name in EMBS_NAIVE]
        summary.append((f"embs prefix ({label} cache): grouped / naive", " / ".join(
            _percent(total["grouped"], total[name]) for name in EMBS_NAIVE),
            f"{' / '.join(EMBS_NAIVE)}; <= {100 * EMBS_PREFIX_TARGET:g}%: {', '.join(verdicts)}"))
    summary.append(("embs prefix: prompt tokens sent", f"{sum(sent.values()):,}",
                    f"{len(prompts)} prompts, {per_corpus:g} per corpus; {time.perf_counter() - start:.0f} s"))
    return summary


def _phase_lines(phases: dict[str, float]) -> str:
    labels = {"plan_samples": "plan (parquet, render, keys)", "latest_records": "read samples.jsonl",
              "write_run_file": "write run.json", "_drive": "stream (requests)", "score_run": "score_run", "other": "other"}
    return "\n".join(f"    {labels.get(k, k):32s} {v:8.3f} s" for k, v in phases.items())


def _size(path: Path) -> str:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
    return f"{total / 2**20:.1f} MiB"


def measure_throughput(args: argparse.Namespace, tmp: Path, server: InstantServer) -> list[tuple[str, str, str]]:
    """Section 1: build the throughput release, run it against the instant server; return the summary rows."""
    summary: list[tuple[str, str, str]] = []
    release = tmp / f"release-{args.samples}"
    built = build_release(release, args.samples, args.length)
    print(f"\nbuilt {args.samples} x {args.length} tokens in {built['build_s']:.1f} s ({_size(release)})", flush=True)
    spec = RunSpec(dataset=str(release), configs=(CONFIG,), model="instant", base_url=server.base_url,
                   concurrency=args.concurrency, output_dir=tmp / "run-throughput")
    rss_before = _peak_rss_mib()
    first = timed_run(spec, server)
    rss_after = _peak_rss_mib()
    assert first["new_samples"] == args.samples == first["requests"], first
    print(f"\n[throughput] {args.samples} requests at concurrency {args.concurrency}, {args.length}-token prompts")
    print(f"  wall {first['wall_s']:.2f} s: {first['requests_per_s']:.0f} requests/s overall, "
          f"{first['stream_requests_per_s']:.0f} requests/s while streaming")
    print(_phase_lines(first["phases"]))
    print(f"  harness CPU {first['harness_cpu_s']:.2f} s ({100 * first['harness_cpu_s'] / first['wall_s']:.0f}% of one core); "
          f"server CPU {first['server_cpu_s']:.2f} s ({100 * first['server_cpu_s'] / first['wall_s']:.0f}%)")
    print(f"  harness peak RSS {rss_after:.0f} MiB (after imports: {rss_before:.0f} MiB); counts {first['counts']}",
          flush=True)
    ok = first["requests_per_s"] >= THROUGHPUT_TARGET
    summary += [
        ("throughput: requests/s, whole run", f"{first['requests_per_s']:.0f}/s", f">= {THROUGHPUT_TARGET:.0f}/s " + ("OK" if ok else "MISSED")),
        ("throughput: requests/s, streaming phase", f"{first['stream_requests_per_s']:.0f}/s", ""),
        ("throughput: wall time", f"{first['wall_s']:.2f} s", f"{args.samples} requests"),
        ("throughput: harness CPU / server CPU", f"{first['harness_cpu_s']:.2f} s / {first['server_cpu_s']:.2f} s", ""),
        ("throughput: harness peak RSS", f"{rss_after:.0f} MiB", f"{rss_before:.0f} MiB after imports"),
    ]
    return summary


def measure_resume(args: argparse.Namespace, tmp: Path, server: InstantServer) -> list[tuple[str, str, str]]:
    """Section 2: a full run of the resume release, timed resumes, their pieces and profile; return the summary rows."""
    summary: list[tuple[str, str, str]] = []
    release = tmp / f"release-{args.resume_samples}"
    built = build_release(release, args.resume_samples, args.length)
    print(f"\nbuilt {args.resume_samples} x {args.length} tokens in {built['build_s']:.1f} s ({_size(release)})", flush=True)
    spec = RunSpec(dataset=str(release), configs=(CONFIG,), model="instant", base_url=server.base_url,
                   concurrency=args.concurrency, output_dir=tmp / "run-resume")
    full = timed_run(spec, server)
    assert full["new_samples"] == args.resume_samples == full["requests"], full
    print(f"\n[full run] {args.resume_samples} requests: wall {full['wall_s']:.2f} s, {full['requests_per_s']:.0f} requests/s "
          f"overall, {full['stream_requests_per_s']:.0f} while streaming; harness CPU {full['harness_cpu_s']:.2f} s")
    print(_phase_lines(full["phases"]), flush=True)
    resumes = []
    for _ in range(args.repeats):
        again = timed_run(spec, server)
        assert again["new_samples"] == 0 and again["requests"] == 0, again
        assert again["skipped_done"] == args.resume_samples, again
        resumes.append(again)
    times = [r["wall_s"] for r in resumes]
    best = min(resumes, key=lambda r: r["wall_s"])
    print(f"\n[resume] {args.resume_samples} done samples, 0 requests: "
          f"min {min(times):.3f} s, median {statistics.median(times):.3f} s ({', '.join(f'{t:.3f}' for t in times)})")
    print("  phases of the fastest:")
    print(_phase_lines(best["phases"]))
    cold = cold_resume(spec)
    print(f"  in a fresh process: imports {cold['import_s']:.2f} s + run {cold['run_s']:.2f} s, peak RSS {cold['peak_rss_mib']:.0f} MiB")
    print(f"  sizes: release {_size(release)}, samples.jsonl {_size(spec.output_dir / SAMPLES)}, "  # type: ignore[operator]
          f"run.json {_size(spec.output_dir / RUN_FILE)}, results.json {_size(spec.output_dir / RESULTS)}")  # type: ignore[operator]

    scratch = tmp / "scratch-pieces"
    pieces, best_case = resume_pieces(spec, spec.output_dir, scratch)  # type: ignore[arg-type]
    print(f"\n[resume pieces] timed one by one (sum {sum(pieces.values()):.3f} s):")
    for name, seconds in sorted(pieces.items(), key=lambda kv: -kv[1]):
        print(f"    {name:52s} {seconds:8.3f} s")
    print(f"    (score_samples if every answer were right: {best_case:.3f} s; the server's fixed answer is always "
          "wrong, the scorer's slow path)")
    by_own, by_cumulative = profile_resume(spec, args.top)
    print(f"\n[resume profile] cProfile of one resume (profiling inflates Python-heavy code); top {args.top} by own time:")
    print(by_own)
    print(f"\n  top {args.top} by cumulative time:")
    print(by_cumulative, flush=True)

    ok = min(times) < RESUME_TARGET_S
    summary += [
        (f"full {args.resume_samples} run: requests/s", f"{full['requests_per_s']:.0f}/s",
         f"{full['stream_requests_per_s']:.0f}/s streaming"),
        (f"resume {args.resume_samples}: min / median", f"{min(times):.3f} s / {statistics.median(times):.3f} s",
         f"< {RESUME_TARGET_S:g} s " + ("OK" if ok else "MISSED")),
        (f"resume {args.resume_samples}: fresh process", f"{cold['import_s'] + cold['run_s']:.2f} s",
         f"imports {cold['import_s']:.2f} s, peak RSS {cold['peak_rss_mib']:.0f} MiB"),
    ]
    return summary


def main() -> None:
    """Run the chosen sections (by default throughput and resume, with the instant server), print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000, help="rows of the throughput release")
    parser.add_argument("--resume-samples", type=int, default=10_000, help="rows of the resume release")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--length", type=int, default=8192, help="target tokens per prompt (both releases)")
    parser.add_argument("--repeats", type=int, default=3, help="timed resumes")
    parser.add_argument("--top", type=int, default=25, help="profile rows to print")
    parser.add_argument("--keep", action="store_true", help="keep the temporary releases and runs")
    parser.add_argument("--sections", default="throughput,resume",
                        help=f"comma-separated sections to run, of {', '.join(SECTIONS)}")
    parser.add_argument("--embs-release", type=Path, help="EMB-S release to measure (default: build one)")
    parser.add_argument("--embs-scales", default=",".join(EMBS_SCALES), help="contexts-<scale> configs, ascending")
    parser.add_argument("--embs-entities", type=int, default=2000, help="world entities of a built EMB-S release")
    parser.add_argument("--embs-queries-per-domain", type=int, default=24, help="queries per domain of a built EMB-S release")
    parser.add_argument("--cache-blocks", type=int, help="prefix cache blocks (default: 2 x the largest prompt's)")
    parser.add_argument("--embs-verify", type=int, default=4, help="prompts per scale tokenized whole to check ids")
    parser.add_argument("--shuffle-seed", type=int, default=0, help="seed of the shuffled order and the verified pick")
    args = parser.parse_args()
    sections = [name.strip() for name in args.sections.split(",") if name.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown or not sections:
        parser.error(f"unknown sections {', '.join(unknown) or '(none)'}; choose from {', '.join(SECTIONS)}")
    scales = tuple(scale.strip() for scale in args.embs_scales.split(",") if scale.strip())

    tmp = Path(tempfile.mkdtemp(prefix="needlework-eval-overhead-"))
    server = InstantServer() if {"throughput", "resume"} & set(sections) else None
    summary: list[tuple[str, str, str]] = []
    try:
        where = f"instant server pid {server.process.pid} at {server.base_url}; " if server else ""
        print(f"{where}harness pid {os.getpid()}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}; "
              f"load average {os.getloadavg()[0]:.2f}; work dir {tmp}", flush=True)

        if "throughput" in sections:
            assert server is not None
            summary += measure_throughput(args, tmp, server)
        if "resume" in sections:
            assert server is not None
            summary += measure_resume(args, tmp, server)
        if "embs-prefix" in sections:
            release = args.embs_release
            if release is None:
                release = tmp / "embs"
                seconds = build_embs_release(release, args.embs_entities, args.embs_queries_per_domain, scales[-1])
                print(f"\nbuilt an EMB-S release ({args.embs_entities} entities, {args.embs_queries_per_domain} "
                      f"queries/domain, up to {scales[-1]}) in {seconds:.1f} s", flush=True)
            summary += measure_embs_prefix(release, scales, args.cache_blocks, args.embs_verify, args.shuffle_seed)
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            print(f"\nkept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    context = f"mk_niah_basic at {args.length} tokens, concurrency {args.concurrency}, " if server else ""
    print(f"\nsummary ({context}{os.cpu_count()} CPUs, load average now {os.getloadavg()[0]:.2f})")
    width = max(len(row[0]) for row in summary)
    for name, value, note in summary:
        print(f"  {name:{width}s}  {value:>22s}  {note}")


if __name__ == "__main__":
    main()
