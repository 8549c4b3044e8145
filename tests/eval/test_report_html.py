"""report.html as a person sees it: real runs of two benchmarks against a loopback server, the report written by
``write_report``, then the page opened in headless Chromium (Selenium and chromedriver) and read and clicked as a
reader would: the leaderboard's values, a filter, a sample with its needles in place, a heatmap cell's samples.

The browser is skipped when absent, unless ``NEEDLEWORK_REQUIRE_BROWSER`` is set (CI), where it must be there.
One browser serves the whole module.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from builders.haystackcraft import HaystackCraftBuild
from builders.haystackcraft import build as build_haystackcraft
from eval.release import open_release
from eval.report import ReportFiles, write_report
from eval.report_html.folding import Layout, Mark, TokenScale, fold
from eval.report_html.needles import locate
from eval.runner import RunSpec, run
from tests.support.releases import eval_release, serve_app  # noqa: F401 - eval_release is a fixture

REQUIRE_BROWSER = "NEEDLEWORK_REQUIRE_BROWSER"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
LAUNCH_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--window-size=1400,1000")
RULER_CONFIGS = ("mk_niah_basic", "mv_niah_basic")
ALPHA, BETA = "alpha-7b", "beta-1b"
BETA_WINDOW = 1800
"""Beta's window in tokens: the release's 2,048-token rows are over it and skipped, the 1,024-token rows sent."""


# The runs ----------------------------------------------------------------------------------------


def sample_index(row_id: str) -> int:
    """The last number of a row id: the sample's index within its config and length (``.../i=0003`` -> 3)."""
    return int(re.findall(r"\d+", row_id)[-1])


def ruler_answer(model: str, row: Mapping[str, Any]) -> str | None:
    """What each model answers a RULERv2 row (None: a context-length error): alpha is wrong on index 1, silent on 2
    and fails index 3 of multi-value 2K; beta is wrong on index 4."""
    index, values = sample_index(row["id"]), ", ".join(row["answers"])
    if model == BETA:
        return "0000000000" if index == 4 else values
    if index == 1:
        return "0000000000"
    if index == 2:
        return ""
    if index == 3 and row["task"] == "mv_niah" and row["target_tokens"] == 2048:
        return None
    return values


def haystackcraft_answer(position: int, row: Mapping[str, Any]) -> str:
    """Alpha's HaystackCraft answers, in turn: right, right with an extra word (F1 below 1), without the
    official phrase (unparsed), wrong."""
    answer = row["answers"][0]
    return [f"The correct answer is {answer}.", f"The correct answer is {answer} Quillon.",
            f"I believe it is {answer}.", "The correct answer is Nowhere."][position % 4]


