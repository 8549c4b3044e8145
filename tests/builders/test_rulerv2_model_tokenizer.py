"""RULERv2 lengths are the evaluated model's tokens: ``--model`` counts with the model's tokenizer.

Source of truth: NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare_data.py`` takes the
evaluated model's ``--tokenizer_path`` and prepares the data once per model, as RULER's own
``prepare.py`` does; a RULERv2 "length" is therefore a number of that model's tokens (issue 23: "lengths
counted with the evaluated model's tokenizer as the default for a named model"). A release records
whom it was counted for (manifest ``lengths_for_model``) and ``python -m eval run`` warns when
another model is evaluated on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow as pa
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from builders.rulerv2 import RulerV2Build, build
from eval.runner import RunSpec, length_counting_warning, model_stem, run
from needlework.errors import SpecError
from needlework.tokenizers import load_tokenizer
from tests.support.releases import write_test_release
from tests.support.scripted import ScriptedBackend


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory) -> Path:
    """A local "model" folder holding a word-level tokenizer.json: one token per word or punctuation
    mark, so its counts differ from any BPE vocabulary's."""
    folder = tmp_path_factory.mktemp("models") / "Tiny-Word-Model"
    folder.mkdir()
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_a_named_model_s_tokenizer_counts_every_length(tmp_path, model_folder):
    spec = RulerV2Build(tasks=("mk_niah_basic",), lengths=(1024,), samples=2, model=str(model_folder))
    report = build(spec, tmp_path / "release", progress=False)
    words = load_tokenizer(f"hf:{model_folder}")
    manifest = json.loads((tmp_path / "release" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["tokenizer"]["name"] == words.name == f"hf:{(model_folder / 'tokenizer.json').resolve()}"
    assert manifest["lengths_for_model"]["model"] == str(model_folder)
    assert manifest["lengths_for_model"]["tokenizer"] == words.name
    assert "--tokenizer_path" in manifest["lengths_for_model"]["rule"]
    assert not report.notices
    rows = datasets.load_dataset("parquet", data_files=str(tmp_path / "release" / "mk_niah_basic" / "test-*.parquet"),
                                 split="train")
    for row in rows:
        assert row["tokenizer"] == words.name
        assert row["n_tokens"] == words.count(row["input"]) <= 1024


def test_a_build_for_no_model_records_it_and_says_so(tmp_path, qwen):
    spec = RulerV2Build(tasks=("mk_niah_basic",), lengths=(1024,), samples=1, preset="paper")
    report = build(spec, tmp_path / "release", tokens=qwen, progress=False)
    manifest = json.loads((tmp_path / "release" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["lengths_for_model"]["model"] is None
    assert any("--model" in line and qwen.name in line for line in report.lines())


def test_needlework_s_own_setup_makes_no_claim(tmp_path, qwen):
    spec = RulerV2Build(tasks=("mk_niah_basic",), lengths=(1024,), samples=1)
    build(spec, tmp_path / "release", tokens=qwen, progress=False)
    assert "lengths_for_model" not in json.loads((tmp_path / "release" / "manifest.json").read_text(encoding="utf-8"))


def test_a_model_and_another_tokenizer_contradict(model_folder):
    with pytest.raises(SpecError, match="contradicts"):
        RulerV2Build(model=str(model_folder), tokenizer="cl100k_base")
    assert RulerV2Build(model=str(model_folder), tokenizer=f"hf:{model_folder}").counting_tokenizer == f"hf:{model_folder}"


@pytest.mark.parametrize(("built_for", "evaluated", "warns"), [
    ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", False),
    ("/models/qwen2.5-7b-instruct/", "Qwen/Qwen2.5-7B-Instruct", False),
    ("Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", True),
    (None, "Qwen/Qwen2.5-7B-Instruct", True),
])
def test_the_warning_compares_model_names(built_for, evaluated, warns):
    claim = {"model": built_for, "tokenizer": "hf:x", "rule": "r"}
    warning = length_counting_warning(claim, evaluated)
    assert (warning is not None) == warns
    if warns:
        assert f"--model {evaluated}" in warning
    assert length_counting_warning(None, evaluated) is None
    assert model_stem("C:\\models\\Qwen2.5-7B-Instruct") == "qwen2.5-7b-instruct"


def test_a_run_of_another_model_warns_in_its_results(tmp_path):
    schema = pa.schema([("id", pa.string()), ("task", pa.string()), ("level", pa.string()), ("input", pa.string()),
                        ("answers", pa.list_(pa.string())), ("generation_reserve", pa.int32()),
                        ("target_tokens", pa.int32())])
    rows = [{"id": "r0", "task": "mk_niah", "level": "basic", "input": "Find the value 7.", "answers": ["7"],
             "generation_reserve": 128, "target_tokens": 1024}]
    manifest = {"benchmark": "rulerv2", "tokenizer": {"name": "hf:a"},
                "lengths_for_model": {"model": "org/model-a", "tokenizer": "hf:a", "rule": "r"}}
    release = write_test_release(tmp_path / "release", manifest, schema, {"mk_niah_basic": rows})
    for model, warned in (("org/model-b", True), ("model-a", False)):
        spec = RunSpec(dataset=str(release), configs=("mk_niah_basic",), model=model, backend="vllm",
                       output_dir=tmp_path / model.replace("/", "_"))
        outcome = run(spec, backend=ScriptedBackend(lambda content: "7"), progress=False)
        assert any("lengths were counted with hf:a" in w for w in outcome.results["warnings"]) == warned
        assert outcome.results["provenance"]["lengths_for_model"]["model"] == "org/model-a"
