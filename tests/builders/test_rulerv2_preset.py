"""``needlework build rulerv2 --preset paper``: the official RULERv2 data setup on the shared slices.

Source of truth: NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare_data.py`` (which script and
arguments per task), ``prepare_mmlu.py`` (``load_dataset("cais/mmlu", "all")``: needles from ``test``,
haystack from ``auxiliary_train``), ``prepare_qa.py`` (``hotpotqa/hotpot_qa`` ``distractor``: questions
from ``validation``, haystack from every ``train`` paragraph) and the paper's Section 2 (lengths, 100
samples, greedy decoding with a 16k-token output limit). Offline, MMLU ``dev/`` stands in for
``auxiliary_train`` (the shared slice has none) and the HotpotQA train slice for validation.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builders.cli import main
from builders.rulerv2 import EVAL_GENERATION, RulerV2Build, build
from builders.sources.mmlu import read_mcq_distractors, read_mcq_distractors_hub
from builders.sources.names import PAPER_DOCQA, PAPER_MCQ
from generators.rulerv2.spec import DEFAULT_RESERVES, PAPER_LENGTHS
from needlework.errors import InputError, SpecError
from tests.support.build_options import build_error, build_spec


@pytest.fixture(scope="module")
def slices(shared_data) -> dict[str, str]:
    hotpot = str(shared_data / "multihop_hipporag" / "hotpotqa_train.json")
    return {"mcq": str(shared_data / "mmlu"), "mcq_distractors": str(shared_data / "mmlu" / "dev"),
            "docqa": hotpot, "docqa_distractors": hotpot}


@pytest.fixture(scope="module")
def paper_release(tmp_path_factory, slices, qwen) -> Path:
    out = tmp_path_factory.mktemp("rulerv2-paper") / "release"
    spec = RulerV2Build(preset="paper", lengths=(4096,), samples=2, **slices)
    build(spec, out, tokens=qwen, progress=False)
    return out


def test_paper_manifest_records_every_preset_value(paper_release, slices):
    """Every value the preset sets is in the manifest, with the official files it follows."""
    manifest = json.loads((paper_release / "manifest.json").read_text(encoding="utf-8"))
    preset = manifest["preset"]
    assert manifest["build"]["args"]["preset"] == "paper"
    assert preset["name"] == "paper" and "prepare_data.py" in preset["source_of_truth"]
    assert preset["paper_lengths"] == list(PAPER_LENGTHS) == [8192, 16384, 32768, 65536, 112640]
    assert preset["paper_samples"] == 100
    assert preset["generation_reserve"] == 0
    assert preset["distractor_repeats"] == {t: 4 for t in ("mv_niah_basic", "mv_niah_easy", "mv_niah_medium", "mv_niah_hard")}
    assert preset["shots"] == {"mk_niah_easy": 0, "mk_niah_medium": 5, "mk_niah_hard": 5,
                               "mv_niah_easy": 0, "mv_niah_medium": 0, "mv_niah_hard": 0}
    assert (preset["key_kind"], preset["key_length"], preset["value_digits"], preset["index_digits"]) == ("words", 2, 10, 7)
    for key, value in slices.items():
        assert preset[key] == value
        assert value in manifest["inputs"]
    # Section 2 (Models): greedy decoding, 16k-token output limit; the eval reads it as default max_tokens.
    # Only generation parameters: eval/runner.py sends every key of eval_generation to the model.
    assert manifest["eval_generation"] == EVAL_GENERATION == {"max_tokens": 16384, "temperature": 0.0}
    assert "16k token output limits" in preset["eval_generation_source"]


def test_paper_rows_fill_the_length_with_official_prompts(paper_release):
    """prepare_{niah,mmlu,qa}.py budget: prompt tokens <= max_seq_length, nothing reserved."""
    for config in ("mk_niah_basic", "mv_niah_easy", "mdqa_hard"):
        rows = datasets.load_dataset(str(paper_release), config, split="test")
        for row in rows:
            assert row["generation_reserve"] == 0 and row["n_tokens"] <= 4096
            assert row["n_tokens"] > 4096 * 0.85
    easy = datasets.load_dataset(str(paper_release), "mv_niah_easy", split="test")[0]
    assert easy["input"].endswith(f"Please find and copy all the Question {easy['query']} from the context.")


def test_cli_builds_the_paper_preset(tmp_path, slices):
    """``needlework build rulerv2 --preset paper`` with the local slices (offline)."""
    out = tmp_path / "release"
    args = ["build", "rulerv2", "--preset", "paper", "--tasks", "mv_niah_hard,mdqa_basic", "--lengths", "4096",
            "--samples", "1", "--out", str(out), "--quiet"]
    for key, value in slices.items():
        args += [f"--{key.replace('_', '-')}", value]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["preset"]["mcq_distractors"] == slices["mcq_distractors"]


def test_default_preset_is_unchanged():
    """The default ('') keeps needlework's setup: per-task reserves, no preset block, world sources."""
    spec = RulerV2Build()
    assert spec.preset == "" and spec.mcq_source == "world" and spec.docqa_source == "world"
    for task in DEFAULT_RESERVES:
        assert spec.task_spec(task).options.generation_reserve == DEFAULT_RESERVES[task]


