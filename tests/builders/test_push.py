"""``needlework push``: a validated release in one Hub commit, tagged, loadable at that tag for good.

The Hub is replaced by :class:`tests.support.hub.LocalHub`, which applies the commit operations the
push sends (``huggingface_hub.CommitOperationAdd`` / ``CommitOperationDelete``) to folder snapshots,
so ``load_dataset(snapshot of the tag, config)`` reads what ``load_dataset(repo, config,
revision=tag)`` would read from the Hub (issue 26, item 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner

import builders.push
from builders.cli import main
from builders.push import plan_push, push_release, release_version
from builders.rulerv2 import RulerV2Build, build
from needlework.errors import ReleaseError
from tests.support.hub import LocalHub

REPO = "needlework-test/rulerv2"


def small_release(folder: Path, qwen, seed: int, tasks=("mk_niah_basic", "mv_niah_basic")) -> Path:
    build(RulerV2Build(tasks=tasks, lengths=(1024,), samples=2, seed=seed), folder, tokens=qwen, progress=False)
    return folder


def rows(folder: Path, config: str) -> list[dict]:
    return list(datasets.load_dataset(str(folder), config, split="test"))


@pytest.fixture
def hub(tmp_path) -> LocalHub:
    return LocalHub(tmp_path / "hub")


def test_a_pushed_tag_loads_exactly_that_release_after_a_later_push(tmp_path, qwen, hub):
    first = small_release(tmp_path / "first", qwen, seed=0)
    second = small_release(tmp_path / "second", qwen, seed=1, tasks=("mk_niah_basic",))
    one = push_release(plan_push(first, REPO), hub)
    two = push_release(plan_push(second, REPO), hub)
    assert one.tag != two.tag and one.tag == release_version(json.loads((first / "manifest.json").read_text()))
    assert one.deleted == () and two.deleted == ("mv_niah_basic/test-00000-of-00001.parquet",)
    for release, result in ((first, one), (second, two)):
        snapshot = hub.snapshot(REPO, result.tag)
        assert sorted(hub.files(REPO, result.tag)) == sorted(p.relative_to(release).as_posix()
                                                             for p in release.rglob("*") if p.is_file())
        assert rows(snapshot, "mk_niah_basic") == rows(release, "mk_niah_basic")
        assert (snapshot / "README.md").read_bytes() == (release / "README.md").read_bytes()  # configs: YAML as built
    assert rows(hub.snapshot(REPO, one.tag), "mk_niah_basic") != rows(hub.snapshot(REPO, two.tag), "mk_niah_basic")
    assert hub.calls.count("create_commit") == 2  # one atomic commit per release


def test_a_release_that_does_not_validate_is_refused_before_the_hub_is_called(tmp_path, qwen, hub):
    release = small_release(tmp_path / "r", qwen, seed=0)
    manifest = json.loads((release / "manifest.json").read_text())
    manifest["configs"]["mk_niah_basic"]["splits"]["test"]["content_sha256"] = "0" * 64
    (release / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReleaseError, match="does not validate, not pushed .*content"):
        push_release(plan_push(release, REPO), hub)
    assert hub.calls == []


def test_an_existing_tag_is_never_moved(tmp_path, qwen, hub):
    release = small_release(tmp_path / "r", qwen, seed=0)
    push_release(plan_push(release, REPO, tag="v1"), hub)
    other = small_release(tmp_path / "other", qwen, seed=1)
    with pytest.raises(ReleaseError, match="tag v1 exists already"):
        push_release(plan_push(other, REPO, tag="v1"), hub)
    assert hub.calls.count("create_commit") == 1
    assert rows(hub.snapshot(REPO, "v1"), "mk_niah_basic") == rows(release, "mk_niah_basic")


def test_a_repo_id_must_be_org_and_name(tmp_path, qwen):
    release = small_release(tmp_path / "r", qwen, seed=0)
    with pytest.raises(ReleaseError, match="ORG/NAME"):
        plan_push(release, "just-a-name")


def test_dry_run_lists_the_files_and_contacts_nobody(tmp_path, qwen, monkeypatch):
    release = small_release(tmp_path / "r", qwen, seed=0)
    (release / ".partial-build").mkdir()  # hidden folders are not part of a release
    monkeypatch.setattr(builders.push, "push_release", lambda *a, **k: pytest.fail("dry run pushed"))
    result = CliRunner().invoke(main, ["push", str(release), REPO, "--dry-run", "--tag", "v0-test"])
    assert result.exit_code == 0, result.output
    listed = [line.split()[-1] for line in result.output.splitlines()[:-1]]
    assert listed == ["README.md", "manifest.json", "mk_niah_basic/test-00000-of-00001.parquet",
                      "mv_niah_basic/test-00000-of-00001.parquet"]
    assert result.output.splitlines()[-1].startswith("4 files,") and "tag v0-test" in result.output


def test_the_token_comes_from_the_environment_and_is_written_nowhere(tmp_path, qwen, hub, monkeypatch):
    release = small_release(tmp_path / "r", qwen, seed=0)
    secret = "hf_SENTINELtokenNEVERtoBEwritten"
    monkeypatch.setenv("HF_TOKEN", secret)
    monkeypatch.setattr("huggingface_hub.HfApi", lambda *a, **k: hub)
    assert "--token" not in CliRunner().invoke(main, ["push", "--help"]).output
    result = CliRunner().invoke(main, ["push", str(release), REPO])
    assert result.exit_code == 0, result.output
    assert "pushed 4 files" in result.output and "revision=" in result.output and secret not in result.output
    for path in [*release.rglob("*"), *hub.root.rglob("*")]:
        assert not path.is_file() or secret.encode() not in path.read_bytes()


def test_a_hub_error_is_one_line_with_status_2(tmp_path, qwen, monkeypatch):
    release = small_release(tmp_path / "r", qwen, seed=0)

    class Offline:
        def create_repo(self, *a, **k):
            raise OSError("Cannot reach https://huggingface.co/api/repos/create: offline\nrequest id: 123")

    monkeypatch.setattr("huggingface_hub.HfApi", Offline)
    result = CliRunner().invoke(main, ["push", str(release), REPO])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "push failed: Cannot reach" in result.output
