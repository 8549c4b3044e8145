"""Issue 40: any corpus builds, links or not. Twelve MuSiQue passages (one question's paragraphs, from the shared
HippoRAG slice) name no other passage's title, so the corpus has no links: the build used to stop at "config 'links'
was declared but no rows were written" even with --retrievers bm25."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from builders import haystackcraft
from eval.dynamic_run import run_dynamic
from eval.runner import RunSpec
from eval.selection import RowSelection
from tests.support.scripted import ScriptedBackend


@pytest.fixture(scope="module")
def link_free(shared_data: Path, tmp_path_factory) -> tuple[Path, Path]:
    """The first MuSiQue question's 12 paragraphs as a passage corpus, and the first two questions."""
    folder = tmp_path_factory.mktemp("link-free")
    questions = json.loads((shared_data / "multihop_hipporag" / "musique_train.json").read_text(encoding="utf-8"))
    passages = json.loads((shared_data / "multihop_hipporag" / "musique_train_corpus.json").read_text(encoding="utf-8"))
    titles = {p["title"] for p in questions[0]["paragraphs"]}
    (folder / "corpus.json").write_text(json.dumps([p for p in passages if p["title"] in titles][:12]), encoding="utf-8")
    (folder / "qa.json").write_text(json.dumps(questions[:2]), encoding="utf-8")  # the second's passages are absent
    return folder / "corpus.json", folder / "qa.json"


def test_a_corpus_without_links_builds_and_its_ppr_rankings_are_the_base_ones(link_free, qwen, tmp_path) -> None:
    corpus, qa = link_free
    spec = haystackcraft.HaystackCraftBuild(corpus=(str(corpus),), qa=(str(qa),), strategies=("bm25", "bm25+ppr"),
                                            sizes=(0, 2_000), dynamic=True, dynamic_questions=1,
                                            cache=str(tmp_path / "cache"))
    report = haystackcraft.build(spec, tmp_path / "release", tokens=qwen, progress=False)
    manifest = json.loads((tmp_path / "release" / "manifest.json").read_text())
    assert manifest["corpus"]["documents"] == 12 and manifest["corpus"]["links"] == 0
    assert "links" not in manifest["configs"]
    dropped = manifest["questions"]["dropped_questions"]
    assert manifest["questions"]["kept"] == 1 and len(dropped) == manifest["questions"]["dropped"] == 1
    assert dropped[0]["reason"] and dropped[0]["qid"]
    assert any("no links between documents: bm25+ppr rank as their base retrievers" in line for line in report.lines())
    rankings = datasets.load_dataset(str(tmp_path / "release"), "rankings", split="test")
    by = {(r["qid"], r["strategy"]): r for r in rankings}
    for (qid, strategy), row in by.items():
        if strategy == "bm25":
            assert by[(qid, "bm25+ppr")]["doc_ids"] == row["doc_ids"]
            assert by[(qid, "bm25+ppr")]["needle_ranks"] == row["needle_ranks"]
    outcome = run_dynamic(RunSpec(dataset=str(tmp_path / "release"), configs=("dynamic",), model="scripted",
                                  base_url="http://127.0.0.1:9/v1", output_dir=tmp_path / "run",
                                  select=RowSelection(tasks=("enforced-2",), sizes=(0,))),
                          ScriptedBackend(lambda p: "The correct answer is X." if "Final" in p or "final" in p
                                          else "Summary: s\n\nRefined Question: r"), progress=False, tokens=qwen)
    assert outcome.new_samples >= 2