def chat_app(rows: Mapping[str, dict[str, Any]], positions: Mapping[str, int]) -> web.Application:
    """A chat-completions server answering each prompt as :func:`ruler_answer` and :func:`haystackcraft_answer` say."""
    async def complete(request: web.Request) -> web.Response:
        payload = await request.json()
        content = next(m["content"] for m in payload["messages"] if m["role"] == "user")
        row = rows[content]
        text = (haystackcraft_answer(positions[row["id"]], row) if "doc_ids" in row
                else ruler_answer(payload["model"], row))
        if text is None:
            return web.json_response({"error": {"message": "This model's maximum context length is 2048 tokens.",
                                                "code": "context_length_exceeded"}}, status=400)
        return web.json_response({"id": "c", "object": "chat.completion", "model": payload["model"],
                                  "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                               "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": 4,
                                            "total_tokens": len(content) // 4 + 4}})

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": ALPHA}, {"id": BETA}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    app.router.add_get("/v1/models", models)
    return app


@dataclass(frozen=True)
class Made:
    """The runs, their release rows by id, and the report written over them."""

    runs: dict[str, Path]
    rows: dict[str, dict[str, Any]]
    files: ReportFiles

    def results(self, name: str) -> dict[str, Any]:
        return json.loads((self.runs[name] / "results.json").read_text(encoding="utf-8"))

    def payload(self) -> dict[str, Any]:
        """The sample data embedded in the page, inflated."""
        page = self.files.html.read_text(encoding="utf-8")
        data = re.search(r'<script id="sample-data" type="application/octet-stream">([^<]*)</script>', page)
        assert data is not None
        return json.loads(gzip.decompress(base64.b64decode(data.group(1))))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, eval_release: Path) -> Made:  # noqa: F811 - the fixture
    root = tmp_path_factory.mktemp("report-html")
    haystackcraft = root / "haystackcraft"
    build_haystackcraft(HaystackCraftBuild(world_docs=120, world_questions=6, strategies=("bm25",), sizes=(0, 2_000),
                                           top_k=60, seed=0, tokenizer="qwen2.5"), haystackcraft, progress=False)
    rows: dict[str, dict[str, Any]] = {}
    by_prompt: dict[str, dict[str, Any]] = {}
    for folder, configs in ((eval_release, RULER_CONFIGS), (haystackcraft, ("static-descending",))):
        release = open_release(str(folder))
        for config in configs:
            for row in release.iter_rows(config, "test"):
                rows[row["id"]] = row
                by_prompt[row["input"]] = row
    positions = {row_id: i for i, row_id in enumerate(r for r in rows if "doc_ids" in rows[r])}
    runs = {"alpha": root / "ruler-alpha", "beta": root / "ruler-beta", "haystackcraft": root / "haystackcraft-alpha"}
    with serve_app(chat_app(by_prompt, positions)) as base_url:
        common: dict[str, Any] = {"base_url": base_url, "concurrency": 4, "timeout_s": 5.0, "max_retries": 0}
        run(RunSpec(dataset=str(eval_release), configs=RULER_CONFIGS, model=ALPHA, output_dir=runs["alpha"], **common),
            progress=False)
        run(RunSpec(dataset=str(eval_release), configs=RULER_CONFIGS, model=BETA, output_dir=runs["beta"],
                    max_model_len=BETA_WINDOW, window_tokenizer="qwen2.5", **common), progress=False)
        run(RunSpec(dataset=str(haystackcraft), configs=("static-descending",), model=ALPHA,
                    output_dir=runs["haystackcraft"], **common), progress=False)
    files = write_report(list(runs.values()), root / "report")
    return Made(runs, rows, files)


# The browser -------------------------------------------------------------------------------------


def _missing_browser() -> str | None:
    """Why the browser cannot be driven here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install selenium)"
    if not any(shutil.which(name) for name in CHROMIUM_NAMES):
        return "no Chromium (apt-get install chromium)"
    if not shutil.which("chromedriver"):
        return "no chromedriver (apt-get install chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module, with a fresh profile and the console log kept."""
    reason = _missing_browser()
    if reason:
        if os.environ.get(REQUIRE_BROWSER):
            pytest.fail(f"{reason} ({REQUIRE_BROWSER} is set)")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = next(shutil.which(n) for n in CHROMIUM_NAMES if shutil.which(n))
    with tempfile.TemporaryDirectory(prefix="report-html-profile-") as profile:
        for flag in (*LAUNCH_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        try:
            yield driver
        finally:
            driver.quit()


def open_page(driver: Any, made: Made, fragment: str = "") -> None:
    """Load the report afresh at ``fragment`` and wait until its script has read the samples."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    driver.get(made.files.html.as_uri() + fragment)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.ready") == "true")


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def listed(driver: Any) -> list[Any]:
    return css(driver, "#sample-list li")


# What a reader sees ------------------------------------------------------------------------------


def test_leaderboard_shows_each_runs_headline_as_results_json_has_it(browser: Any, made: Made) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    open_page(browser, made)
    expected = {
        ("rulerv2/task-average", ALPHA): made.results("alpha")["scores"]["task_average"]["score"],
        ("rulerv2/task-average", BETA): made.results("beta")["scores"]["task_average"]["score"],
        ("haystackcraft/f1", ALPHA): made.results("haystackcraft")["scores"]["overall"]["score"],
    }
    headings = [th.text for th in css(browser, "table.leaderboard thead th")]
    assert headings == ["model", "RULERv2 · task average", "HaystackCraft · F1"]
    for (column, model), value in expected.items():
        row = next(tr for tr in css(browser, "table.leaderboard tbody.runs tr")
                   if tr.find_element("css selector", "th").text == model)
        cell = row.find_element("css selector", f'td[data-column="{column}"]')
        scores = cell.find_elements("css selector", "div.score")
        assert [float(s.get_attribute("data-value")) for s in scores] == [pytest.approx(value, abs=1e-6)]
        assert scores[0].text.split("\n")[-1].startswith(f"{100 * value:.1f}")
    assert css(browser, "table.leaderboard tbody.runs tr:nth-child(2) td")[1].text == "—"  # beta ran no HaystackCraft
    beta = css(browser, f'table.leaderboard div.score[data-run="{BETA}"]')[0]
    ActionChains(browser).move_to_element(beta).perform()
    n = made.results("beta")["scores"]["overall"]["n"]
    assert browser.find_element("id", "tip").text.startswith(f"{BETA}: {100 * expected[('rulerv2/task-average', BETA)]:.1f}, n={n}")
    assert console_errors(browser) == []


def test_an_outcome_filter_narrows_the_list_to_those_samples(browser: Any, made: Made) -> None:
    from selenium.webdriver.support.ui import Select

    open_page(browser, made, "#samples")
    total = len(made.payload()["samples"])
    assert browser.find_element("id", "sample-count").text == f"{total} of {total} samples"
    Select(browser.find_element("css selector", '[data-filter="outcome"]')).select_by_value("unparsed")
    # alpha: index 2 of each RULERv2 config and length answered "" (4), a quarter of HaystackCraft without the phrase.
    unparsed_haystackcraft = sum(1 for p in range(sum("doc_ids" in r for r in made.rows.values())) if p % 4 == 2)
    shown = listed(browser)
    assert len(shown) == 4 + unparsed_haystackcraft
    assert {li.find_element("css selector", ".badge").text for li in shown} == {"unparsed"}
    assert browser.find_element("id", "sample-count").text == f"{len(shown)} of {total} samples"
    assert "outcome=unparsed" in browser.current_url
    Select(browser.find_element("css selector", '[data-filter="outcome"]')).select_by_value("skipped_window")
    skipped = listed(browser)
    assert len(skipped) == 12 and all(BETA in li.text and "length 2048" in li.text for li in skipped)
    assert console_errors(browser) == []


def test_a_sample_opens_with_its_needles_lit_up_where_the_row_puts_them(browser: Any, made: Made) -> None:
    row = made.rows["rulerv2/mv_niah_basic/len=2048/i=0000"]
    open_page(browser, made, "#samples?search=&config=mv_niah_basic&len=2048&run=0&q=len%3D2048%2Fi%3D0000")
    (item,) = listed(browser)
    item.click()
    marks = css(browser, "#sample-view .prompt mark.m-needle")
    assert [(int(m.get_attribute("data-start")), m.text) for m in marks] == [
        (needle["char_offset"], needle["text"]) for needle in row["needles"]]
    tags = [t.text for t in css(browser, "#sample-view .prompt .tag.m-needle")]
    assert tags == [f"needle {i + 1} · depth {n['depth_percent']:.4g}%" for i, n in enumerate(row["needles"])]
    folds = [f.text for f in css(browser, "#sample-view .prompt .fold")]
    assert folds and all(re.fullmatch(r"⋯ ≈[\d,]+ tokens folded ⋯", f) for f in folds)
    prompt_text = browser.find_element("css selector", "#sample-view .prompt").text
    assert len(prompt_text) < len(row["input"]) and row["input"][:60] in prompt_text
    expected = [li.text for li in css(browser, "#sample-view .references li")]
    assert expected == list(row["answers"])
    card = browser.find_element("css selector", "#sample-view .answer-card")
    assert card.find_element("css selector", ".badge").text == "correct"
    assert [m.text for m in card.find_elements("css selector", ".response mark.m-hit")] == list(row["answers"])
    assert console_errors(browser) == []


def test_a_haystackcraft_sample_shows_its_gold_documents_and_what_the_scorer_extracted(browser: Any, made: Made) -> None:
    open_page(browser, made, "#samples?outcome=partial")
    item = listed(browser)[0]
    row = made.rows[item.find_element("css selector", ".rid").text]
    item.click()
    card = browser.find_element("css selector", "#sample-view .answer-card")
    extracted = "".join(m.text for m in card.find_elements("css selector", ".response mark.m-extracted"))
    assert extracted == f"{row['answers'][0]} Quillon"  # the part that is also the reference is a mark of its own
    assert "Why: score" in card.text and "; em 0;" in card.text
    tags = [t.text for t in css(browser, "#sample-view .prompt .tag.m-gold")]
    gold = [row["doc_ids"][p] for p in row["needle_positions"]]
    assert tags == [f"gold document {p + 1} of {len(row['doc_ids'])} (doc_id {d})"
                    for p, d in zip(row["needle_positions"], gold)]
    answers = {m.text.lower() for m in css(browser, "#sample-view .prompt mark.m-answer")}
    assert answers == {row["answers"][0].lower()}
    assert console_errors(browser) == []


def test_a_heatmap_cell_tells_its_value_on_hover_and_leads_to_its_samples(browser: Any, made: Made) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    open_page(browser, made, "#heatmaps")
    cells = css(browser, 'section.heatmap[data-config="mk_niah_basic"] table.hm[data-run="0"] td.hm-cell')
    assert cells, "no heatmap cell for mk_niah_basic"
    cell = max(cells, key=lambda c: int(c.get_attribute("data-n")))
    n = int(cell.get_attribute("data-n"))
    ActionChains(browser).move_to_element(cell).perform()
    tip = browser.find_element("id", "tip")
    assert tip.is_displayed() and tip.text.endswith(f"{100 * float(cell.get_attribute('data-value')):.2f}% (n={n})")
    cell.find_element("css selector", "a").click()
    assert browser.find_element("css selector", "#samples").is_displayed()
    shown = listed(browser)
    assert len(shown) == n
    link = dict(part.split("=") for part in browser.current_url.split("?", 1)[1].split("&"))
    for li in shown:
        assert f"mk_niah_basic · length {link['len']} · depth {link['depth']}%" in li.text and ALPHA in li.text
    assert console_errors(browser) == []


def test_two_runs_of_one_row_stand_side_by_side(browser: Any, made: Made) -> None:
    open_page(browser, made, "#samples?run=1&config=mk_niah_basic&len=1024&q=i%3D0001")
    (item,) = listed(browser)
    item.click()
    cards = css(browser, "#sample-view .answer-card")
    assert [(c.find_element("css selector", ".badge").text, c.find_element("css selector", ".run-label").text)
            for c in cards] == [("wrong", f"{ALPHA} (ruler-alpha)"), ("correct", BETA)]
    assert console_errors(browser) == []


def test_main_view_screenshot(browser: Any, made: Made, tmp_path: Path) -> None:
    from matplotlib.image import imread

    open_page(browser, made)
    shot = tmp_path / "report-main-view.png"
    assert browser.save_screenshot(str(shot))
    pixels = imread(shot)
    assert shot.stat().st_size > 20_000 and pixels.shape[0] > 500 and pixels.shape[1] > 1000
    assert pixels[..., :3].std() > 0.05  # text, table lines and the plots, not a blank page
    assert console_errors(browser) == []


# The file ----------------------------------------------------------------------------------------


def test_the_page_is_one_offline_file_with_only_windows_of_the_prompts(made: Made) -> None:
    page = made.files.html.read_text(encoding="utf-8")
    assert made.files.html == made.files.markdown.parent / "report.html"
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page) and "<script src" not in page
    assert "url(http" not in page and "@import" not in page
    data = made.payload()
    inputs = [row["input"] for row in made.rows.values()]
    raw = json.dumps(data, ensure_ascii=False)
    assert not any(text in raw for text in inputs)
    kept = sum(len(text) for prompt in data["prompts"] for _, text in prompt["parts"])
    assert kept < 0.5 * sum(prompt["n"] for prompt in data["prompts"])
    assert len(data["prompts"]) == len(made.rows)  # a row two runs asked is embedded once
    assert made.files.html.stat().st_size < 2_000_000


def test_same_runs_give_the_same_page(made: Made, tmp_path: Path) -> None:
    start = time.monotonic()
    again = write_report(list(made.runs.values()), tmp_path)
    assert again.html is not None and again.html.read_bytes() == made.files.html.read_bytes()
    assert time.monotonic() - start < 20


def test_results_alone_still_give_a_leaderboard_and_say_why_there_are_no_samples(made: Made, tmp_path: Path) -> None:
    alone = tmp_path / "results-only"
    alone.mkdir()
    shutil.copy(made.runs["alpha"] / "results.json", alone / "results.json")
    files = write_report([alone], tmp_path / "report")
    page = files.html.read_text(encoding="utf-8")
    assert 'data-column="rulerv2/task-average"' in page
    data = json.loads(gzip.decompress(base64.b64decode(
        re.search(r'type="application/octet-stream">([^<]*)<', page).group(1))))
    assert data["samples"] == [] and data["runs"][0]["notes"] == [
        "no run file in the run directory (results alone): no samples to show"]


# Folding and finding the evidence, without a browser ---------------------------------------------


def test_fold_keeps_the_ends_and_the_marks_within_its_budget_and_counts_the_rest() -> None:
    text = "".join(f"line {i:05d} of filler text\n" for i in range(4000))
    needles = [text.index(f"line {i:05d}") for i in (500, 2000, 3500)]
    marks = [Mark(start, start + 10, "needle", f"needle {k + 1}") for k, start in enumerate(needles)]
    scale = TokenScale(text, [(needles[1], 20_000)], total_tokens=40_000)
    folded = fold(text, marks, Layout(head=100, tail=100, around=60, long_mark=300, budget=500), scale)
    assert folded.parts[0][0] == 0 and folded.parts[-1][0] + len(folded.parts[-1][1]) == len(text)
    assert [m.label for m in folded.marks] == ["needle 1", "needle 2"] and folded.hidden == 1
    for mark in folded.marks:
        assert any(start <= mark.start and mark.end <= start + len(part) for start, part in folded.parts)
    assert all(text[start - 1] == "\n" for start, _ in folded.parts[1:])  # folds fall between lines
    assert all(text[start + len(part)] == "\n" for start, part in folded.parts[:-1])
    assert len(folded.folds) == len(folded.parts) + 1 and folded.folds[0] == folded.folds[-1] == 0
    kept = sum(len(part) for _, part in folded.parts)
    assert sum(folded.folds) == pytest.approx(40_000 * (1 - kept / len(text)), rel=0.05)
    assert scale.between(0, needles[1]) == 20_000 and scale.between(needles[1], len(text)) == 20_000


def test_embs_reflist_documents_are_found_by_their_header_and_ranked_in_rag_rows() -> None:
    documents = {7: ("Alpha", "Alpha was founded in 1901."), 12: ("Beta", "Beta lies on the river Quell."),
                 70: ("Gamma", "Gamma is a town.")}
    context = "".join(f"[DocID={d}]\n{title}\n{text}\n\n" for d, (title, text) in documents.items())
    prompt = context + "Question: Where is Beta?\nList the IDs."
    row = {"ref_list": [12, 99], "retrieved": [70, 12, 7], "answers": ["river Quell"], "context": context,
           "context_tokens": 40}
    located = locate("embs", row, prompt, ["12", "99"])
    (ref, answer) = located.marks
    assert prompt[ref.start:ref.end] == "[DocID=12]\nBeta\nBeta lies on the river Quell."
    assert ref.label == "RefList document 12 · retrieved at rank 2"
    assert (prompt[answer.start:answer.end], answer.kind) == ("river Quell", "answer")
    assert located.missing == ("RefList document 99 (not retrieved)",)


def test_sequential_needles_are_labelled_with_their_rank_and_a_moved_needle_is_searched() -> None:
    prompt = "Filler. Second, she joined the firm. More filler. First, she studied law. End."
    row = {"needles": [{"text": "Second, she joined the firm.", "answer_index": 1, "char_offset": 8, "token_offset": 2},
                       {"text": "First, she studied law.", "answer_index": 0, "char_offset": 3, "token_offset": 9}],
           "n_tokens": 20}
    located = locate("sequential-niah", row, prompt, [])
    assert [(prompt[m.start:m.end], m.label) for m in located.marks] == [
        ("Second, she joined the firm.", "rank 2"), ("First, she studied law.", "rank 1")]
    assert "string search" in located.how


def test_reasoning_written_into_the_response_is_folded_as_reasoning_apart_from_the_answer() -> None:
    """A model served without a reasoning parser writes its thinking before ``</think>`` in the content: that part
    is shown (and budgeted) as reasoning, the answer after it as the response with its marks in place. Kept in the
    response it cost twice the page bytes of the same reasoning sent as ``reasoning_content`` (benchmarks/report_html.py
    at 10,000 samples: 28.8 MB)."""
    from eval.benchmarks import get_task
    from eval.report_html.folding import REASONING_LAYOUT
    from eval.report_html.samples import sample_view
    from eval.task import TaskOptions

    options = TaskOptions(thinking_end="</think>")
    task = get_task("rulerv2/mk_niah_basic", options)
    thinking = "".join(f"Step {i}: I look through the text for the number once more.\n" for i in range(400))
    text = f"{thinking}</think>The special magic number is 5349789098."
    entry = {"config": "mk_niah_basic", "row_id": "r0", "task": "rulerv2/mk_niah_basic", "metadata": {}}
    record = {"text": text, "references": ["5349789098"], "error": None}
    view = sample_view(0, entry, record, task, "rulerv2", options, None)
    answer = "The special magic number is 5349789098."
    assert view["resp"]["n"] == len(answer) and view["resp"]["parts"] == [[0, answer]]
    assert [answer[start:end] for start, end, kind, _ in view["resp"]["marks"] if kind == "hit"] == ["5349789098"]
    assert view["rsn"] == fold(f"{thinking}</think>", [], REASONING_LAYOUT).record()  # as reasoning_content is
    assert sum(len(part) for _, part in view["rsn"]["parts"]) < len(thinking) / 10
    assert view["o"] == "correct"
