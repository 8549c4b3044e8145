"""Hub client failures as one line naming the repository and what to do (issue 41): :mod:`needlework.hub`.

The real ``huggingface_hub`` client makes its real requests against :mod:`tests.support.hub_server` on an
ephemeral loopback port (``HfApi(endpoint=...)``), whose ``fault`` answers every request with the status and
``X-Error-Code`` the Hub sends for a missing, gated or disabled repository, a missing revision or file, a rejected
token, a rate limit or a server error; a closed port stands for an unreachable Hub, and the client's own offline
switch for ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import huggingface_hub
import pytest
from huggingface_hub import constants

from needlework.errors import HubError, NeedleworkError, TokenizerError
from needlework.hub import hub_errors, hub_id_problem, hub_problem, tag_problem
from tests.support.hub_server import serve_in_thread
from tests.support.ports import closed_port

REPO = "needlework-test/data"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    server = serve_in_thread(tmp_path / "hub")
    yield server
    server.stop()



def one_line(call, head: str = f"{REPO}: cannot read", error: type[Exception] = HubError) -> str:
    """The message of the error ``call`` raises inside :func:`hub_errors`; it must be one line."""
    with pytest.raises(error) as raised, hub_errors(head, error):
        call()
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{head}: "), message
    return message[len(head) + 2:]


@pytest.mark.parametrize(("fault", "expected"), [
    ((404, "RepoNotFound", "Repository not found"), "no such repository on the Hub, or a private one this token cannot see"),
    ((401, None, "Unauthorized"), "the Hub refused the credentials (HTTP 401: Unauthorized); log in with `hf auth login`"),
    ((403, "GatedRepo", "Access to this dataset is restricted"), "a gated repository: accept its conditions"),
    ((404, "RevisionNotFound", "Invalid rev id"), "no such revision; name an existing branch, tag or commit"),
    ((403, None, "Access to this resource is disabled."), "the repository is disabled on the Hub"),
    ((503, None, "Service Unavailable"), "the Hub answered with a server error (HTTP 503: Service Unavailable); try again later"),
    ((500, None, "boom"), "server error (HTTP 500: boom)"),
    ((429, None, "slow down"), "limits the request rate (HTTP 429"),
    ((418, None, "teapot"), "the Hub answered HTTP 418: teapot"),
])
def test_every_http_failure_of_a_read_is_one_line_saying_what_to_do(hub, fault, expected):
    hub.state.fault = fault
    api = huggingface_hub.HfApi(endpoint=hub.endpoint, token=False)
    assert expected in one_line(lambda: api.dataset_info(REPO, revision="v1"))
    assert hub.state.requests  # the client did ask the stand-in


def test_a_rejected_token_on_a_write_names_the_login(hub):
    hub.state.token = "hf_theRightOne"
    api = huggingface_hub.HfApi(endpoint=hub.endpoint, token="hf_aWrongOne")
    problem = one_line(lambda: api.create_repo(REPO, repo_type="dataset", exist_ok=True), f"{REPO}: push failed")
    assert problem.startswith("the Hub refused the credentials (HTTP 401: Invalid credentials in Authorization header)")
    assert "hf auth login" in problem and "HF_TOKEN" in problem and "hf_aWrongOne" not in problem


def test_a_missing_file_names_its_url(hub):
    hub.state.fault = (404, "EntryNotFound", "Entry not found")
    problem = one_line(lambda: huggingface_hub.hf_hub_download(REPO, "manifest.json", repo_type="dataset",
                                                              endpoint=hub.endpoint, token=False,
                                                              cache_dir=hub.state.root / "cache"))
    assert problem.startswith("no such file in the repository (HTTP 404 for ") and "manifest.json" in problem


def test_an_unreachable_hub_names_the_endpoint(hub):
    endpoint = f"http://127.0.0.1:{closed_port()}"
    api = huggingface_hub.HfApi(endpoint=endpoint, token=False)
    problem = one_line(lambda: api.dataset_info(REPO))  # httpx2.ConnectError: no OSError
    assert problem.startswith(f"cannot reach the Hub at {endpoint} (ConnectError: ")
    assert "Connection refused" in problem and problem.endswith("check the network connection, a proxy, or HF_ENDPOINT")


def test_offline_mode_names_the_variable_to_unset(hub, monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = huggingface_hub.HfApi(endpoint=hub.endpoint, token=False)
    for call in (lambda: api.dataset_info(REPO),  # OfflineModeIsEnabled
                 lambda: huggingface_hub.hf_hub_download(REPO, "x.json", repo_type="dataset", endpoint=hub.endpoint,
                                                         cache_dir=hub.state.root / "cache")):  # LocalEntryNotFoundError
        problem = one_line(call)
        assert problem.startswith("offline mode (HF_HUB_OFFLINE=1) keeps the Hub client from the network")
        assert problem.endswith("unset HF_HUB_OFFLINE with the network on, or use a local copy")
    assert hub.state.requests == []


def test_a_tokenizer_download_failure_stays_a_tokenizer_error(hub):
    hub.state.fault = (403, "GatedRepo", "gated")
    problem = one_line(lambda: huggingface_hub.hf_hub_download("org/model", "tokenizer.json", endpoint=hub.endpoint,
                                                              token=False, cache_dir=hub.state.root / "cache"),
                       "tokenizer 'hf:org/model': cannot get its tokenizer.json", TokenizerError)
    assert problem.startswith("a gated repository")


def test_a_bug_keeps_its_traceback_and_needleworks_own_errors_pass_unchanged():
    with pytest.raises(TypeError), hub_errors("x"):
        raise TypeError("a bug")
    with pytest.raises(NeedleworkError, match="^mine$"), hub_errors("x"):
        raise NeedleworkError("mine")
    assert hub_problem(KeyError("k")) is None


def test_a_wrapping_error_is_read_through_to_its_cause(hub, monkeypatch):
    """``datasets`` raises a bare ``ConnectionError`` from the client's ``OfflineModeIsEnabled``: the cause decides."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def wrapped():
        try:
            raise huggingface_hub.errors.OfflineModeIsEnabled("Cannot reach x: offline mode is enabled.")
        except OSError as err:
            raise ConnectionError("Couldn't reach 'x' on the Hub (OfflineModeIsEnabled)") from err

    assert one_line(wrapped).startswith("offline mode (HF_HUB_OFFLINE=1)")


@pytest.mark.parametrize(("repo_id", "problem"), [
    ("org/name", None), ("just-a-name", "a Hub id is ORG/NAME"), ("a/b/c", "a Hub id is ORG/NAME"),
    ("org/", "a Hub id is ORG/NAME"), ("org/bad name!", "not a Hub id"), ("org/--x--", "not a Hub id"),
])
def test_a_hub_id_is_checked_by_the_hubs_rule(repo_id, problem):
    found = hub_id_problem(repo_id)
    assert found == problem if problem is None else found.startswith(problem)


@pytest.mark.parametrize(("tag", "ok"), [
    ("v0.1.0-0123456789ab", True), ("release/2024", True), ("bad tag", False), ("v1..2", False), ("v1:2", False),
    ("-v1", False), ("v1.lock", False), ("v1/", False), (".v1", False), ("", False), ("a" * 201, False),
    ("0" * 40, False), ("v1@{u}", False), ("v1\x07", False),
])
def test_a_tag_is_checked_by_gits_ref_rules(tag, ok):
    assert (tag_problem(tag) is None) == ok, tag_problem(tag)
