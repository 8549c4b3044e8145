"""Dataset cards: YAML metadata generated from the manifest, body rendered from ``cards/``."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any, Mapping

import datasets
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

from needlework.errors import ReleaseError


@dataclass(frozen=True)
class CardFacts:
    """What a card states about a benchmark besides its configs (those come from the manifest).

    Attributes:
        benchmark: Benchmark name; the body template is ``cards/{benchmark}.md``.
        pretty_name: Human title.
        license: SPDX-style license id of the release.
        language: ISO codes of the languages in the data.
        task_categories: Hub task categories.
        tags: Free tags.
        attribution: Markdown paragraph naming the sources and their licenses.
    """

    benchmark: str
    pretty_name: str
    license: str
    language: tuple[str, ...]
    task_categories: tuple[str, ...]
    tags: tuple[str, ...]
    attribution: str


def size_category(rows: int) -> str:
    """The Hub's size bucket for a row count."""
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if rows < bound:
            return label
    return "1M<n<10M" if rows < 10_000_000 else "n>10M"


def card_metadata(facts: CardFacts, manifest: Mapping[str, Any], features: Mapping[str, datasets.Features]) -> DatasetCardData:
    """The card's YAML: configs with data files, dataset_info, license, language, sizes."""
    configs = manifest["configs"]
    total = sum(s["rows"] for c in configs.values() for s in c["splits"].values())
    data = DatasetCardData(
        license=facts.license,
        language=list(facts.language),
        task_categories=list(facts.task_categories),
        size_categories=[size_category(total)],
        pretty_name=facts.pretty_name,
        tags=list(facts.tags),
    )
    infos = {
        name: DatasetInfo(
            features=features[name],
            config_name=name,
            splits=datasets.SplitDict(
                {
                    split: datasets.SplitInfo(name=split, num_examples=s["rows"], num_bytes=s["num_bytes"])
                    for split, s in sorted(c["splits"].items())
                }
            ),
        )
        for name, c in sorted(configs.items())
    }
    DatasetInfosDict(infos).to_dataset_card_data(data)
    MetadataConfigs(
        {
            name: {"data_files": [{"split": split, "path": f"{name}/{split}-*.parquet"} for split in sorted(c["splits"])]}
            for name, c in sorted(configs.items())
        }
    ).to_dataset_card_data(data)
    return data


def render_card(
    facts: CardFacts,
    manifest: Mapping[str, Any],
    features: Mapping[str, datasets.Features],
    fields: Mapping[str, str] | None = None,
) -> str:
    """The full README.md of a release; ``fields`` adds builder-specific ``$name`` substitutions."""
    try:
        body = resources.files("cards").joinpath(f"{facts.benchmark}.md").read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise ReleaseError(f"no card template cards/{facts.benchmark}.md") from err
    rows = "\n".join(
        f"| `{name}` | {split} | {s['rows']:,} |"
        for name, c in sorted(manifest["configs"].items())
        for split, s in sorted(c["splits"].items())
    )
    tokenizer = manifest.get("tokenizer", {})
    text = Template(body).substitute(
        pretty_name=facts.pretty_name,
        configs_table="| config | split | rows |\n|---|---|---:|\n" + rows,
        first_config=min(manifest["configs"]),
        tokenizer=tokenizer.get("name", "n/a"),
        tokenizer_fingerprint=tokenizer.get("fingerprint", "n/a"),
        seed=manifest.get("seed", "n/a"),
        needlework_version=manifest.get("needlework_version", "n/a"),
        build_command=manifest.get("build", {}).get("command", "n/a"),
        attribution=facts.attribution,
        **(fields or {}),
    )
    return f"---\n{card_metadata(facts, manifest, features).to_yaml()}\n---\n\n{text}"
