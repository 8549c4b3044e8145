"""Issue 41: what a build can check before work starts is checked before work starts, in one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import builders.embs
import builders.preflight
import builders.rulerv2
from builders.cli import main
from builders.specs.embs import EmbsBuild
from tests.support.build_options import build_error, build_spec


@pytest.fixture
def no_work(monkeypatch):
    """Any builder that starts working fails the test."""
    for module in (builders.embs, builders.rulerv2):
        monkeypatch.setattr(module, "build", lambda *a, **k: pytest.fail("the build started before its checks"))


def missing(monkeypatch, *modules: str) -> None:
    real = builders.preflight.installed
    monkeypatch.setattr(builders.preflight, "installed", lambda module: module not in modules and real(module))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_a_folder_that_is_not_a_release_is_refused_first(tmp_path: Path, no_work) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    code, output = run("build", "rulerv2", "--out", str(tmp_path), "--quiet")
    assert code == 2 and output.strip() == f"error: {tmp_path} exists and is not a needlework release; refusing to replace it"
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_ray_without_ray_is_refused_before_work(tmp_path: Path, no_work, monkeypatch) -> None:
    missing(monkeypatch, "ray")
    code, output = run("build", "embs", "--out", str(tmp_path / "r"), "--engine", "ray", "--retrievers", "bm25",
                       "--quiet")
    assert code == 2 and "--engine ray needs Ray" in output and len(output.strip().splitlines()) == 1


def test_a_dense_retriever_without_the_dense_extra_is_refused_before_work(tmp_path: Path, no_work, monkeypatch) -> None:
    """EMB-S's default retrievers include dense: without sentence-transformers the build used to fail after 40-76 s."""
    missing(monkeypatch, "sentence_transformers")
    code, output = run("build", "embs", "--out", str(tmp_path / "e"), "--quiet")
    assert code == 2 and "the dense retriever needs the 'dense' extra" in output
    assert "sentence_transformers is not installed" in output and len(output.strip().splitlines()) == 1


def test_llm_model_none_means_no_model() -> None:
    """The option's help says "none: no LLM"; it was taken as a model called none."""
    assert EmbsBuild(raw=("x.jsonl",), llm_model="none").llm_model == ""
    assert EmbsBuild(raw=("x.jsonl",), llm_model="NONE").llm_model == ""


def test_scale_labels_and_the_reserve_are_read_in_any_case() -> None:
    """Issue 41: ``--base-scale 4k`` is ``4K`` (it was refused), and the stored label is the paper's spelling; the
    reserve is a token count (``1k`` = ``1K`` = 1,000, whatever ``--decimal`` says of the labels)."""
    lower = build_spec("embs", "--base-scale", "4k", "--max-scale", "1m", "--materialize", "512k")
    assert lower == build_spec("embs", "--base-scale", "4K", "--max-scale", "1M", "--materialize", "512K")
    assert (lower.base_scale, lower.max_scale, lower.materialize) == ("4K", "1M", "512K")
    assert EmbsBuild(base_scale="4k", max_scale="MAX", materialize="None") == EmbsBuild(base_scale="4K", materialize="none")
    assert build_spec("embs", "--max-scale", "max", "--materialize", "1M") == build_spec("embs")  # the help's defaults
    reserve = {build_spec("embs", "--generation-reserve", text, *decimal).generation_reserve
               for text in ("1k", "1K", "1000") for decimal in ((), ("--decimal",))}
    assert reserve == {1_000}
    assert build_error("embs", "--max-scale", "1.5M") == ("error: --max-scale: scale '1.5M' is not a ladder label: write <n>K or "
                                                          "<n>M in any case (e.g. 64K = 64k, 1M, 326M) or max")


def test_scales_that_cannot_be_built_as_asked_are_refused_at_once() -> None:
    from needlework.errors import SpecError

    with pytest.raises(SpecError, match="max_scale 32K is below the base scale 64K"):
        EmbsBuild(max_scale="32K")
    with pytest.raises(SpecError, match="--materialize 2M is above --max-scale 128K"):
        EmbsBuild(materialize="2M", max_scale="128K")
    assert EmbsBuild(max_scale="512K").materialize == "1M"  # the default means every corpus built


def test_a_ladder_that_stops_short_or_repeats_a_corpus_says_so() -> None:
    """``--entities 500 --max-scale 1M`` built a ladder that stopped at 512K, its 512K the same documents as a 256K
    corpus, without a word (issue 41)."""
    import numpy as np

    from builders.embs import ladder_notes
    from generators.embs.ladder import Corpus

    def corpus(scale: str, domain: str, docs: list[int]) -> Corpus:
        return Corpus(scale, "domain", domain, 0, 0, 0, 0, np.asarray(docs, dtype=np.int64))

    ladder = [corpus("64K", "law", [1, 2]), corpus("128K", "law", [1, 2, 3]), corpus("256K", "law", [1, 2, 3, 4]),
              corpus("512K", "all", [4, 3, 2, 1])]
    notes = ladder_notes(ladder, EmbsBuild(max_scale="1M"), 322_405)
    assert notes == ["the bank holds 322,405 tokens, so the ladder stops at 512K, below --max-scale 1M",
                     "512K (all) holds the same documents as 256K (law): the bank has no more to add",
                     "contexts written up to 512K, the largest scale built (--materialize 1M)"]
    # --materialize 1M (the default, or given) over --max-scale 128K: contexts stop at 128K, and the build says so
    assert ladder_notes(ladder[:2], EmbsBuild(max_scale="128K"), 10**6) == [
        "contexts written up to 128K, the largest scale built (--materialize 1M is above --max-scale 128K)"]
    assert ladder_notes(ladder[:2], EmbsBuild(max_scale="128K", materialize="128K"), 10**6) == []


def test_the_card_counts_single_source_by_reflist_not_by_track() -> None:
    """A real-source query whose Stage III added a false negative has two references though its track is "none":
    the card said "24 single-source" when all 24 had two (issue 41)."""
    import numpy as np

    from builders.embs import _bank_stats

    queries = [{"track": "none", "n_refs": 2}] * 3 + [{"track": "none", "n_refs": 1}, {"track": "rewrite", "n_refs": 2}]
    stats = _bank_stats(np.array([10, 20], dtype=np.int64), queries, [])
    assert "- queries: 5 (1 single-source, 4 multi-source; by track: 4 not rewritten, 1 Track 1, 0 Track 2)" in stats
