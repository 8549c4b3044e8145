"""The light feature declarations (:mod:`builders.features`) and the card written from them give exactly
what ``datasets`` gives: every builder's declarations against ``datasets.Features`` of the same
declaration (Arrow schema with its ``huggingface`` metadata bytes, ``to_dict``, the card's YAML list),
the card's front matter against the ``datasets``/``huggingface_hub`` code that wrote it before, and the
writing path imports neither ``datasets`` nor pandas."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import datasets
import pytest
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

import builders
from builders.card import (
    CardFacts,
    card_metadata,
    card_yaml,
    render_card,
    size_category,
)
from builders.features import DTYPES, Feature, Features, List, Value

DECLARING = sorted(
    f"builders.{path.stem}" for path in Path(builders.__file__).parent.glob("*.py")
    if re.search(r"^from builders\.features import .*\bValue\b", path.read_text(encoding="utf-8"), re.MULTILINE)
)
"""Every builder module that declares features (found from the source, so a new builder is checked at once)."""


def as_datasets(feature: Feature) -> Any:
    """The same declaration made with ``datasets``' own types."""
    if isinstance(feature, Value):
        return datasets.Value(feature.dtype)
    if isinstance(feature, List):
        return datasets.List(as_datasets(feature.feature), length=feature.length)
    items = {name: as_datasets(inner) for name, inner in feature.items()}
    return datasets.Features(items) if isinstance(feature, Features) else items


def declarations(module: str) -> dict[str, Features]:
    """A module's top-level Features, and those in its top-level dicts, by name."""
    found = {}
    for name, value in vars(importlib.import_module(module)).items():
        if isinstance(value, Features):
            found[name] = value
        elif isinstance(value, dict) and value and all(isinstance(v, Features) for v in value.values()):
            found.update({f"{name}[{key!r}]": v for key, v in value.items()})
    return found


def assert_same_as_datasets(features: Features) -> None:
    expected = as_datasets(features)
    assert features.arrow_schema.equals(expected.arrow_schema, check_metadata=True)
    assert features.arrow_schema.metadata == expected.arrow_schema.metadata  # the bytes written to every Parquet file
    assert json.dumps(features.to_dict()) == json.dumps(expected.to_dict())  # key order included
    assert json.dumps(features.to_yaml_list()) == json.dumps(expected._to_yaml_list())


def test_every_builder_module_is_found():
    assert {"builders.needlebench", "builders.rulerv2", "builders.embs", "builders.world", "builders.haystackcraft",
            "builders.haystackcraft_dynamic", "builders.sequential_niah"} <= set(DECLARING)


@pytest.mark.parametrize("module", DECLARING)
def test_builder_declarations_match_datasets(module):
    found = declarations(module)
    assert found, f"{module} imports Value but declares no Features"
    for name, features in found.items():
        try:
            assert_same_as_datasets(features)
        except AssertionError as err:
            raise AssertionError(f"{module}.{name}") from err


def test_every_kind_of_feature_matches_datasets():
    struct = {"p": Value("bool"), "q": List(Value("string")), "r": {"s": Value("float32")}}
    assert_same_as_datasets(Features({
        **{f"v_{dtype}": Value(dtype) for dtype in DTYPES},
        "list": List(Value("int32")), "fixed": List(Value("int8"), length=3), "nested": List(List(Value("string"))),
        "fixed_nested": List(List(Value("int64"), length=2)), "structs": List(struct), "struct": struct,
        "fixed_structs": List(struct, length=4),
    }))


def test_an_unknown_dtype_is_refused():
    with pytest.raises(ValueError, match="unknown dtype"):
        Value("float")


# --- The card, against the datasets-based code that wrote it before ----------------------------------------


def datasets_card_yaml(facts: CardFacts, manifest: Mapping[str, Any], features: Mapping[str, Features]) -> str:
    """The front matter as the previous ``builders.card.card_metadata`` rendered it, with ``datasets``."""
    configs = manifest["configs"]
    total = sum(s["rows"] for c in configs.values() for s in c["splits"].values())
    data = DatasetCardData(license=facts.license, language=list(facts.language),
                           task_categories=list(facts.task_categories), size_categories=[size_category(total)],
                           pretty_name=facts.pretty_name, tags=list(facts.tags))
    DatasetInfosDict({
        name: DatasetInfo(features=as_datasets(features[name]), config_name=name, splits=datasets.SplitDict({
            split: datasets.SplitInfo(name=split, num_examples=s["rows"], num_bytes=s["num_bytes"])
            for split, s in sorted(c["splits"].items())}))
        for name, c in sorted(configs.items())
    }).to_dataset_card_data(data)
    MetadataConfigs({
        name: {"data_files": [{"split": split, "path": f"{name}/{split}-*.parquet"} for split in sorted(c["splits"])]}
        for name, c in sorted(configs.items())
    }).to_dataset_card_data(data)
    return data.to_yaml()


def manifest_of(configs: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """A small manifest: config -> split -> rows (bytes made up from the rows)."""
    return {"needlework_version": "0.0.0", "seed": 1, "configs": {
        config: {"splits": {split: {"rows": rows, "num_bytes": 1000 * rows + 7} for split, rows in splits.items()}}
        for config, splits in configs.items()}}


FACTS = CardFacts(benchmark="needlebench", pretty_name="Bench ü 文字 — a long pretty name that the YAML dumper "
                  "might well fold over the line width of eighty characters", license="apache-2.0",
                  language=("en", "zh"), task_categories=("question-answering",), tags=(), attribution="")
NEEDLE = Features({"text": Value("string"), "depth": Value("float64")})
A = Features({"id": Value("string"), "answers": List(Value("string")), "needles": List(dict(NEEDLE)),
              "fixed": List(Value("int32"), length=2), "meta": {"k": Value("bool")}})
B = Features({"id": Value("string"), "n": Value("int8")})


@pytest.mark.parametrize("configs, features", [
    ({"atc-en": {"test": 40}}, {"atc-en": A}),
    ({"default": {"test": 3}}, {"default": B}),  # one config named default: no config_name in dataset_info
    ({"b": {"test": 2, "dev": 0}, "a": {"test": 5000}, "default": {"test": 1}}, {"a": A, "b": B, "default": B}),
])
def test_card_yaml_is_what_datasets_wrote(configs, features):
    manifest = manifest_of(configs)
    assert card_yaml(card_metadata(FACTS, manifest, features)) == datasets_card_yaml(FACTS, manifest, features)


def test_rendered_card_starts_with_that_yaml():
    manifest = manifest_of({"atc-en": {"test": 40}, "atc-zh": {"test": 40}})
    features = {"atc-en": A, "atc-zh": A}
    card = render_card(FACTS, manifest, features)
    assert card.startswith(f"---\n{datasets_card_yaml(FACTS, manifest, features)}\n---\n\n# ")


# --- The writing path imports no datasets ----------------------------------------------------------------


def test_writing_path_imports_neither_datasets_nor_pandas():
    script = ("import sys, builders.needlebench, builders.release, builders.card, builders.features; "
              "print(sorted(m for m in ('datasets', 'pandas', 'huggingface_hub') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]
