"""eval.release: local releases, and the Hub path pinned to one commit (Hub calls replaced by local files)."""

from __future__ import annotations

import hashlib
import json
import shutil
from types import SimpleNamespace

import huggingface_hub
import pytest
from click.testing import CliRunner

from eval.cli import main
from eval.release import open_release
from needlework.errors import HubError, InputError, ReleaseError

from tests.support.releases import eval_release  # noqa: F401 - fixture


def test_local_release_identity_revision_and_rows(eval_release):  # noqa: F811
    release = open_release(str(eval_release))
    manifest_bytes = (eval_release / "manifest.json").read_bytes()
    assert release.revision == "sha256:" + hashlib.sha256(manifest_bytes).hexdigest()
    assert release.identity == f"file:{eval_release.resolve().name}"
    config = sorted(release.manifest["configs"])[0]
    rows = list(release.iter_rows(config, "test"))
    assert len(rows) == release.num_rows(config, "test")
    assert [r["id"] for r in release.iter_rows(config, "test", limit=2)] == [r["id"] for r in rows[:2]]


def test_hub_release_is_fetched_at_the_resolved_commit(eval_release, monkeypatch):  # noqa: F811
    sha = "0123456789abcdef0123456789abcdef01234567"
    asked: list[tuple[str, str, str | None]] = []

    def dataset_info(self, repo_id, revision=None, **_):
        asked.append(("info", repo_id, revision))
        return SimpleNamespace(sha=sha)

    def hf_hub_download(repo_id, filename, repo_type=None, revision=None, **_):
        assert repo_type == "dataset"
        asked.append(("download", filename, revision))
        return str(eval_release / filename)

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", dataset_info)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
    release = open_release("needlework/rulerv2-test", "v1")
    config = sorted(release.manifest["configs"])[0]
    assert release.identity == "hub:needlework/rulerv2-test" and release.revision == sha
    assert len(list(release.iter_rows(config, "test"))) == release.num_rows(config, "test")
    assert asked[0] == ("info", "needlework/rulerv2-test", "v1")
    assert {revision for kind, _, revision in asked if kind == "download"} == {sha}


def test_bad_inputs_name_the_file(tmp_path, eval_release):  # noqa: F811
    with pytest.raises(ReleaseError, match="not a Hub dataset id"):
        open_release(str(tmp_path / "missing.d" / "x"))
    with pytest.raises(ReleaseError, match="--revision applies to Hub datasets"):
        open_release(str(eval_release), "main")
    broken = tmp_path / "broken"
    shutil.copytree(eval_release, broken)
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"broken/manifest\.json"):
        open_release(str(broken))
    manifest = json.loads((eval_release / "manifest.json").read_text(encoding="utf-8"))
    config = sorted(manifest["configs"])[0]
    (broken / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    release = open_release(str(broken))
    with pytest.raises(ReleaseError, match="no config 'nope'; configs: "):
        release.split_info("nope", "test")
    with pytest.raises(ReleaseError, match="has no split 'train'"):
        release.split_info(config, "train")
    shard = broken / manifest["configs"][config]["splits"]["test"]["files"][0]
    shard.write_bytes(b"PAR1 not parquet")
    with pytest.raises(InputError, match="unreadable Parquet shard"):
        list(release.iter_rows(config, "test"))


@pytest.mark.parametrize("command", [
    ["count", "--config", "mk_niah_basic"],
    ["run", "--config", "mk_niah_basic", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
])
def test_a_mistyped_folder_that_looks_like_a_hub_id_is_one_error_line(tmp_path, monkeypatch, command,
                                                                      eval_release):  # noqa: F811
    """Issue 20: ``demo-releases/rulerv3`` offline used to end in a 95-line traceback."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(main, [command[0], "--dataset", "demo-releases/rulerv3", *command[1:]])
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line.startswith("error: demo-releases/rulerv3: no such release folder here, and the Hub dataset "
                           "demo-releases/rulerv3@main cannot be read: offline mode (HF_HUB_OFFLINE=1")
    assert not line.endswith("?")  # nothing beside it to suggest
    shutil.copytree(eval_release, tmp_path / "demo-releases" / "rulerv2")
    result = CliRunner().invoke(main, [command[0], "--dataset", "demo-releases/rulerv3", *command[1:]])
    (line,) = result.output.splitlines()
    assert result.exit_code == 2 and line.endswith("; did you mean demo-releases/rulerv2?"), line


def test_a_hub_download_failure_is_one_hub_error_line(eval_release, monkeypatch):  # noqa: F811
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", lambda self, repo, revision=None: SimpleNamespace(sha="a" * 40))

    def refuse(*args, **kwargs):
        raise ConnectionError("connection reset\nand many more lines")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", refuse)
    with pytest.raises(HubError, match=r"^owner/name@aaaaaaaaaaaa: cannot download manifest.json: not in the local "
                                       r"Hugging Face cache, and the Hub at \S+ cannot be reached \(connection reset\); "
                                       r"check the network connection, a proxy, or HF_ENDPOINT$"):
        open_release("owner/name")


@pytest.mark.parametrize(("fault", "revision", "problem"), [
    ((404, "RepoNotFound", "Repository not found"), None,
     "no such repository on the Hub, or a private one this token cannot see; check the id, or log in"),
    ((403, "GatedRepo", "restricted"), None, "a gated repository: accept its conditions on its Hub page"),
    ((404, "RevisionNotFound", "Invalid rev id"), "v9", "no such revision; name an existing branch, tag or commit"),
    ((502, None, "Bad Gateway"), None, "the Hub answered with a server error (HTTP 502: Bad Gateway); try again later"),
])
def test_eval_against_a_hub_dataset_the_hub_refuses_is_one_line_saying_why(tmp_path, monkeypatch, fault, revision,
                                                                          problem):
    """The real client against a local stand-in for the Hub (issue 41): every answer used to end in
    "can be reached (404 Client Error.)" or the like, the same words for a typo, a gated dataset and an outage."""
    from huggingface_hub import constants

    from tests.support.hub_server import serve_in_thread

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    server = serve_in_thread(tmp_path / "hub")
    server.state.fault = fault
    monkeypatch.setattr(constants, "ENDPOINT", server.endpoint)
    try:
        result = CliRunner().invoke(main, ["run", "--dataset", "needlework-test/data", "--config", "c", "--model", "m",
                                           "--base-url", "http://127.0.0.1:9/v1", *(["--revision", revision] if revision else [])])
    finally:
        server.stop()
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line == (f"error: needlework-test/data: no such release folder here, and the Hub dataset "
                    f"needlework-test/data@{revision or 'main'} cannot be read: ") + line.split("cannot be read: ", 1)[1]
    assert line.split("cannot be read: ", 1)[1].startswith(problem), line
    assert not (tmp_path / "eval-runs").exists()
