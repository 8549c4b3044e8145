"""Dataset cards: YAML metadata generated from the manifest, body rendered from ``cards/``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any

import yaml

from builders.features import Features
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


def card_metadata(facts: CardFacts, manifest: Mapping[str, Any], features: Mapping[str, Features]) -> dict[str, Any]:
    """The card's YAML front matter: license, language, sizes, tags, ``dataset_info`` (each config's
    features and split sizes) and ``configs`` (each config's data files), the keys and order that the
    Hub's ``DatasetCardData`` with ``datasets``' ``DatasetInfosDict`` and ``MetadataConfigs`` write.

    One config's ``dataset_info`` is a mapping (without ``config_name`` if it is ``default``), several
    a list sorted by config name, as ``datasets`` writes them.
    """
    configs = manifest["configs"]
    total = sum(s["rows"] for c in configs.values() for s in c["splits"].values())
    infos = [
        {
            "config_name": name,
            "features": features[name].to_yaml_list(),
            "splits": [
                {"name": split, "num_bytes": s["num_bytes"], "num_examples": s["rows"]}
                for split, s in sorted(c["splits"].items())
            ],
        }
        for name, c in sorted(configs.items())
    ]
    if len(infos) == 1 and infos[0]["config_name"] == "default":
        del infos[0]["config_name"]
    return {
        "language": list(facts.language),
        "license": facts.license,
        "size_categories": [size_category(total)],
        "task_categories": list(facts.task_categories),
        "pretty_name": facts.pretty_name,
        "tags": list(facts.tags),
        "dataset_info": infos[0] if len(infos) == 1 else infos,
        "configs": [
            {
                "config_name": name,
                "data_files": [{"split": split, "path": f"{name}/{split}-*.parquet"} for split in sorted(c["splits"])],
            }
            for name, c in sorted(configs.items())
        ],
    }


def card_yaml(metadata: Mapping[str, Any]) -> str:
    """The front matter's text, as the Hub client dumps it: keys in order, Unicode as is, no final newline."""
    return yaml.dump(dict(metadata), Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True).strip()


def render_card(
    facts: CardFacts,
    manifest: Mapping[str, Any],
    features: Mapping[str, Features],
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
    return f"---\n{card_yaml(card_metadata(facts, manifest, features))}\n---\n\n{text}"
