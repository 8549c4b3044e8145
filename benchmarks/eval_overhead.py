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

Releases are built in child processes (so the harness's peak RSS is its own) into a temporary
folder, removed at the end unless ``--keep``.

Usage::

    python benchmarks/eval_overhead.py                       # 2,000 samples; resume 10,000; 8K
    python benchmarks/eval_overhead.py --samples 500 --resume-samples 2000 --keep
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from eval import runner
from eval.backends.base import Request
from eval.release import open_release
from eval.benchmarks import get_task, task_name_for_row
from eval.results import aggregate_scores, score_samples
from eval.runner import RunSpec, sample_key
from eval.store import RESULTS, RUN_FILE, SAMPLES, RunDirectory, latest_records
from eval.task import TaskOptions

REPO = Path(__file__).resolve().parents[1]
CONFIG = "mk_niah_basic"
THROUGHPUT_TARGET = 200.0  # requests/s at concurrency 64 on 8K prompts
RESUME_TARGET_S = 2.0  # re-running a finished 10,000-sample run

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


def _phase_lines(phases: dict[str, float]) -> str:
    labels = {"plan_samples": "plan (parquet, render, keys)", "latest_records": "read samples.jsonl",
              "write_run_file": "write run.json", "_drive": "stream (requests)", "score_run": "score_run", "other": "other"}
    return "\n".join(f"    {labels.get(k, k):32s} {v:8.3f} s" for k, v in phases.items())


def _size(path: Path) -> str:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
    return f"{total / 2**20:.1f} MiB"


def main() -> None:
    """Build the releases, start the instant server, measure throughput and resume, print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000, help="rows of the throughput release")
    parser.add_argument("--resume-samples", type=int, default=10_000, help="rows of the resume release")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--length", type=int, default=8192, help="target tokens per prompt (both releases)")
    parser.add_argument("--repeats", type=int, default=3, help="timed resumes")
    parser.add_argument("--top", type=int, default=25, help="profile rows to print")
    parser.add_argument("--keep", action="store_true", help="keep the temporary releases and runs")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="needlework-eval-overhead-"))
    server = InstantServer()
    summary: list[tuple[str, str, str]] = []
    try:
        print(f"instant server pid {server.process.pid} at {server.base_url}; harness pid {os.getpid()}; "
              f"{os.cpu_count()} CPUs; python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.2f}; work dir {tmp}",
              flush=True)

        # 1. Throughput.
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

        # 2. Resume.
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
    finally:
        server.stop()
        if args.keep:
            print(f"\nkept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"\nsummary (mk_niah_basic at {args.length} tokens, concurrency {args.concurrency}, {os.cpu_count()} CPUs, "
          f"load average now {os.getloadavg()[0]:.2f})")
    width = max(len(row[0]) for row in summary)
    for name, value, note in summary:
        print(f"  {name:{width}s}  {value:>22s}  {note}")


if __name__ == "__main__":
    main()
