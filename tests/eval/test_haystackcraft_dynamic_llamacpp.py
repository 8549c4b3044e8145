"""A real model through dynamic NIAH: ``python -m eval run --config dynamic`` with 2 enforced rounds against
llama.cpp's server (SmolLM2-135M-Instruct, as ``tests/eval/test_llamacpp.py`` starts it), on a few world questions
at the smallest size (0: the needles alone).

Whatever the model writes, round 2 must be what the official workflow makes of it (Graph-COM/HaystackCraft
``infer_multi.py``): the response stripped and parsed by ``parse_llm_response`` into the analysis and the refined
question, the corpus ranked again with that question, the haystack assembled, and ``final_round_context.txt``
filled with "Round 1: {analysis}" and the refined question. The test rebuilds round 2's prompt from round 1's
record and the build's retrieval, and checks it is the prompt that was sent (its sha256). Answers are not judged.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from builders import haystackcraft
from eval.benchmarks.haystackcraft.dynamic import ROUND_RECORD
from eval.benchmarks.haystackcraft.dynamic_world import DynamicWorld
from eval.release import open_release
from eval.task import strip_reasoning
from generators.haystackcraft.dynamic import official_prompt, parse_response
from tests.eval.test_llamacpp import (
    ALIAS,
    REPO,
    log_tail,
    running_server,
    served_shallow_model,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.slow  # one llama.cpp file at a time under xdist: tests/xdist_scheduling.py

N_CTX = 4096
QUESTIONS = 1  # one question shows the workflow; each costs two rounds of prefill on a CPU model
MAX_TOKENS = 32
WORLD = {"world_docs": 200, "world_questions": 20, "strategies": ("bm25", "bm25+ppr"), "sizes": (0,),
         "top_k": 100, "materialize": ()}


def shortest_questions(tmp_path, qwen) -> Path:
    """A file naming the world questions with the fewest needle tokens (a CPU model reads them fast)."""
    probe = tmp_path / "probe"
    haystackcraft.build(haystackcraft.HaystackCraftBuild(**WORLD, dynamic=True, cache=str(tmp_path / "cache")), probe,
                        tokens=qwen, progress=False)
    tokens = datasets.load_dataset(str(probe), "corpus", split="test")["n_tokens"]
    qa = datasets.load_dataset(str(probe), "qa", split="test")
    chosen = sorted(qa, key=lambda q: sum(tokens[s] for s in q["support"]))[:QUESTIONS]
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"{q['qid']}\n" for q in chosen))
    return ids


def test_two_enforced_rounds_end_to_end_against_llama_cpp(tmp_path, qwen, served_shallow_model) -> None:  # noqa: F811
    release = tmp_path / "release"
    spec = haystackcraft.HaystackCraftBuild(**WORLD, dynamic=True, dynamic_ids=str(shortest_questions(tmp_path, qwen)),
                                            cache=str(tmp_path / "cache"))
    haystackcraft.build(spec, release, tokens=qwen, progress=False)
    run_dir = tmp_path / "run"
    with running_server(tmp_path, N_CTX, served_shallow_model) as server:
        command = [sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", "dynamic",
                   "--tasks", "enforced-2", "--sizes", "0", "--backend", "openai", "--model", ALIAS,
                   "--base-url", server.base_url, "--concurrency", "1", "--gen-kwargs", f"max_tokens={MAX_TOKENS}",
                   "--output-dir", str(run_dir), "--no-progress"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        done = subprocess.run(command, check=False, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\nserver log:\n{log_tail(server.log)}"
    results = json.loads((run_dir / "results.json").read_text())
    assert results["complete"] and results["counts"]["expected"] == QUESTIONS and results["counts"]["answered"] == QUESTIONS
    records = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines() if line.strip()]
    rounds = {(r["row_id"], r["round"]): r for r in records if r.get("kind") == ROUND_RECORD}
    items = [r for r in records if r.get("task") == "haystackcraft/dynamic"]
    assert len(rounds) == 2 * QUESTIONS and len(items) == QUESTIONS
    world = DynamicWorld(open_release(str(release)), qwen)
    for item in items:
        first, second = rounds[(item["row_id"], 1)], rounds[(item["row_id"], 2)]
        assert first["error"] is None and second["error"] is None and first["prompt_tokens"] > 0
        summary, refined = parse_response(strip_reasoning(first["text"], "</think>"))
        assert (first["summary"], first["next_query"], second["query"]) == (summary, refined, refined)
        ranking = world.rank("bm25+ppr", [refined], [second["needle_ids"]])[0]
        haystack = world.haystack(ranking, 0)
        assert second["doc_ids"] == haystack.doc_ids and second["needle_ranks"] == ranking.needle_ranks.tolist()
        prompt = official_prompt("final", haystack.text, refined, [summary])
        assert hashlib.sha256(prompt.encode("utf-8")).hexdigest() == second["prompt_sha256"]
        assert item["rounds_used"] == 2 and item["text"] == second["text"]