def test_lengths_and_reserve_are_token_counts_in_any_case():
    """Issue 41: ``--lengths 4k`` and ``4K`` are 4,000 (integers only before); the paper's 8k..110k grid, as
    needlework builds it, is written 8ki..110ki and is the default and the paper preset's, to the token."""
    assert build_spec("rulerv2", "--lengths", "4k,8K").lengths == build_spec("rulerv2", "--lengths", "4K,8k").lengths == (4_000, 8_000)
    assert build_spec("rulerv2", "--lengths", "8ki,16Ki,32KI,64ki,110ki") == build_spec("rulerv2")
    assert build_spec("rulerv2", "--lengths", "8ki,16ki,32ki,64ki,110ki").lengths == PAPER_LENGTHS
    assert build_spec("rulerv2", "--generation-reserve", "1k").generation_reserve == 1_000
    assert build_spec("rulerv2", "--generation-reserve", "1K").generation_reserve == 1_000
    assert build_error("rulerv2", "--generation-reserve", "1kb").startswith("error: --generation-reserve: '1kb' is not a token count")


def test_paper_preset_sources():
    """The paper's sources (prepare_mmlu.py ``cais/mmlu``, prepare_qa.py ``hotpotqa/hotpot_qa``) replace
    ``world``; the distractor splits default to the same Hub datasets."""
    spec = RulerV2Build(preset="paper")
    assert (spec.mcq_source, spec.docqa_source) == (PAPER_MCQ, PAPER_DOCQA) == ("hub:cais/mmlu", "hub:hotpotqa/hotpot_qa")
    assert spec.mcq_distractor_source() == PAPER_MCQ and spec.docqa_filler_source() == PAPER_DOCQA
    assert spec.task_spec("mv_niah_easy").options.generation_reserve == 0


def test_paper_preset_errors(shared_data):
    with pytest.raises(SpecError, match="preset"):
        RulerV2Build(preset="official")
    with pytest.raises(SpecError, match="paper preset only"):
        RulerV2Build(mcq_distractors="x")
    spec = RulerV2Build(preset="paper", mcq=str(shared_data / "mmlu"))
    with pytest.raises(SpecError, match="--mcq-distractors"):
        spec.mcq_distractor_source()
    spec = RulerV2Build(preset="paper", docqa=str(shared_data / "multihop_hipporag" / "hotpotqa_train.json"))
    with pytest.raises(SpecError, match="--docqa-distractors"):
        spec.docqa_filler_source()


def test_auxiliary_train_folder_in_the_original_layout(tmp_path):
    """MMLU's release ships ``data/auxiliary_train/*.csv``: headerless rows (question, A-D, answer letter)."""
    folder = tmp_path / "auxiliary_train"
    folder.mkdir()
    with (folder / "arc_easy.csv").open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["Which is a gas?", "iron", "oxygen", "salt", "wood", "B"],
                                      ["2+2?", "3", "4", "5", "6", "B"]])
    questions = read_mcq_distractors(folder)
    assert [q.qid for q in questions] == ["mmlu/auxiliary_train/arc_easy/0000", "mmlu/auxiliary_train/arc_easy/0001"]
    assert questions[0].choices == ("iron", "oxygen", "salt", "wood") and questions[0].answer == "B"
    with pytest.raises(InputError):
        read_mcq_distractors(tmp_path / "missing")


def test_auxiliary_train_split_in_the_hub_layout(tmp_path, monkeypatch):
    """``cais/mmlu`` ``all`` has an ``auxiliary_train`` split (prepare_mmlu.py reads it as the haystack)."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    folder = tmp_path / "mmlu"
    (folder / "all").mkdir(parents=True)
    rows = [{"question": "2+2?", "subject": "", "choices": ["3", "4", "5", "6"], "answer": 1}]
    pq.write_table(pa.Table.from_pylist(rows), folder / "all" / "auxiliary_train-00000-of-00001.parquet")
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: all\n  data_files:\n  - split: auxiliary_train\n    path: all/auxiliary_train-*\n---\n",
        encoding="utf-8")
    (question,) = read_mcq_distractors_hub(str(folder))
    assert question.answer == "B" and question.qid == "mmlu/auxiliary_train//0000"


def test_paper_preset_offline_hub_error_names_the_local_options(tmp_path, monkeypatch, qwen):
    """The preset's default sources are the Hub datasets the official scripts load; offline, the one-line
    error says which local copies to pass instead."""
    from builders import rulerv2

    def offline(source, seed):
        raise ConnectionError(f"Couldn't reach {source!r} on the Hub (offline)")

    monkeypatch.setattr(rulerv2, "resolve_mcq", offline)
    spec = RulerV2Build(preset="paper", tasks=("mk_niah_easy",), lengths=(4096,), samples=1)
    with pytest.raises(InputError, match="--mcq-distractors"):
        build(spec, tmp_path / "out", tokens=qwen, progress=False)
    assert not (tmp_path / "out").exists()
