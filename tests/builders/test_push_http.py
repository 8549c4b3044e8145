"""``needlework push`` end to end against a local HTTP server standing in for the Hub's API (issue 26).

The real CLI runs in a subprocess with ``HF_ENDPOINT`` pointing at :mod:`tests.support.hub_server`,
``HF_TOKEN`` set to a sentinel and ``HF_HUB_OFFLINE`` unset for that process only, so the real
``huggingface_hub.HfApi`` makes the requests it makes against the Hub: ``hf_api.py`` ``create_repo``
(``POST /api/repos/create``), ``list_repo_refs`` (``GET .../refs``), ``list_repo_files``
(``GET .../tree/main?recursive=true``), ``create_commit`` (``POST /api/validate-yaml`` for the
README, ``POST .../preupload/main``, then the NDJSON ``POST .../commit/main`` of
``_commit_api.py`` ``_prepare_commit_payload``) and ``create_tag`` (``POST .../tag/{oid}``).
The server answers every file "regular", so the content travels base64 inline in the commit.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builders.push import release_files, release_version
from builders.rulerv2 import RulerV2Build, build
from tests.support.hub_server import GITATTRIBUTES, HubServer, serve_in_thread
from tests.support.ports import closed_port
from tests.support.releases import split_rows

REPO = "needlework-test/rulerv2"
TOKEN = "hf_SENTINELtokenNEVERtoBEwritten"
NEEDLEWORK = Path(sys.executable).with_name("needlework")
STALE = "mv_niah_basic/test-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def releases(tmp_path_factory, qwen) -> dict[str, Path]:
    """Two releases: ``first`` (two configs, seed 0) and ``second`` (one config, seed 1)."""
    root = tmp_path_factory.mktemp("releases")
    out = {}
    for name, seed, tasks in (("first", 0, ("mk_niah_basic", "mv_niah_basic")), ("second", 1, ("mk_niah_basic",))):
        build(RulerV2Build(tasks=tasks, lengths=(1024,), samples=2, seed=seed), root / name, tokens=qwen,
              progress=False)
        out[name] = root / name
    return out


@pytest.fixture
def hub(tmp_path):
    server = serve_in_thread(tmp_path / "hub", token=TOKEN)
    yield server
    server.stop()



def needlework(tmp_path: Path, endpoint: str, *args: str) -> subprocess.CompletedProcess:
    """Run the installed ``needlework`` CLI as a user would, against ``endpoint``: the token in
    ``HF_TOKEN``, a fresh ``HF_HOME`` inside ``tmp_path`` (so every file the client writes is
    checked), debug logging of ``huggingface_hub`` on (every log line it can write is checked)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")}
    env.update(HF_ENDPOINT=endpoint, HF_TOKEN=TOKEN, HF_HOME=str(tmp_path / "hf_home"), HF_HUB_VERBOSITY="debug")
    return subprocess.run([str(NEEDLEWORK), *args], check=False, env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)


def release_bytes(release: Path) -> dict[str, bytes]:
    return {path: (release / path).read_bytes() for path, _ in release_files(release)}


def commit_lines(server: HubServer) -> list[list[dict]]:
    return [request.ndjson() for request in server.state.calls("POST", "/commit/")]


