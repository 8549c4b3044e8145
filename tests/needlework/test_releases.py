"""Release folders: what a path is instead of a release, and the closest release to a typo."""

from __future__ import annotations

from pathlib import Path

import pytest

from needlework.errors import ReleaseError
from needlework.releases import check_release_folder, closest_release_folders, did_you_mean, release_folders_in

READER = "test reads a local folder"


@pytest.fixture
def releases(tmp_path) -> Path:
    """``releases/`` with three releases, a folder without a manifest and a file."""
    root = tmp_path / "releases"
    for name in ("rulerv2", "needlebench", "sequential-niah"):
        (root / name).mkdir(parents=True)
        (root / name / "manifest.json").write_text("{}", encoding="utf-8")
    (root / "rulerv2-notes").mkdir()
    (root / "notes.txt").write_text("", encoding="utf-8")
    return root


def test_closest_release_folders_are_sibling_releases_best_first(releases):
    assert closest_release_folders(releases / "rulerv3") == [releases / "rulerv2"]
    assert closest_release_folders(releases / "needlebench-zh") == [releases / "needlebench"]
    assert closest_release_folders(releases / "sequential_niah") == [releases / "sequential-niah"]
    assert closest_release_folders(releases / "rulerv2-note") == [releases / "rulerv2"]  # not the folder without a manifest
    assert closest_release_folders(releases / "rulerv2") == []  # never the path itself
    assert closest_release_folders(releases / "haystackcraft") == []
    assert closest_release_folders(releases / "absent" / "rulerv3") == []


def test_suggestions_keep_relative_paths_relative(releases, monkeypatch):
    monkeypatch.chdir(releases.parent)
    assert closest_release_folders(Path("releases/rulerv3")) == [Path("releases/rulerv2")]
    assert release_folders_in(Path("releases")) == [Path("releases/needlebench"), Path("releases/rulerv2"),
                                                    Path("releases/sequential-niah")]


def test_did_you_mean():
    assert did_you_mean([]) is None
    assert did_you_mean([Path("a")]) == "did you mean a?"
    assert did_you_mean([Path("a"), Path("b"), Path("c")]) == "did you mean a, b or c?"


def message(path: Path) -> str:
    with pytest.raises(ReleaseError) as caught:
        check_release_folder(path, reader=READER)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_check_release_folder_says_what_the_path_is_instead(releases):
    assert check_release_folder(releases / "rulerv2", reader=READER) == releases / "rulerv2"
    assert message(releases / "rulerv3") == f"{releases / 'rulerv3'}: no such release folder ({READER}; did you mean {releases / 'rulerv2'}?)"
    assert message(releases / "haystackcraft") == f"{releases / 'haystackcraft'}: no such release folder ({READER})"
    assert message(releases / "notes.txt") == f"{releases / 'notes.txt'}: a file, not a release folder ({READER})"
    manifest = releases / "rulerv2" / "manifest.json"
    assert message(manifest) == f"{manifest}: a file, not a release folder (did you mean {releases / 'rulerv2'}?)"
    assert message(releases / "rulerv2-notes") == (f"{releases / 'rulerv2-notes'}: no manifest.json; not a needlework release "
                                                   f"(did you mean {releases / 'rulerv2'}?)")
    assert message(releases) == (f"{releases}: no manifest.json; not a needlework release (it holds 3 releases: "
                                 f"{releases / 'needlebench'}, {releases / 'rulerv2'}, {releases / 'sequential-niah'})")
