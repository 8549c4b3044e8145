"""EverMemBench-S through ``python -m eval``: localization and QA on one ``[DocID=n]`` interface, the judge, the window.

Releases are built by the real builder on the synthetic world (a 4K-base ladder for the loopback,
the paper's 64K base for the window rule); a loopback stub answers as a perfect localizer (the
row's gold IDs) and a judge that always says "4". Checks 5–8 of the spec (§9) are pinned here:
canonicalization and the metrics through the task (A.3, A.5), the Figure 6 prompt and its strict
parse (A.6), and the window rule (A.2) with a 65,536-token model.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.embs import EmbsBuild, build
from eval.benchmarks import get_task, rows_of
from eval.benchmarks.embs.judge import JUDGE_RUBRIC, parse_judge_score
from eval.benchmarks.embs.rows import CONTEXTS_PREFIX
from eval.cli import main
from eval.judge import judge_run
from eval.release import open_release
from eval.rubric import read_verdicts
from eval.store import RunDirectory
from eval.task import TaskOptions
from generators.embs.prompts import JUDGE_TEMPLATE, judge_prompt
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server
from tests.support.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]
SMALL = EmbsBuild(entities=150, queries_per_domain=2, domains=("medical", "history"), base_scale="4K",
                  retrievers=("bm25",), materialize="max")
WINDOW = EmbsBuild(entities=300, queries_per_domain=2, domains=("medical", "history"), retrievers=(),
                   materialize="256K", max_scale="1M")
"""The window rule's release: 300 entities fill a 64K history corpus, and the 128K and 256K corpora (both
domains' 64K corpora, about 83K tokens) are over a 65,536-token window (250 entities is about the least)."""
MODEL = "stub-model"


def all_rows(release: Path, configs: list[str], options: TaskOptions | None = None) -> list[dict[str, Any]]:
    options = options or TaskOptions()
    opened = open_release(str(release))
    return [row for config in configs for row in rows_of("embs").rows(opened, config, "test", None, None, options)]


def perfect_answers(rows: list[dict[str, Any]]) -> dict[str, tuple[str, list[str]]]:
    """The stub's script: each prompt answered with its references (gold IDs for localization, the answer for QA)."""
    answers: dict[str, tuple[str, list[str]]] = {}
    for row in rows:
        task = get_task(f"embs/{row['task']}", TaskOptions())
        digest = prompt_digest(task.render(row))
        # A small bank can give two scales the same retrieved documents: one prompt, one answer.
        assert answers.setdefault(digest, (row["id"], task.references(row)))[1] == task.references(row)
    return answers


def sample_configs(release: Path) -> list[str]:
    configs = json.loads((release / "manifest.json").read_text(encoding="utf-8"))["configs"]
    return sorted(c for c in configs if c.startswith(CONTEXTS_PREFIX)) + ["rankings"]


