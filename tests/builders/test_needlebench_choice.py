"""The multiple-choice ATC configs of a NeedleBench build: opt-in, their own schema, other configs unchanged.

Source of truth: OpenCompass ``opencompass/configs/datasets/needlebench/atc/atc_choice.py`` (one dataset per
language and few-shot variant, ``needle_num_list = range(2, 20)``, ``repeats = 10``) and
``opencompass/datasets/needlebench/atc_choice.py`` (four circular rows per question).
"""

from __future__ import annotations

import json

import datasets
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builders.cli import main as needlework_main
from builders.needlebench import (
    BUILDER,
    CHOICE_FEATURES,
    FEATURES,
    NeedleBenchBuild,
    build,
    expected_rows,
)
from generators.needlebench.spec import CHOICE_TASKS, TASKS, AtcChoiceSpec


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """A fresh ``datasets`` cache: it keys on file names and sizes and could serve an earlier session's rows."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))


def content_hashes(out) -> dict[str, str]:
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return {config: block["splits"]["test"]["content_sha256"] for config, block in manifest["configs"].items()}


def test_the_choice_tasks_are_known_but_not_built_by_default():
    assert set(CHOICE_TASKS) <= set(TASKS)
    spec = NeedleBenchBuild()
    assert spec.tasks == ("s-rt", "m-rt", "m-rs", "atc")
    assert not any(isinstance(s, AtcChoiceSpec) for s in spec.specs())
    assert NeedleBenchBuild(preset="paper", tasks=("atc",)).tasks == ("atc",)


def test_choice_configs_have_their_schema_and_row_counts(tmp_path, cl100k, hub_cache):
    spec = NeedleBenchBuild(tasks=("atc", *CHOICE_TASKS), langs=("en", "zh"), atc_needles=(2,), repeats=2,
                            choice_needles=(2, 5))
    out = tmp_path / "nb"
    report = build(spec, out, tokens=cl100k, progress=False)
    assert list(report.rows) == ["atc-en", "atc-zh", "atc-choice-en", "atc-choice-zh", "atc-choice-reasoning-en",
                                 "atc-choice-reasoning-zh"]
    assert report.rows["atc-choice-en"] == 2 * 2 * 4 == expected_rows(AtcChoiceSpec("en", (2, 5), 2))
    for config in report.rows:
        features = CHOICE_FEATURES if "choice" in config else FEATURES
        assert BUILDER.features(config) == features
        loaded = datasets.load_dataset(str(out), config, split="test")
        assert loaded.features.to_dict() == features.to_dict() and loaded.num_rows == report.rows[config]
    rows = [r for p in sorted((out / "atc-choice-reasoning-zh").glob("test-*.parquet")) for r in pq.read_table(p).to_pylist()]
    assert {r["task"] for r in rows} == {"atc-choice-reasoning"} and {r["needle_count"] for r in rows} == {2, 5}
    assert all(r["few_shot"][0]["content"].startswith("问题: 毕东作为刘红的爸爸") for r in rows)
    # Adding the choice tasks leaves the ATC configs' content as a build without them writes it.
    alone = tmp_path / "alone"
    build(NeedleBenchBuild(tasks=("atc",), langs=("en", "zh"), atc_needles=(2,), repeats=2), alone, tokens=cl100k,
          progress=False)
    assert {c: h for c, h in content_hashes(out).items() if c.startswith("atc-") and "choice" not in c} == \
        content_hashes(alone)


def test_cli_takes_an_official_grid_by_its_config_name(tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(needlework_main, ["build", "needlebench", "--tasks", "atc-choice", "--langs", "en",
                                                  "--choice-needles", "atc_choice", "--repeats", "1", "--out", str(out),
                                                  "--quiet"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["configs"]["atc-choice-en"]["splits"]["test"]["rows"] == 18 * 4
    assert "--choice-needles atc_choice " in manifest["build"]["command"]
