"""Every builder source that reads the Hub fails in one ``error:`` line with exit 2 (issue 41).

``needlework build embs --hub hub`` (``HfApi().dataset_info`` then ``snapshot_download``) runs in-process with
``huggingface_hub``'s endpoint on a closed loopback port or on :mod:`tests.support.hub_server` answering as the
Hub does for a missing repository; the ``datasets.load_dataset`` sources (``--mcq hub:REPO``) and a Hub tokenizer
(``--tokenizer hf:ORG/MODEL``) run the installed command in a subprocess with ``HF_ENDPOINT`` on the stand-in,
since ``datasets`` and ``hf_hub_download`` read the endpoint when they are imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from huggingface_hub import constants

from builders.cli import main
from builders.sources.embs_raw import read_longbench
from needlework.errors import InputError
from tests.support.hub_server import serve_in_thread
from tests.support.ports import closed_port

NEEDLEWORK = Path(sys.executable).with_name("needlework")
OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN")


@pytest.fixture
def hub(tmp_path, monkeypatch):
    for name in OFFLINE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf_cache"))
    server = serve_in_thread(tmp_path / "hub")
    yield server
    server.stop()



def error_line(output: str) -> str:
    """The output's one line, an ``error:`` line (any other line fails the test)."""
    (line,) = output.strip().splitlines()
    assert line.startswith("error: "), output
    return line


@pytest.mark.parametrize("case", ["unreachable", "missing-repo"])
def test_the_embs_hub_download_is_one_error_line(tmp_path, hub, monkeypatch, case):
    """A refused connection raised ``httpx2.ConnectError`` through the build as a traceback; a missing
    repository printed the client's six-line message."""
    if case == "unreachable":
        monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{closed_port()}")
        expected = "cannot reach the Hub at http://127.0.0.1:"
    else:
        monkeypatch.setattr(constants, "ENDPOINT", hub.endpoint)
        hub.state.fault = (404, "RepoNotFound", "Repository not found")
        expected = "no such repository on the Hub, or a private one this token cannot see; check the id, or log in"
    result = CliRunner().invoke(main, ["build", "embs", "--out", str(tmp_path / "out"), "--hub", "hub", "--quiet"])
    assert result.exit_code == 2, result.output
    line = error_line(result.output)
    assert line.startswith("error: EverMind-AI/EverMemBench-Static@main: cannot download the EMB-S release: " + expected)
    assert not (tmp_path / "out").exists()


def test_a_raw_longbench_line_that_is_not_json_names_the_archive_member_and_line(tmp_path, monkeypatch):
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("data/hotpotqa.jsonl", json.dumps({"input": "q"}) + "\n{truncated\n")
    client = SimpleNamespace(HfApi=lambda: SimpleNamespace(dataset_info=lambda repo: SimpleNamespace(sha="c0ffee")),
                             hf_hub_download=lambda *a, **k: str(archive))
    monkeypatch.setitem(sys.modules, "huggingface_hub", client)
    with pytest.raises(InputError, match=r"^hub:THUDM/LongBench:hotpotqa \(data/hotpotqa\.jsonl\): line 2 is not valid JSON"):
        read_longbench("hub:THUDM/LongBench:hotpotqa", max_doc_tokens=40)


def needlework(tmp_path: Path, endpoint: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE}
    env.update(HF_ENDPOINT=endpoint, HF_HOME=str(tmp_path / "hf_home"))
    return subprocess.run([str(NEEDLEWORK), *args], check=False, env=env, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)


def test_a_gated_hub_dataset_or_tokenizer_is_one_error_line_naming_the_login(tmp_path, hub):
    """``datasets`` wrapped the gated repository in ``DatasetNotFoundError`` ("doesn't exist on the Hub"), and the
    tokenizer download named only the class ``GatedRepoError``."""
    hub.state.fault = (403, "GatedRepo", "Access to dataset needlework-test/mmlu is restricted")
    base = ["build", "rulerv2", "--tasks", "mk_niah_easy", "--lengths", "1024", "--samples", "1", "--quiet"]
    runs = {
        "needlework-test/mmlu (all): cannot load the dataset": needlework(
            tmp_path, hub.endpoint, *base, "--out", "a", "--mcq", "hub:needlework-test/mmlu"),
        "tokenizer 'hf:needlework-test/model': cannot get its tokenizer.json": needlework(
            tmp_path, hub.endpoint, *base, "--out", "b", "--tokenizer", "hf:needlework-test/model"),
    }
    for head, done in runs.items():
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
        assert error_line(done.stderr) == f"error: {head}: a gated repository: accept its conditions on its Hub " \
                                          "page, then log in with `hf auth login` or set HF_TOKEN"
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
