"""Size and load time of ``report.html`` over long-context runs (issue 43). Run by hand; the summary goes in the issue note.

Target: a report over 10,000 samples of 128K tokens stays under 25 MB, because the page embeds only windows
around the needles, read again from the release rows, never whole prompts.

1. A release: ``--samples`` RULERv2-shaped rows of ``--prompt-tokens`` (128K) tokens, half ``mk_niah_basic``
   (one needle), half ``mv_niah_basic`` (four), written by the builders' ``ReleaseWriter`` with RULERv2's
   schema, card and templates (intro, needle, question, answer prefix). Only the haystack differs from
   ``needlework build rulerv2``: real prose from the shared data (``$NEEDLEWORK_SHARED_DATA``, else
   ``../shared/data`` beside the repository: Paul Graham's essays, L-Eval's long inputs, the HippoRAG
   Wikipedia passages) cut at sentence ends, instead of RULERv2's needle-shaped key
   lines, so the windows the page keeps compress as prose does (the harder case). Token counts
   (``n_tokens``, each needle's ``token_offset``) add the Qwen2.5 counts of the pieces; one whole row is
   encoded to show how close they are.
2. ``--runs`` runs of that release through the real harness (``eval.runner.run``, openai backend) against
   a scripted OpenAI-compatible server on loopback, in a thread of this process. The answer to a row is a
   function of the run and the row: about 60% right, 12% partial (half the values; a wrong number for
   one-needle rows), 16% wrong, 9% empty (unparsed) and 3% an HTTP 400 context-length error. Each answer
   is preceded by ``--reasoning-chars`` characters of reasoning (a slice of the same prose, so it
   compresses as text does): in the content before ``</think>`` in runs 1, 3, ... (a server without a
   reasoning parser), in ``reasoning_content`` in runs 2, 4, ... (vLLM's reasoning parser).
3. ``eval.report.write_report`` over the runs, in a fresh (spawned) process: wall and CPU seconds, the
   part spent in ``write_html_report``, peak RSS. Then the page: total bytes, the sample payload (base64
   of gzip of JSON) and what it holds inflated, embedded PNG plots, the rest (HTML, CSS, JS, tables);
   bytes per sample.
4. The page in headless Chromium (selenium with chromedriver, as tests/eval/test_report_html.py drives
   it), ``--loads`` times: milliseconds from navigation start to DOMContentLoaded and until the page
   says it is ready (``body[data-ready]``, the sample data inflated and the filters filled; stamped in
   the page by a MutationObserver injected before it loads); then, timed in the page up to the next
   painted frame, an outcome filter (``wrong``) and opening the first listed sample; the JS heap and
   the memory (PSS) of all Chromium processes with the page open.

Everything is written into a temporary folder (under ``--workdir``), removed at the end unless ``--keep``.

Usage::

    python benchmarks/report_html.py                                  # 2,000 samples x 2 runs, 128K tokens
    python benchmarks/report_html.py --samples 10000 --runs 1         # the issue's 10,000-sample target
    python benchmarks/report_html.py --samples 10000 --runs 1 --reasoning-chars 0   # the evaluation guide's figure
    python benchmarks/report_html.py --samples 200 --prompt-tokens 32k --reasoning-chars 0 --keep
    python benchmarks/report_html.py --workdir /data/tmp --summary report-html-bench.md
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np
from aiohttp import web

from needlework.cliutil import TokenCount
from needlework.lengths import TOKENS_HELP

CONFIGS = ("mk_niah_basic", "mv_niah_basic")
TASK_OF = {"mk_niah_basic": "mk_niah", "mv_niah_basic": "mv_niah"}
NEEDLES = {"mk_niah_basic": 1, "mv_niah_basic": 4}
GENERATION_RESERVE = 128
UNIT_CHARS = 400
"""Haystack units are whole sentences, at least this many characters (a needle goes between two units)."""
TARGET_SAMPLES, TARGET_BYTES = 10_000, 25_000_000
SHARED_DATA = Path(os.environ.get("NEEDLEWORK_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
KEY_AT_END = re.compile(r"for (\S+) mentioned in the provided text (?:is|are)$")
SAMPLE_DATA = re.compile(r'<script id="sample-data" type="application/octet-stream">([^<]*)</script>')
PNG_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")
READY_STAMP = """
new MutationObserver((_, observer) => {
  if (document.body && document.body.dataset.ready === "true") {
    window.__readyMs = performance.now();
    observer.disconnect();
  }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
"""
"""Injected before the page's own script: stamps when the page marks itself ready, in ms since navigation start."""
TIMED_TO_PAINT = """
const [action, done] = [arguments[0], arguments[arguments.length - 1]];
const t0 = performance.now();
if (action === "filter") {
  const select = document.querySelector('#filters [data-filter="outcome"]');
  select.value = "wrong";
  select.dispatchEvent(new Event("change"));
} else {
  document.querySelector("#sample-list li").click();
}
requestAnimationFrame(() => setTimeout(() => done({
  ms: performance.now() - t0,
  count: document.getElementById("sample-count").textContent,
  marks: document.querySelectorAll("#sample-view .prompt mark").length,
  answers: document.querySelectorAll("#sample-view .answer-card").length,
})));
"""
"""Runs one reader action in the page and answers after the next frame is painted (its layout and paint included)."""


# ---------------------------------------------------------------------------------------------
# 1. The release


@dataclass(frozen=True)
class Haystack:
    """The filler: units of real prose, each with the space that joins it to the one before, and their token counts."""

    units: list[str]
    tokens: np.ndarray
    text: str

    @classmethod
    def from_shared_data(cls, counter: Any, data: Path = SHARED_DATA) -> Haystack:
        """Paul Graham's essays, L-Eval's long inputs and the HippoRAG passages, documents in a seeded order, cut at
        sentence ends into units of at least :data:`UNIT_CHARS` characters; each unit counted once."""
        documents = [p.read_text(encoding="utf-8") for p in sorted((data / "paul_graham_essays").glob("*.txt"))]
        for path in sorted((data / "leval").rglob("*.jsonl")):
            documents += [json.loads(line)["input"] for line in path.read_text(encoding="utf-8").splitlines()]
        for path in sorted((data / "multihop_hipporag").glob("*_corpus.json")):
            passages = json.loads(path.read_text(encoding="utf-8"))
            documents += ([f"{p['title']}\n{p['text']}" for p in passages] if isinstance(passages, list)
                          else [f"{title}\n{''.join(sentences)}" for title, sentences in passages.items()])
        random.Random(0).shuffle(documents)
        units: list[str] = []
        for document in documents:
            unit = ""
            for sentence in re.split(r"(?<=[.!?])\s+", document.strip()):
                unit = f"{unit} {sentence}" if unit else f" {sentence}"
                if len(unit) >= UNIT_CHARS:
                    units.append(unit)
                    unit = ""
            if unit:
                units.append(unit)
        return cls(units, np.asarray(counter.count_batch(units), dtype=np.int64), "".join(units))

    def take(self, start: int, tokens: int) -> list[int]:
        """Indexes of the units from ``start`` on (wrapping round) until they hold at least ``tokens`` tokens."""
        taken, total = [], 0
        while total < tokens:
            index = (start + len(taken)) % len(self.units)
            taken.append(index)
            total += int(self.tokens[index])
        return taken


@dataclass(frozen=True)
class Key:
    """What the scripted server needs to answer a row: its id and needle values."""

    row_id: str
    values: tuple[str, ...]


def make_row(config: str, index: int, key: str, target: int, haystack: Haystack, counter: Any) -> dict[str, Any]:
    """One RULERv2-shaped row of about ``target - GENERATION_RESERVE`` tokens: intro, haystack with the needles
    between units at seeded depths, question and answer prefix, with the row's needle offsets and token counts."""
    from generators.rulerv2.templates import NIAH_BASIC

    template = NIAH_BASIC[TASK_OF[config]]
    rng = random.Random(f"{config}/{index}")
    values = [str(v) for v in rng.sample(range(10**9, 10**10), NEEDLES[config])]
    needles = [" " + template.needle.format(key=key, value=v) for v in values]
    intro = template.intro + "\n"
    closing = "\n" + template.question.format(key=key) + template.answer_prefix.format(key=key)
    fixed = [int(count) for count in counter.count_batch([intro, closing, *needles])]
    units = haystack.take(rng.randrange(len(haystack.units)), target - GENERATION_RESERVE - sum(fixed))
    at = sorted(rng.randrange(len(units) + 1) for _ in needles)
    pieces, offsets, chars, tokens = [intro], [], len(intro), fixed[0]
    for position in range(len(units) + 1):
        while at and at[0] == position:
            at.pop(0)
            needle, count = needles[len(offsets)], fixed[2 + len(offsets)]
            offsets.append((chars + 1, tokens))  # the text starts after the joining space
            pieces.append(needle)
            chars, tokens = chars + len(needle), tokens + count
        if position < len(units):
            unit = haystack.units[units[position]]
            pieces.append(unit)
            chars, tokens = chars + len(unit), tokens + int(haystack.tokens[units[position]])
    pieces.append(closing)
    n_tokens = tokens + fixed[1]
    return {
        "id": f"rulerv2/{config}/len={target}/i={index:05d}", "input": "".join(pieces), "answers": values,
        "query": key, "answer_prefix": template.answer_prefix.format(key=key), "task": TASK_OF[config],
        "level": "basic", "order": None, "shots": 0, "source": "synthetic", "qid": None, "target_tokens": target,
        "n_tokens": n_tokens, "generation_reserve": GENERATION_RESERVE, "tokenizer": counter.name,
        "n_items": len(units), "golden": False,
        "needles": [{"text": needle.strip(), "char_offset": c, "token_offset": t,
                     "depth_percent": round(100 * t / n_tokens, 4), "source_id": None}
                    for needle, (c, t) in zip(needles, offsets)],
    }


def write_release(out: Path, samples: int, target: int, haystack: Haystack, counter: Any) -> tuple[dict[str, Key], dict[str, Any]]:
    """Write the release (``samples`` rows, split between the two configs) with the builders' ``ReleaseWriter``.

    Returns:
        The rows' keys (the queried key -> :class:`Key`), and facts: seconds, rows, mean ``n_tokens``, one
        row's summed count against its whole encode, bytes on disk.
    """
    from builders.release import ReleaseWriter
    from builders.rulerv2 import FACTS, FEATURES, load_key_words

    words, _ = load_key_words()
    pairs = random.Random(0).sample(range(len(words.adjectives) * len(words.nouns)), samples)
    keys = [f"{words.adjectives[p // len(words.nouns)]}-{words.nouns[p % len(words.nouns)]}" for p in pairs]
    manifest = {"benchmark": "rulerv2", "seed": 0, "inputs": {},
                "tokenizer": {"name": counter.name, "fingerprint": counter.fingerprint},
                "build": {"command": f"python benchmarks/report_html.py (synthesized: {samples} rows of {target:,} tokens)"}}
    found: dict[str, Key] = {}
    n_tokens: list[int] = []
    check: tuple[int, int] | None = None
    begin = time.perf_counter()
    with ReleaseWriter(out, FACTS, manifest) as release:
        for config in CONFIGS:
            release.declare(config, FEATURES)
        for number, key in enumerate(keys):
            config = CONFIGS[number % 2]
            row = make_row(config, number // 2, key, target, haystack, counter)
            release.write(config, "test", row)
            found[key] = Key(row["id"], tuple(row["answers"]))
            n_tokens.append(row["n_tokens"])
            if check is None:
                check = (row["n_tokens"], counter.count(row["input"]))
    assert check is not None
    return found, {"seconds": time.perf_counter() - begin, "rows": samples, "mean_tokens": statistics.mean(n_tokens),
                   "summed": check[0], "encoded": check[1], "bytes": folder_bytes(out)}


def folder_bytes(folder: Path) -> int:
    """Bytes of every file under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# ---------------------------------------------------------------------------------------------
# 2. The runs


def scripted_reply(run: int, key: Key, query: str, haystack: Haystack, reasoning_chars: int) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of run ``run``'s answer to the row of ``key``: see the module docstring for the mix."""
    pick = int(hashlib.sha256(f"{run}/{key.row_id}".encode()).hexdigest()[:12], 16)
    bucket, values = pick % 100, list(key.values)
    if bucket >= 97:
        return 400, {"error": {"message": "This model's maximum context length is 131072 tokens. However, you "
                                          "requested 131200 tokens.", "code": "context_length_exceeded"}}
    if bucket < 60:
        said = values
    elif bucket < 72 and len(values) > 1:
        said = values[: len(values) // 2]
    else:
        said = [str(10**9 + pick % (9 * 10**9))] if bucket < 88 else []
    answer = f"The special magic numbers for {query} are: {', '.join(said)}." if said else ""
    message: dict[str, Any] = {"role": "assistant", "content": answer}
    if reasoning_chars:
        start = haystack.text.find(" ", pick % max(1, len(haystack.text) - 2 * reasoning_chars))
        reasoning = f"Let me look for the magic numbers for {query}.{haystack.text[start:start + reasoning_chars]}"
        if run % 2:
            message["reasoning_content"] = reasoning
        else:
            message["content"] = f"{reasoning}</think>\n\n{answer}"
    return 200, {"id": "chatcmpl-scripted", "object": "chat.completion", "model": f"scripted-{run + 1}",
                 "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def chat_app(keys: dict[str, Key], haystack: Haystack, reasoning_chars: int) -> web.Application:
    """The scripted chat-completions server: finds the row by the key its prompt ends with, answers as
    :func:`scripted_reply` says for the run its model name (``scripted-<n>``) names."""
    async def complete(request: web.Request) -> web.Response:
        payload = await request.json()
        query = KEY_AT_END.search(payload["messages"][-1]["content"][-400:]).group(1)  # type: ignore[union-attr]
        status, body = scripted_reply(int(payload["model"].rsplit("-", 1)[1]) - 1, keys[query], query, haystack,
                                      reasoning_chars)
        return web.json_response(body, status=status)

    app = web.Application(client_max_size=256 * 2**20)
    app.router.add_post("/v1/chat/completions", complete)
    return app


@contextmanager
def serve(app: web.Application) -> Iterator[str]:
    """Serve ``app`` on loopback in a thread of this process; yields its ``/v1`` base URL."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.run_until_complete(runner.cleanup())
        loop.close()


def make_runs(release: Path, runs: int, base_url: str, work: Path) -> tuple[list[Path], list[float]]:
    """``runs`` runs of both configs through ``eval.runner.run``; their directories and wall seconds."""
    from eval.runner import RunSpec, run

    directories, seconds = [], []
    for index in range(runs):
        spec = RunSpec(dataset=str(release), configs=CONFIGS, model=f"scripted-{index + 1}", base_url=base_url,
                       concurrency=8, output_dir=work / f"run-{index + 1}", max_error_rate=0.5)
        begin = time.perf_counter()
        run(spec, progress=False)
        seconds.append(time.perf_counter() - begin)
        directories.append(spec.output_dir)  # type: ignore[arg-type]
        click.echo(f"  run {index + 1}: {seconds[-1]:.1f} s", err=True)
    return directories, seconds


# ---------------------------------------------------------------------------------------------
# 3. The report and the page's size


def peak_rss_mib() -> float:
    """This process's own peak resident set size (``VmHWM``), in MiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def _write_report_child(run_dirs: list[str], out: str) -> dict[str, float]:
    """In a fresh process: ``write_report`` timed whole, and its ``write_html_report`` call apart."""
    from eval import report

    html_s = 0.0
    write_html = report.write_html_report

    def timed(*args: Any, **kwargs: Any) -> Path:
        nonlocal html_s
        begin = time.perf_counter()
        path = write_html(*args, **kwargs)
        html_s += time.perf_counter() - begin
        return path

    report.write_html_report = timed
    usage = resource.getrusage(resource.RUSAGE_SELF)
    begin = time.perf_counter()
    report.write_report([Path(d) for d in run_dirs], Path(out))
    seconds = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"seconds": seconds, "html_s": html_s, "peak_rss_mib": peak_rss_mib(),
            "cpu_s": after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime}


def write_report_in_child(run_dirs: Sequence[Path], out: Path) -> dict[str, float]:
    """:func:`_write_report_child` in a spawned process, so its peak memory is its own."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_write_report_child, [str(d) for d in run_dirs], str(out)).result()


def page_sizes(page: Path) -> dict[str, Any]:
    """The page's bytes: total, sample payload, embedded PNGs, the rest; what the payload holds inflated."""
    text = page.read_text(encoding="utf-8")
    payload = SAMPLE_DATA.search(text)
    assert payload is not None, f"{page}: no sample data"
    data = json.loads(gzip.decompress(base64.b64decode(payload.group(1))))
    images = sum(len(uri) for uri in PNG_URI.findall(text))
    total = page.stat().st_size
    inflated = {part: len(json.dumps(data[part], ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
                for part in ("samples", "prompts")}
    return {"total": total, "payload": len(payload.group(1)), "images": images,
            "rest": total - len(payload.group(1)) - images, "samples": len(data["samples"]),
            "prompts": len(data["prompts"]), "inflated": inflated, "outcomes": Counter(s["o"] for s in data["samples"])}


# ---------------------------------------------------------------------------------------------
# 4. The page in Chromium


def browser_paths() -> tuple[str, str]:
    """Chromium and chromedriver on PATH (exits with a one-line reason if either is missing)."""
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        raise click.ClickException("needs Chromium and chromedriver on PATH (apt-get install chromium chromium-driver)")
    return browser, driver


def chromium_pss_mib(driver: Any) -> float:
    """Memory of every process chromedriver started (browser, renderers, GPU and utility), in MiB: the sum of their
    proportional set sizes, so pages shared between them count once."""
    import psutil

    processes = psutil.Process(driver.service.process.pid).children(recursive=True)
    return sum(p.memory_full_info().pss for p in processes if p.is_running()) / 2**20


def browser_timings(page: Path, loads: int) -> dict[str, Any]:
    """Load the page ``loads`` times in a fresh headless Chromium, then filter and open a sample (see module docstring)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    browser, chromedriver = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    with tempfile.TemporaryDirectory(prefix="report-html-profile-") as profile:
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--no-first-run", "--window-size=1400,1000",
                     f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(chromedriver))
        try:
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": READY_STAMP})
            driver.set_script_timeout(120)
            blank_pss = chromium_pss_mib(driver)
            loaded = []
            for _ in range(loads):
                driver.get("about:blank")
                driver.get(page.as_uri())
                ready = WebDriverWait(driver, 300, poll_frequency=0.05).until(
                    lambda d: d.execute_script("return window.__readyMs || null"))
                parsed = driver.execute_script(
                    "return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
                loaded.append((parsed, ready))
            count = driver.find_element("id", "sample-count").text
            filtered = driver.execute_async_script(TIMED_TO_PAINT, "filter")
            opened = driver.execute_async_script(TIMED_TO_PAINT, "open")
            return {"loads": loaded, "count": count, "filter": filtered, "open": opened,
                    "heap_mib": driver.execute_script("return performance.memory.usedJSHeapSize") / 2**20,
                    "pss_mib": chromium_pss_mib(driver), "blank_pss_mib": blank_pss,
                    "errors": [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"],
                    "version": driver.capabilities.get("browserVersion", "?")}
        finally:
            driver.quit()


# ---------------------------------------------------------------------------------------------
# Summary


def mb(count: float) -> str:
    """Bytes as decimal megabytes (the unit of the target)."""
    return f"{count / 1e6:,.2f} MB"


def summary(options: dict[str, Any], release: dict[str, Any], run_s: list[float], report: dict[str, float],
            sizes: dict[str, Any], browser: dict[str, Any]) -> str:
    """The markdown summary: what was measured under which options, then the page and the browser tables."""
    samples = sizes["samples"]
    outcomes = ", ".join(f"{name} {count:,}" for name, count in sizes["outcomes"].most_common())
    if samples >= TARGET_SAMPLES:
        verdict = ("OK" if sizes["total"] < TARGET_BYTES else "MISSED") + f": {mb(sizes['total'])} for {samples:,} samples"
    else:
        verdict = f"not checked: {samples:,} samples, the target is about {TARGET_SAMPLES:,}"
    parsed = [p for p, _ in browser["loads"]]
    ready = [r for _, r in browser["loads"]]
    lines = [
        f"### report.html over {samples:,} samples of {options['prompt_tokens']:,}-token prompts",
        "",
        (f"`{options['command']}`: {options['samples']:,} rows ({', '.join(CONFIGS)}) x {options['runs']} run(s), "
         f"reasoning {options['reasoning_chars']:,} characters per answer; rows of {release['mean_tokens']:,.0f} tokens on "
         f"average (one row: {release['summed']:,} summed, {release['encoded']:,} encoded whole); release "
         f"{mb(release['bytes'])} on disk, written in {release['seconds']:.1f} s; runs {', '.join(f'{s:.1f} s' for s in run_s)}. "
         f"{os.cpu_count()} CPUs, load average {options['load']:.1f} at the start; Chromium {browser['version']}."),
        "",
        f"Outcomes: {outcomes}.",
        "",
        "| page | value |",
        "|---|---:|",
        f"| samples / distinct prompts | {samples:,} / {sizes['prompts']:,} |",
        f"| page (total) | {mb(sizes['total'])} |",
        f"| sample payload (base64 of gzip) | {mb(sizes['payload'])} |",
        f"| payload inflated: samples / prompts JSON | {mb(sizes['inflated']['samples'])} / {mb(sizes['inflated']['prompts'])} |",
        f"| embedded PNG plots | {mb(sizes['images'])} |",
        f"| rest (HTML, CSS, JS, tables, SVG) | {mb(sizes['rest'])} |",
        f"| bytes per sample (page / payload) | {sizes['total'] / samples:,.0f} / {sizes['payload'] / samples:,.0f} |",
        f"| write_report (of which write_html_report) | {report['seconds']:.1f} s ({report['html_s']:.1f} s) |",
        f"| write_report CPU / peak RSS | {report['cpu_s']:.1f} s / {report['peak_rss_mib']:,.0f} MiB |",
        f"| target: under 25 MB at {TARGET_SAMPLES:,} samples | {verdict} |",
        "",
        "| in headless Chromium | value |",
        "|---|---:|",
        f"| ready (first load; median of {len(ready)}) | {ready[0]:,.0f} ms; {statistics.median(ready):,.0f} ms |",
        f"| DOMContentLoaded (first; median) | {parsed[0]:,.0f} ms; {statistics.median(parsed):,.0f} ms |",
        f"| filter outcome = wrong, to the next frame | {browser['filter']['ms']:,.0f} ms ({browser['filter']['count']}) |",
        (f"| open the first listed sample, to the next frame | {browser['open']['ms']:,.0f} ms ({browser['open']['answers']} "
         f"answer card(s), {browser['open']['marks']} needle mark(s)) |"),
        f"| JS heap used | {browser['heap_mib']:,.0f} MiB |",
        f"| Chromium PSS, all processes (on about:blank) | {browser['pss_mib']:,.0f} MiB ({browser['blank_pss_mib']:,.0f} MiB) |",
        f"| console errors | {len(browser['errors'])} |",
    ]
    return "\n".join(lines)


@click.command()
@click.option("--samples", type=click.IntRange(min=2), default=2000, show_default=True,
              help="Rows of the release (half per config), each answered once by every run.")
@click.option("--runs", type=click.IntRange(min=1), default=2, show_default=True, help="Runs over the release.")
@click.option("--prompt-tokens", type=TokenCount(minimum=2048), default="128k", show_default=True,
              help="Target tokens per prompt (Qwen2.5). " + TOKENS_HELP)
@click.option("--reasoning-chars", type=click.IntRange(min=0), default=4000, show_default=True,
              help="Characters of reasoning before each answer (0: none): in the content before </think> in runs 1, 3, ..., "
                   "in reasoning_content in runs 2, 4, ...")
@click.option("--loads", type=click.IntRange(min=1), default=3, show_default=True, help="Page loads in Chromium.")
@click.option("--workdir", type=click.Path(file_okay=False), default=None,
              help="Folder for the temporary release, runs and report (default: the system's temp folder).")
@click.option("--keep", is_flag=True, help="Keep the temporary folder (to open the page).")
@click.option("--summary", "summary_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the markdown summary here (and the raw figures as JSON beside it).")
def main(samples: int, runs: int, prompt_tokens: int, reasoning_chars: int, loads: int, workdir: str | None,
         keep: bool, summary_path: str | None) -> None:
    """Measure report.html's size, write time and load time over long-context runs; print a markdown summary."""
    from needlework.tokenizers import load_tokenizer

    browser_paths()
    options = {"command": "python benchmarks/report_html.py " + " ".join(sys.argv[1:]), "samples": samples,
               "runs": runs, "prompt_tokens": prompt_tokens, "reasoning_chars": reasoning_chars, "load": os.getloadavg()[0]}
    if workdir:
        Path(workdir).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="report-html-bench-", dir=workdir))
    try:
        counter = load_tokenizer("qwen2.5")
        haystack = Haystack.from_shared_data(counter)
        click.echo(f"haystack: {len(haystack.units):,} units, {int(haystack.tokens.sum()):,} tokens; writing "
                   f"{samples:,} rows of {prompt_tokens:,} tokens into {work} ...", err=True)
        keys, release = write_release(work / "release", samples, prompt_tokens, haystack, counter)
        click.echo(f"  release: {release}", err=True)
        with serve(chat_app(keys, haystack, reasoning_chars)) as base_url:
            run_dirs, run_s = make_runs(work / "release", runs, base_url, work)
        click.echo("write_report in a fresh process ...", err=True)
        report = write_report_in_child(run_dirs, work / "report")
        sizes = page_sizes(work / "report" / "report.html")
        click.echo(f"  {report}; page {sizes['total']:,} bytes. Chromium ...", err=True)
        browser = browser_timings(work / "report" / "report.html", loads)
        text = summary(options, release, run_s, report, sizes, browser)
    finally:
        if keep:
            click.echo(f"kept {work} (the page: {work / 'report' / 'report.html'})", err=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    click.echo(text)
    if summary_path:
        Path(summary_path).write_text(text + "\n", encoding="utf-8")
        raw = {"options": options, "release": release, "run_s": run_s, "report": report, "sizes": sizes, "browser": browser}
        Path(summary_path).with_suffix(".json").write_text(json.dumps(raw, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
