"""Check that a release's files, manifest and card agree, recomputing content hashes."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from builders.hashing import hash_parquet_files
from builders.release import CARD, MANIFEST
from needlework.errors import ReleaseError
from needlework.releases import check_release_folder

READER = "needlework reads a local release folder"


def read_manifest(release: Path) -> dict:
    """The parsed ``manifest.json`` of a release.

    Raises:
        ReleaseError: ``release`` is not a release folder (the message says whether it does not
            exist, is a file or lacks the manifest, and suggests the closest release), or the
            manifest is not valid JSON.
    """
    path = check_release_folder(Path(release), reader=READER) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ReleaseError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from err


def read_card_metadata(release: Path) -> dict:
    """The YAML front matter of a release's ``README.md``."""
    path = Path(release) / CARD
    if not path.is_file():
        raise ReleaseError(f"{release}: no {CARD} (the dataset card)")
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise ReleaseError(f"{path}: no YAML front matter")
    return yaml.safe_load(text[4 : text.index("\n---\n", 4)]) or {}


def validate_release(release: Path) -> list[str]:
    """Every disagreement between files, manifest and card; an empty list means valid.

    Checks: each manifest split's files exist and no other shards exist; row counts and content
    hashes recomputed from the shards equal the manifest's; the card declares exactly the
    manifest's configs and splits, with matching data_files patterns and example counts.
    """
    release = Path(release)
    manifest = read_manifest(release)
    card = read_card_metadata(release)
    problems: list[str] = []
    configs = manifest.get("configs", {})
    listed = {f for c in configs.values() for s in c["splits"].values() for f in s["files"]}
    on_disk = {p.relative_to(release).as_posix() for p in sorted(release.glob("*/*.parquet"))}
    problems += [f"{f}: listed in {MANIFEST} but missing" for f in sorted(listed - on_disk)]
    problems += [f"{f}: shard not listed in {MANIFEST}" for f in sorted(on_disk - listed)]
    for name, config in sorted(configs.items()):
        for split, info in sorted(config["splits"].items()):
            files = [release / f for f in info["files"] if (release / f).is_file()]
            if len(files) != len(info["files"]):
                continue
            try:
                digest = hash_parquet_files(files)
            except ReleaseError as err:
                problems.append(str(err))
                continue
            if digest.rows != info["rows"]:
                problems.append(f"{name}/{split}: {digest.rows} rows in shards, {info['rows']} in {MANIFEST}")
            if digest.hexdigest() != info["content_sha256"]:
                problems.append(f"{name}/{split}: content hash {digest.hexdigest()} != {MANIFEST} {info['content_sha256']}")
    problems += _card_problems(card, configs)
    return problems


def _card_problems(card: dict, configs: dict) -> list[str]:
    problems = []
    card_configs = {c["config_name"]: c for c in card.get("configs", [])}
    for name in sorted(set(configs) - set(card_configs)):
        problems.append(f"{CARD}: config {name} missing from configs:")
    for name in sorted(set(card_configs) - set(configs)):
        problems.append(f"{CARD}: config {name} declared but not in {MANIFEST}")
    infos = card.get("dataset_info", [])
    infos = {i["config_name"]: i for i in ([infos] if isinstance(infos, dict) else infos)}
    for name in sorted(set(configs) & set(card_configs)):
        declared = {d["split"]: d["path"] for d in card_configs[name].get("data_files", [])}
        for split, info in sorted(configs[name]["splits"].items()):
            want = f"{name}/{split}-*.parquet"
            if declared.get(split) != want:
                problems.append(f"{CARD}: {name}/{split} data_files is {declared.get(split)!r}, expected {want!r}")
            examples = {s["name"]: s.get("num_examples") for s in infos.get(name, {}).get("splits", [])}
            if examples.get(split) != info["rows"]:
                problems.append(f"{CARD}: {name}/{split} num_examples {examples.get(split)} != {MANIFEST} rows {info['rows']}")
        for split in sorted(set(declared) - set(configs[name]["splits"])):
            problems.append(f"{CARD}: {name}/{split} declared but not in {MANIFEST}")
    return problems
