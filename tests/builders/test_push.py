"""``needlework push``: what a push plans (the repository id, the files listed by ``--dry-run``).

The push itself (one commit, the tag, deleted stale shards, the token, a refused release, Hub
errors) is tested end to end against a local HTTP server standing in for the Hub's API in
``tests/builders/test_push_http.py`` (issue 26, item 3).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import builders.push
from builders.cli import main
from builders.push import plan_push, release_version
from builders.rulerv2 import RulerV2Build, build
from needlework.errors import ReleaseError

REPO = "needlework-test/rulerv2"


def small_release(folder: Path, qwen, seed: int, tasks=("mk_niah_basic", "mv_niah_basic")) -> Path:
    build(RulerV2Build(tasks=tasks, lengths=(1024,), samples=2, seed=seed), folder, tokens=qwen, progress=False)
    return folder


def test_a_repo_id_must_be_org_and_name(tmp_path, qwen):
    release = small_release(tmp_path / "r", qwen, seed=0)
    with pytest.raises(ReleaseError, match="ORG/NAME"):
        plan_push(release, "just-a-name")
    # issue 41: the Hub's own rule, before anything is read or uploaded, a dry run included, in one line, exit 2
    with pytest.raises(ReleaseError, match="not a Hub dataset id"):
        plan_push(release, "not a valid/repo id!!")
    result = CliRunner().invoke(main, ["push", str(release), "not a valid/repo id!!", "--dry-run"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines() == [result.output.strip()] and "not a Hub dataset id" in result.output


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


def test_the_default_tag_follows_the_rows_content_hashes_and_nothing_else():
    """Two releases get one default tag exactly when every config's and split's content hash agrees
    (the order configs are listed in and other manifest fields do not matter)."""
    splits = {"a": {"splits": {"test": {"content_sha256": "1" * 64}}}, "b": {"splits": {"test": {"content_sha256": "2" * 64}}}}
    tag = release_version({"needlework_version": "0.1.0", "configs": splits, "seed": 0})
    assert tag.startswith("v0.1.0-") and len(tag) == len("v0.1.0-") + 12
    assert release_version({"needlework_version": "0.1.0", "configs": dict(reversed(splits.items())), "seed": 7}) == tag
    changed = {**splits, "b": {"splits": {"test": {"content_sha256": "3" * 64}}}}
    assert release_version({"needlework_version": "0.1.0", "configs": changed}) != tag


@pytest.mark.parametrize(("args", "expected"), [
    (["nowhere", "not a valid/repo id!!", "--dry-run"], "error: 'not a valid/repo id!!': not a Hub dataset id ("),
    (["nowhere", REPO, "--tag", "v 1", "--dry-run"], "error: --tag 'v 1': a tag cannot contain ' '"),
    (["nowhere", REPO, "--tag", "v1..2"], "error: --tag 'v1..2': a tag cannot contain '..'"),
    (["nowhere", REPO, "--tag", "v1.lock"], "error: --tag 'v1.lock': a tag cannot be '@', start with / . or -, end"),
])
def test_a_bad_id_or_tag_is_refused_before_the_release_is_read(tmp_path, args, expected):
    """Issue 41: the id and the tag are checked first (the release folder here does not even exist); a tag git
    cannot name used to pass a dry run and fail on the Hub only after the commit, leaving it untagged."""
    result = CliRunner().invoke(main, ["push", str(tmp_path / args[0]), *args[1:]])
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line.startswith(expected), line


def test_a_hub_server_error_during_a_push_is_one_line_saying_to_try_again(tmp_path, qwen, monkeypatch):
    """The real client against the local Hub stand-in answering 503: one line naming the repository, the status and
    what to do, exit 2, and nothing created there."""
    from huggingface_hub import constants

    from tests.support.hub_server import serve_in_thread

    release = small_release(tmp_path / "r", qwen, seed=0)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    server = serve_in_thread(tmp_path / "hub")
    server.state.fault = (503, None, "Service Unavailable")
    monkeypatch.setattr(constants, "ENDPOINT", server.endpoint)
    monkeypatch.setenv("HF_TOKEN", "hf_SENTINEL")
    try:
        result = CliRunner().invoke(main, ["push", str(release), REPO, "--tag", "v1"])
    finally:
        server.stop()
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line == (f"error: {REPO}: push failed: the Hub answered with a server error (HTTP 503: Service "
                    "Unavailable); try again later")
    assert server.state.repos == {} and [r.path for r in server.state.requests][-1] == "/api/repos/create"