def test_a_push_is_one_commit_of_the_release_tagged_and_a_second_push_deletes_the_stale_shard(
        tmp_path, releases, hub):
    """The commit's NDJSON adds exactly the release's files (base64, byte for byte), the tag is made
    on that commit, ``load_dataset`` of the tag's snapshot equals the local release, and the next
    release's commit deletes the shard it no longer has while the first tag still loads the first
    release (``_commit_api.py`` ``_prepare_commit_payload``; ``hf_api.py`` ``create_tag``)."""
    first, second = releases["first"], releases["second"]
    done = needlework(tmp_path, hub.endpoint, "push", str(first), REPO)
    assert done.returncode == 0, done.stderr
    tag = release_version(json.loads((first / "manifest.json").read_text()))
    assert [(r.method, r.path) for r in hub.state.requests if r.path != "/api/agent-harnesses"] == [
        ("POST", "/api/repos/create"), ("GET", f"/api/datasets/{REPO}/refs"),
        ("GET", f"/api/datasets/{REPO}/tree/main"), ("POST", "/api/validate-yaml"),
        ("POST", f"/api/datasets/{REPO}/preupload/main"), ("POST", f"/api/datasets/{REPO}/commit/main"),
        ("POST", f"/api/datasets/{REPO}/tag/{hub.state.repos[REPO].main}")]
    [header, *operations] = commit_lines(hub)[0]
    assert header == {"key": "header", "value": {"summary": f"needlework release {tag}", "description": ""}}
    assert {op["value"]["path"]: base64.b64decode(op["value"]["content"]) for op in operations
            if op["key"] == "file"} == release_bytes(first)
    assert [op["key"] for op in operations] == ["file"] * 4  # nothing deleted: .gitattributes is kept
    one = hub.state.repos[REPO].tags[tag]
    assert one == hub.state.repos[REPO].main and json.loads(hub.state.calls("POST", "/tag/")[0].body)["tag"] == tag
    assert f"in commit {one[:12]}, tagged {tag}" in done.stdout

    done = needlework(tmp_path, hub.endpoint, "push", str(second), REPO)
    assert done.returncode == 0, done.stderr
    [_, *operations] = commit_lines(hub)[1]
    assert [op["value"]["path"] for op in operations if op["key"] == "deletedFile"] == [STALE]
    assert f"removed 1 files of an earlier release: {STALE}" in done.stdout
    two = hub.state.repos[REPO].tags[release_version(json.loads((second / "manifest.json").read_text()))]
    assert two != one and len(hub.state.calls("POST", "/commit/")) == 2
    for release, oid in ((first, one), (second, two)):
        assert hub.state.files(REPO, oid) == {**release_bytes(release), ".gitattributes": GITATTRIBUTES}
        for config in json.loads((release / "manifest.json").read_text())["configs"]:
            assert split_rows(hub.state.snapshot(REPO, oid), config) == split_rows(release, config)
    assert split_rows(hub.state.snapshot(REPO, one), "mk_niah_basic") != split_rows(hub.state.snapshot(REPO, two), "mk_niah_basic")


def test_the_token_is_in_the_authorization_header_only(tmp_path, releases, hub):
    """The server refuses writes without ``Bearer {token}``, so the push proves the client sent the
    ``HF_TOKEN`` sentinel; it appears in no other header, no path, query or body, no output or debug
    log line, and no file under the test's folder (release, ``HF_HOME`` the client wrote, the
    server's snapshots). It is never an argument either."""
    release = tmp_path / "release"
    shutil.copytree(releases["first"], release)
    help_text = needlework(tmp_path, hub.endpoint, "push", "--help").stdout
    assert "HF_TOKEN" in help_text and "--token" not in help_text
    done = needlework(tmp_path, hub.endpoint, "push", str(release), REPO)
    assert done.returncode == 0, done.stderr
    assert "Request " in done.stderr  # the debug log did run
    assert TOKEN not in done.stdout and TOKEN not in done.stderr
    authenticated = [r for r in hub.state.requests if "Authorization" in r.headers]
    assert {r.path for r in hub.state.requests} - {r.path for r in authenticated} == {"/api/agent-harnesses"}
    assert {r.headers["Authorization"] for r in authenticated} == {f"Bearer {TOKEN}"}
    for r in hub.state.requests:
        others = {k: v for k, v in r.headers.items() if k != "Authorization"}
        assert TOKEN not in json.dumps([r.path, r.query, others]) and TOKEN.encode() not in r.body
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("hf_home" in p.parts for p in written) and any("hub" in p.parts for p in written)
    assert [p for p in written if TOKEN.encode() in p.read_bytes()] == []