def run_cli(release: Path, out: Path, configs: list[str], script: Script, *extra: str) -> dict[str, Any]:
    with stub_server(script) as server:
        result = CliRunner().invoke(main, ["run", "--dataset", str(release), "--config", ",".join(configs),
                                           "--backend", "openai", "--base-url", server.base_url, "--model", MODEL,
                                           "--output-dir", str(out), "--no-progress", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def small_release(tmp_path_factory, qwen) -> Path:
    out = tmp_path_factory.mktemp("embs-eval") / "embs"
    build(SMALL, out, tokens=qwen, progress=False)
    return out


@pytest.fixture(scope="module")
def perfect_run(small_release: Path, tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    configs = sample_configs(small_release)
    out = tmp_path_factory.mktemp("embs-run") / "run"
    return out, run_cli(small_release, out, configs, Script(answers=perfect_answers(all_rows(small_release, configs))))


# Check 5: canonicalization and the metrics, through the task (A.3, A.5) ---------------------------------


def test_localization_reads_the_first_k_unique_ids_after_reasoning_and_scores_sr_r1_fr():
    task = get_task("embs/localize", TaskOptions())
    assert task.extract("<think>maybe 99</think>IDs: 12, 7, 12, 3") == "12, 7, 3"
    assert task.extract(", ".join(str(i) for i in range(20))) == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"  # K = 10
    # Spec §9 check 5: G = {1, 2}, R = [2, 9, 1] -> SR@10 = 1, FR@10 = 1; single G = {5}, R = [3, 5] -> R@1 = 0, SR@10 = 1.
    assert task.score("2, 9, 1", ["1", "2"]) == 1.0
    assert task.secondary_scores("2, 9, 1", ["1", "2"]) == {"parsed": 1.0, "fr10": 1.0}
    assert task.score("3, 5", ["5"]) == 1.0
    assert task.secondary_scores("3, 5", ["5"]) == {"parsed": 1.0, "r1": 0.0}
    assert task.score("9", ["1", "2"]) == 0.0 and task.secondary_scores("2", ["1", "2"])["fr10"] == 0.0
    # An answer without an integer scores 0 and is counted as unparsed.
    assert task.extract("I cannot tell.") == ""
    assert task.score("", ["5"]) == 0.0 and task.secondary_scores("", ["5"]) == {"parsed": 0.0, "r1": 0.0}


def test_qa_rule_check_finds_a_reference_in_the_answer():
    task = get_task("embs/qa", TaskOptions())
    assert task.score(task.extract("<think>hmm</think>It was Upper Modimi."), ["upper modimi"]) == 1.0
    assert task.score("Lower Modimi", ["Upper Modimi"]) == 0.0


# Check 7: the Figure 6 prompt and its strict parse (A.6) --------------------------------------------------


def test_judge_template_is_figure_6_of_the_paper():
    paper = Path(os.environ.get("NEEDLEWORK_SHARED_DATA", REPO.parent / "shared" / "data")).parent / "papers" / "evermembench-s.md"
    if not paper.is_file():
        pytest.skip(f"the paper is not at {paper}")
    text = paper.read_text(encoding="utf-8")
    figure = text[text.index("Instruction: Based on"):text.index("Figure 6:")].strip()
    # The Markdown conversion of the PDF marks bold with ** and leaves blank lines between list items.
    expected = re.sub(r"^(- [^\n]*)\n\n(?=- )", r"\1\n", figure.replace("**", ""), flags=re.MULTILINE)
    assert JUDGE_TEMPLATE == expected
    prompt = judge_prompt("Q?", "True.", "Predicted.")
    assert prompt.endswith("Query: Q?\n\nTrue Answer: True.\n\nPredicted Answer: Predicted.\n\n"
                           "Output only a single number (0, 1, 2, 3, 4, or 5):")


@pytest.mark.parametrize(("raw", "verdict"), [("4", 4), (" 5\n", 5), ("0", 0), ("4/5", None), ("score: 6", None),
                                              ("Score: 4", None), ("6", None), ("", None), ("4.", None), ("45", None)])
def test_judge_output_must_be_one_integer_from_0_to_5(raw: str, verdict: int | None):
    assert parse_judge_score(raw) == verdict
    assert JUDGE_RUBRIC.score(verdict) == (None if verdict is None else verdict / 5)


# Loopback: a perfect localizer and a judge that always says 4 ---------------------------------------------


def test_a_perfect_localizer_scores_one_at_every_scale(perfect_run, small_release):
    _, results = perfect_run
    block = results["scores"]["embs"]
    long_context = block["systems"]["long-context"]
    scales = sorted(c.removeprefix(CONTEXTS_PREFIX) for c in sample_configs(small_release) if c != "rankings")
    assert sorted(long_context) == scales and len(scales) >= 5  # 4K, 8K, 16K, 32K, max
    for scale, cell in long_context.items():
        access = cell["localize"]
        assert (access["r1"], access["sr10"], access["fr10"]) == (1.0, 1.0, 1.0), scale
        assert access["n_single"] > 0 and access["n_multi"] > 0 and access["unparsed"] == 0, scale
        assert cell["window"] == "fits" and cell["qa"]["rule"] == 1.0
    assert set(block["systems"]) == {"long-context", "rag:bm25"}
    assert all(cell["qa"]["rule"] == 1.0 for cell in block["systems"]["rag:bm25"].values())
    assert results["counts"]["errors"] == {} and results["complete"] is True


def test_long_context_rows_come_corpus_by_corpus_so_a_prefix_is_sent_together(small_release):
    rows = all_rows(small_release, [f"{CONTEXTS_PREFIX}4K"])
    contexts = [row["context"] for row in rows]
    changes = sum(1 for a, b in itertools.pairwise(contexts) if a != b)
    assert changes == len(set(contexts)) - 1  # each corpus's queries are consecutive
    assert {row["task"] for row in rows} == {"localize", "qa"}


def test_rag_rows_serialize_the_retrievers_top_k_with_their_real_ids(small_release):
    rows = all_rows(small_release, ["rankings"], TaskOptions(rag_k=3))
    opened = open_release(str(small_release))
    ranking = {(r["qid"], r["retriever"], r["scale"]): r["doc_ids"] for r in opened.iter_rows("rankings", "test")}
    for row in rows:
        top = ranking[(row["qid"], row["retriever"], row["scale"])][:3]
        assert row["retrieved"] == top
        assert [int(i) for i in re.findall(r"^\[DocID=(\d+)\]$", row["context"], re.MULTILINE)] == top
        assert row["task"] == "qa" and row["regime"] == "rag"


def test_a_judge_that_always_says_4_gives_4_at_every_scale(perfect_run, tmp_path):
    run_dir, _ = perfect_run
    with stub_server(Script(answers={}, default="4", keep_payloads=True)) as server:
        result = CliRunner().invoke(main, ["judge", str(run_dir), "--model", "grok-4", "--base-url", server.base_url])
        payloads = list(server.script.payloads)
    assert result.exit_code == 0, result.output
    expected = [e for e in RunDirectory(run_dir).read_run()["expected"] if e["task"] == "embs/qa"]
    assert len(payloads) == len(expected)  # QA answers only, never localization
    assert all(p["messages"][0]["content"].startswith("Instruction: Based on the accuracy") for p in payloads)
    verdicts = read_verdicts(RunDirectory(run_dir), JUDGE_RUBRIC)
    assert {v.value for v in verdicts.values()} == {4} and len(verdicts) == len(expected)
    report = CliRunner().invoke(main, ["report", str(run_dir), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    table = markdown[markdown.index("### Generative QA"):]
    ours = [line for line in table.splitlines() if line.startswith(f"| {MODEL} (")]
    assert len(ours) == 2 and all(cell.strip() == "4.00" for line in ours for cell in line.split("|")[3:-1]
                                  if cell.strip() != "—")
    assert "| *Gemini-3-Pro-Preview (paper)* | *1M* |" in table  # the paper's rows, in italics
    assert (tmp_path / "report" / "embs_access.png").is_file() and (tmp_path / "report" / "embs_qa.png").is_file()


def test_unreadable_verdicts_are_left_out_of_the_mean_and_counted(small_release, tmp_path):
    configs = [f"{CONTEXTS_PREFIX}4K"]
    run_dir = tmp_path / "run"
    run_cli(small_release, run_dir, configs, Script(answers=perfect_answers(all_rows(small_release, configs))),
            "--tasks", "qa")
    grades = iter(["3", "Score: 5", "5", "5/5"])
    verdicts = judge_run(run_dir, ScriptedBackend(lambda content: next(grades)))
    assert sorted(v.value for v in verdicts.values() if v.value is not None) == [3, 5]
    assert sum(v.value is None for v in verdicts.values()) == 2
    report = CliRunner().invoke(main, ["report", str(run_dir), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert f"| {MODEL} (long-context) | — | 4.00 (2 unreadable) |" in (tmp_path / "report" / "report.md").read_text(
        encoding="utf-8")


# Check 8: the window rule (A.2) -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def window_release(tmp_path_factory, qwen) -> Path:
    out = tmp_path_factory.mktemp("embs-window") / "embs"
    build(WINDOW, out, tokens=qwen, progress=False)
    return out


@pytest.mark.parametrize("counted", ["model tokenizer", "server tokenize"])
def test_a_65536_token_model_runs_64k_and_skips_128k_and_above(window_release, qwen, tmp_path, counted):
    configs = [f"{CONTEXTS_PREFIX}{s}" for s in ("64K", "128K", "256K")]
    rows = all_rows(window_release, configs)
    if counted == "model tokenizer":
        script, extra = Script(answers=perfect_answers(rows)), ["--max-model-len", "65536", "--tokenizer", "qwen2.5"]
    else:  # N and the counts from the server, as vLLM serves them (GET /v1/models, POST /tokenize)
        script = Script(answers=perfect_answers(rows), models=(MODEL,), window=65_536, count_tokens=qwen.count)
        extra = []
    script.keep_payloads = True
    results = run_cli(window_release, tmp_path / "run", configs, script, *extra)
    sent = {json.dumps(p["messages"]) for p in script.payloads}
    cells = results["scores"]["embs"]["systems"]["long-context"]
    assert {scale: cell["window"] for scale, cell in cells.items()} == {"64K": "fits", "128K": "over", "256K": "over"}
    by_scale = {s: [r for r in rows if r["scale"] == s] for s in ("64K", "128K", "256K")}
    assert cells["64K"]["localize"]["sr10"] == 1.0 and cells["64K"]["skipped_window"] == 0
    assert cells["128K"]["skipped_window"] == len(by_scale["128K"]) and cells["256K"]["skipped_window"] == len(by_scale["256K"])
    assert len(sent) == len(by_scale["64K"])  # nothing over the window reached the server
    records = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    skipped = [r for r in records if r["error"]]
    assert {r["error"]["kind"] for r in skipped} == {"skipped_window"}
    assert all(r["usage"]["prompt_tokens"] > 65_536 - 1024 for r in skipped)  # counted, never truncated
    assert results["provenance"]["window"] == 65_536
    assert results["counts"]["errors"] == {"skipped_window": len(skipped)} and results["stopped"] is None
    assert any("skipped, not truncated" in w for w in results["warnings"])
    report = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert (f"- {MODEL} (long-context), window 65,536: took 64K; over the window: 128K, 256K"
            in (tmp_path / "report" / "report.md").read_text(encoding="utf-8"))


def test_over_window_cut_middle_sends_every_prompt_cut_to_fit_with_template_and_answer(window_release, qwen, tmp_path):
    """Issue 40: ``--over-window cut-middle`` (HaystackCraft's answer, any release): a 128K prompt for a 65,536-token
    model keeps its first and last halves, with room for the chat template and ``max_tokens`` as the window rule
    counts them, and is sent and answered; the record says what was cut. Without --tokenizer it cannot cut, and
    says so before anything is sent."""
    configs = [f"{CONTEXTS_PREFIX}128K"]
    rows = all_rows(window_release, configs)
    script = Script(answers={}, default="[1, 2, 3]", keep_payloads=True)
    results = run_cli(window_release, tmp_path / "run", configs, script, "--max-model-len", "65536",
                      "--tokenizer", "qwen2.5", "--over-window", "cut-middle")
    assert len(script.payloads) == len(rows) and results["counts"]["errors"] == {}
    records = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(rows) and all(r["window_cut"] and r["error"] is None for r in records)
    for payload in script.payloads:
        counted = 3 + sum(4 + qwen.count(m["content"]) for m in payload["messages"])  # the rule's chat overhead
        assert counted + payload["max_tokens"] <= 65_536
    for record in records:
        assert record["window_cut"]["tokens"] > 65_536 > record["window_cut"]["kept"]
    with stub_server(Script(answers={}, default="[1]", models=(MODEL,), window=65_536)) as server:
        refused = CliRunner().invoke(main, ["run", "--dataset", str(window_release), "--config", configs[0],
                                            "--backend", "openai", "--base-url", server.base_url, "--model", MODEL,
                                            "--output-dir", str(tmp_path / "refused"), "--no-progress",
                                            "--over-window", "cut-middle"])
    assert refused.exit_code != 0 and "--tokenizer" in refused.output and "Nothing was sent" in refused.output


def test_a_window_that_cannot_be_counted_stops_the_run_before_an_uncounted_prompt(window_release, tmp_path):
    """Issue 39: N given, no --tokenizer and a server without a tokenize route. A 64K-token corpus's bytes do not show
    that it fits 65,536 tokens, so the run stops before sending it, naming --tokenizer; no scale is called fitting."""
    from needlework.backends.window import NOT_COUNTED

    configs = [f"{CONTEXTS_PREFIX}{s}" for s in ("64K", "128K")]
    script = Script(answers=perfect_answers(all_rows(window_release, configs)))
    script.keep_payloads = True
    out = tmp_path / "run"
    with stub_server(script) as server:
        result = CliRunner().invoke(main, ["run", "--dataset", str(window_release), "--config", ",".join(configs),
                                           "--backend", "openai", "--base-url", server.base_url, "--model", MODEL,
                                           "--output-dir", str(out), "--no-progress", "--max-model-len", "65536"])
    assert result.exit_code != 0 and "--tokenizer" in result.output and "cannot be counted" in result.output
    assert script.payloads == []  # nothing was sent uncounted
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["stopped"] and results["provenance"]["window_counted_by"] == NOT_COUNTED
    cells = results["scores"].get("embs", {}).get("systems", {}).get("long-context", {})
    assert not any(cell.get("window") == "fits" for cell in cells.values())


# Kill and resume: run and judge -------------------------------------------------------------------------


def _start(command: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)


def _kill_after_lines(proc: subprocess.Popen, path: Path, lines: int, deadline_s: float = 120.0) -> None:
    give_up = time.monotonic() + deadline_s
    while proc.poll() is None and time.monotonic() < give_up:
        if path.is_file() and path.read_bytes().count(b"\n") >= lines:
            break
        time.sleep(0.005)
    assert proc.poll() is None, f"the process ended before it was killed: {proc.communicate()}"
    proc.kill()
    proc.communicate(timeout=30)


@pytest.mark.slow
def test_run_and_judge_killed_midway_resume_to_the_uninterrupted_result(small_release, perfect_run, tmp_path):
    configs = sample_configs(small_release)
    rows = all_rows(small_release, configs)
    killed = tmp_path / "killed"
    script = Script(answers=perfect_answers(rows), faults={row["id"]: ["hang"] for row in rows}, hang_s=0.05,
                    default="4", default_delay_s=0.05)
    with stub_server(script) as server:
        run = [sys.executable, "-m", "eval", "run", "--dataset", str(small_release), "--config", ",".join(configs),
               "--model", MODEL, "--base-url", server.base_url, "--output-dir", str(killed), "--concurrency", "2",
               "--no-progress"]
        _kill_after_lines(_start(run), killed / "samples.jsonl", len(rows) // 3)
        partial = (killed / "samples.jsonl").read_bytes().count(b"\n")
        assert 0 < partial < len(rows)
        finished = subprocess.run(run, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, capture_output=True,
                                  text=True, timeout=300, check=False)
        assert finished.returncode == 0, finished.stderr
        new, done = map(int, re.search(r"^(\d+) new samples, (\d+) already done$", finished.stdout, re.MULTILINE).groups())
        assert done >= partial and new + done == len(rows)

        judge = [sys.executable, "-m", "eval", "judge", str(killed), "--model", "grok-4", "--base-url", server.base_url,
                 "--concurrency", "2"]
        qa = sum(1 for row in rows if row["task"] == "qa")
        _kill_after_lines(_start(judge), RunDirectory(killed).judge_file, qa // 3)
        again = subprocess.run(judge, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, capture_output=True,
                               text=True, timeout=300, check=False)
        assert again.returncode == 0, again.stderr
        reference_verdicts = judge_run(perfect_run[0], ScriptedBackend(lambda content: "4"))

    results = json.loads((killed / "results.json").read_text(encoding="utf-8"))
    assert results["scores"] == perfect_run[1]["scores"] and results["counts"] == perfect_run[1]["counts"]
    verdicts = read_verdicts(RunDirectory(killed), JUDGE_RUBRIC)
    assert sorted((k, v.value) for k, v in verdicts.items()) == sorted((k, v.value) for k, v in reference_verdicts.items())
    judged = [json.loads(line) for line in RunDirectory(killed).judge_file.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["key"] for r in judged) == sorted(verdicts)  # each answer judged once, none twice


def test_live_bm25_over_the_release_s_corpora_reproduces_its_stored_rankings(small_release):
    stored = all_rows(small_release, ["rankings"], TaskOptions(rag_k=5))
    live = all_rows(small_release, ["rankings"], TaskOptions(rag_k=5, live_retriever="bm25"))
    assert [(r["id"].replace("/bm25/", "/"), r["retrieved"], r["context"]) for r in live] == \
        [(r["id"].replace("/bm25/", "/"), r["retrieved"], r["context"]) for r in stored if r["retriever"] == "bm25"]
    assert {r["retriever"] for r in live} == {"bm25"} and len(live) == len(stored) > 0


def test_a_config_without_questions_is_one_clear_error(small_release):
    result = CliRunner().invoke(main, ["run", "--dataset", str(small_release), "--config", "ladder", "--model", MODEL,
                                       "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert ("EMB-S config 'ladder' holds no questions to ask; run a long-context config (contexts-4K, contexts-8K, "
            "contexts-16K, contexts-32K, contexts-max) or rankings (RAG)") in result.output


def test_a_live_retriever_must_be_bm25_or_dense(small_release, tmp_path):
    result = CliRunner().invoke(main, ["run", "--dataset", str(small_release), "--config", "rankings", "--model", MODEL,
                                       "--base-url", "http://127.0.0.1:9/v1", "--live-retriever", "splade"])
    assert result.exit_code == 2 and "expected bm25, dense or dense:<model>, got 'splade'" in result.output



def test_live_dense_ranks_with_the_release_s_own_dense_model(small_release, monkeypatch):
    """``--live-retriever dense`` ranks with the dense model the release was built with (its manifest's build
    arguments), ``dense:<model>`` with the one named; not with a default the release never used."""
    from builders.retrieval import ladder

    class Seen(Exception):
        pass

    models = []

    def bank(titles, texts, dense_model=None, **_):
        models.append(dense_model)
        raise Seen

    monkeypatch.setattr(ladder, "Bank", bank)
    for retriever in ("dense", "dense:some/model"):
        with pytest.raises(Seen):
            all_rows(small_release, ["rankings"], TaskOptions(rag_k=5, live_retriever=retriever))
    assert models == [SMALL.dense_model, "some/model"] and SMALL.dense_model == "multilingual-e5-small"