def test_a_rejected_token_or_an_unreachable_hub_is_one_line_with_status_2(tmp_path, releases, hub):
    """A 401 from the Hub and a refused connection (``httpx2.ConnectError``, no ``OSError``, which
    used to escape as a traceback) both end in one ``push failed`` line, status 2."""
    hub.state.token = "hf_someoneElsesToken"
    refused = needlework(tmp_path, hub.endpoint, "push", str(releases["first"]), REPO)
    unreachable = needlework(tmp_path, f"http://127.0.0.1:{closed_port()}", "push", str(releases["first"]), REPO)
    for done, reason in ((refused, "401"), (unreachable, "Connection refused")):
        assert done.returncode == 2, done.stderr
        error = [line for line in done.stderr.splitlines() if line.lower().startswith("error:")]
        assert len(error) == 1 and "push failed:" in error[0] and reason in error[0], done.stderr
        assert done.stderr.strip().splitlines()[-1] == error[0] and TOKEN not in done.stderr + done.stdout
    assert hub.state.repos == {}


def test_an_existing_tag_is_never_moved(tmp_path, releases, hub):
    """A second release pushed with the tag of the first is refused after ``list_repo_refs`` and
    before any upload: one commit on the Hub, the tag still on it."""
    first = needlework(tmp_path, hub.endpoint, "push", str(releases["first"]), REPO, "--tag", "v1")
    assert first.returncode == 0, first.stderr
    again = needlework(tmp_path, hub.endpoint, "push", str(releases["second"]), REPO, "--tag", "v1")
    assert again.returncode == 2 and "tag v1 exists already" in again.stderr
    assert len(hub.state.calls("POST", "/preupload/")) == len(hub.state.calls("POST", "/commit/")) == 1
    assert split_rows(hub.state.snapshot(REPO, "v1"), "mk_niah_basic") == split_rows(releases["first"], "mk_niah_basic")


def test_the_same_release_pushed_again_under_another_tag_tags_the_same_commit(tmp_path, releases, hub):
    """Every file unchanged: the client's preupload sees the Hub's blob oids equal its own, sends no
    commit and takes the head from ``repo_info`` (``hf_api.py`` ``create_commit``, "No files have
    been modified since last commit"); the new tag lands on the commit the first tag names."""
    for tag in ("v1", "v2"):
        done = needlework(tmp_path, hub.endpoint, "push", str(releases["first"]), REPO, "--tag", tag)
        assert done.returncode == 0, done.stderr
    assert len(hub.state.calls("POST", "/commit/")) == 1
    assert hub.state.calls("GET", f"/api/datasets/{REPO}/revision/main")
    assert hub.state.repos[REPO].tags["v2"] == hub.state.repos[REPO].tags["v1"] == hub.state.repos[REPO].main
    assert f"in commit {hub.state.repos[REPO].main[:12]}, tagged v2" in done.stdout


@pytest.mark.parametrize("listening", [True, False], ids=["server-listening", "closed-port"])
def test_dry_run_makes_no_request(tmp_path, releases, hub, listening):
    """``--dry-run`` validates and lists the upload and contacts nobody: the listening server records
    no request, and with ``HF_ENDPOINT`` on a closed port it still succeeds."""
    endpoint = hub.endpoint if listening else f"http://127.0.0.1:{closed_port()}"
    done = needlework(tmp_path, endpoint, "push", str(releases["first"]), REPO, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert [line.split()[-1] for line in done.stdout.splitlines()[:-1]] == [p for p, _ in release_files(releases["first"])]
    assert done.stdout.splitlines()[-1].startswith("4 files,")
    assert hub.state.requests == []


def test_a_release_that_does_not_validate_is_refused_before_any_request(tmp_path, releases, hub):
    """A release whose manifest hash does not match its rows is refused by ``needlework validate``'s
    checks before the Hub is contacted at all."""
    release = tmp_path / "release"
    shutil.copytree(releases["first"], release)
    manifest = json.loads((release / "manifest.json").read_text())
    manifest["configs"]["mk_niah_basic"]["splits"]["test"]["content_sha256"] = "0" * 64
    (release / "manifest.json").write_text(json.dumps(manifest))
    done = needlework(tmp_path, hub.endpoint, "push", str(release), REPO)
    assert done.returncode == 2 and "does not validate, not pushed" in done.stderr
    assert hub.state.requests == []
