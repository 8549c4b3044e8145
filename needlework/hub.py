"""Everything that talks to the Hugging Face Hub fails the same way: one line naming the repository,
what went wrong and what to do.

``huggingface_hub`` and ``datasets`` raise a dozen error classes, several of them no ``OSError``
(``httpx2.ConnectError`` for a refused connection, ``HFValidationError`` for a malformed id) and most
with messages of five lines. :func:`hub_errors` wraps a block of Hub client calls and turns any such
failure into one :class:`~needlework.errors.HubError` (exit 2 in both commands); :func:`hub_problem`
is the classification itself, for a caller that raises an error of its own (a tokenizer that cannot
be downloaded is a :class:`~needlework.errors.TokenizerError`). Ids and tags are checked before
anything is read or uploaded (:func:`hub_id_problem`, :func:`tag_problem`).

``huggingface_hub`` and ``datasets`` are imported only when a failure is classified or a dataset
loaded, so importing this module costs nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from needlework.errors import HubError, NeedleworkError

OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
"""Environment variables that switch the Hub clients offline."""

LOGIN = "log in with `hf auth login` or set HF_TOKEN"

_TAG_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


def first_line(err: BaseException, limit: int = 200) -> str:
    """The first non-empty line of an error's message, shortened; its class name when it has none."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = lines[0] if lines else type(err).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def hub_id_problem(repo_id: str) -> str | None:
    """Why ``repo_id`` is no Hub repository id (``ORG/NAME`` by the Hub's own rule), or None when it is one."""
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        return "a Hub id is ORG/NAME"
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as err:
        return f"not a Hub id ({first_line(err).split(':')[0].rstrip('.')})"
    return None


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` cannot name a git tag (``git check-ref-format``'s rules, which the Hub applies), or None."""
    if not tag or len(tag) > 200:
        return "a tag has 1 to 200 characters"
    bad = _TAG_FORBIDDEN.search(tag)
    if bad:
        return f"a tag cannot contain {bad.group()!r} (spaces, control characters, ~ ^ : ? * [ \\ .. @{{ //)"
    if tag == "@" or tag.startswith(("/", ".", "-")) or tag.endswith(("/", ".", ".lock")) or "/." in tag:
        return "a tag cannot be '@', start with / . or -, end with / . or .lock, or have a part starting with ."
    if re.fullmatch(r"[0-9a-f]{40}", tag):
        return "a tag cannot look like a commit id (40 hex digits)"
    return None


def offline_variables() -> list[str]:
    """The offline switches set in the environment (``HF_HUB_OFFLINE=1`` ...)."""
    return [name for name in OFFLINE_VARIABLES
            if os.environ.get(name, "").strip().upper() in ("1", "ON", "YES", "TRUE")]


def hub_problem(err: BaseException) -> str | None:
    """What a Hub client error means, in one line with what to do; None when ``err`` is no Hub client
    failure (a bug, such as a ``TypeError``, keeps its traceback).

    The error's chain (``raise ... from``) is read from the outside in, and the first error that says
    why decides: an error that only wraps its cause (a ``LocalEntryNotFoundError``, ``datasets``'
    ``ConnectionError``, ``transformers``' ``OSError`` "We couldn't connect") gives way to the
    ``OfflineModeIsEnabled``, ``ConnectError`` or ``GatedRepoError`` behind it, and only an error of
    no known kind is told by its class and first line.
    """
    found = [(rank, problem) for error in _chain(err) for rank, problem in [_ranked(error)] if problem is not None]
    return min(found, key=lambda item: item[0])[1] if found else None


def _ranked(err: BaseException) -> tuple[int, str | None]:
    """0: a specific answer; 1: a wrapper's own answer; 2: an error of no known kind (its first line)."""
    problem = _classify(err)
    if problem is None:
        return 3, None
    if _is_wrapper(err):
        return 1, problem
    return (2 if problem.startswith(f"{type(err).__name__}: ") else 0), problem


@contextmanager
def hub_errors(head: str, error: type[NeedleworkError] = HubError) -> Iterator[None]:
    """Run a block of Hub client calls; a failure becomes one error line: ``{head}: {problem}``.

    Args:
        head: What was being done, naming the repository (``acme/data@v1: cannot download``).
        error: The class raised (a tokenizer that cannot be downloaded is a ``TokenizerError``).

    Raises:
        HubError: The block raised a Hub client error (:func:`hub_problem`). needlework's own errors
            and errors that are no Hub failure pass unchanged.
    """
    try:
        yield
    except NeedleworkError:
        raise
    except Exception as err:
        problem = hub_problem(err)
        if problem is None:
            raise
        raise error(f"{head}: {problem}") from err


def load_hub_dataset(repo: str, config: str | None = None, *, split: str | None = None,
                     revision: str | None = None, label: str | None = None) -> Any:
    """``datasets.load_dataset(repo, config, split=split, revision=revision)``, its failures one line.

    Args:
        repo: A Hub dataset id, or a local folder that ``load_dataset`` reads.
        config: The dataset's config (None: its default).
        split: One split (a ``Dataset``); None loads every split (a ``DatasetDict``).
        revision: Branch, tag or commit.
        label: How the error names the source (default ``repo``).

    Raises:
        HubError: The dataset cannot be loaded (offline and not cached, unreachable, no such
            dataset, config, split or revision, no access).
    """
    import datasets  # lazy: the heavy import only for a Hub read

    kwargs: dict[str, Any] = {"split": split} if split is not None else {}
    if revision is not None:
        kwargs["revision"] = revision
    with hub_errors(f"{label or repo}: cannot load the dataset"):
        return datasets.load_dataset(repo, config, **kwargs) if config else datasets.load_dataset(repo, **kwargs)


def _chain(err: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ if current.__cause__ is not None else (
            None if current.__suppress_context__ else current.__context__)
    return chain


def _is_wrapper(err: BaseException) -> bool:
    """Errors that only say *that* the Hub could not be read, while their cause says why."""
    from huggingface_hub.errors import LocalEntryNotFoundError

    return type(err) is ConnectionError or isinstance(err, LocalEntryNotFoundError) \
        or type(err).__name__ in ("DatasetNotFoundError", "DatasetGenerationError")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP library's own errors (``httpx2.HTTPError`` under ``huggingface_hub`` 2.x): a refused
    connection or a timeout raises one that is no ``OSError``."""
    from huggingface_hub.errors import HfHubHTTPError

    return tuple(base for base in HfHubHTTPError.__bases__ if base is not OSError)


def _endpoint(err: BaseException | None = None) -> str:
    """Where the request went (scheme, host and port of the error's request), else ``HF_ENDPOINT``."""
    try:
        url = err.request.url  # type: ignore[union-attr] - the HTTP library's errors carry their request
        return f"{url.scheme}://{url.netloc.decode() if isinstance(url.netloc, bytes) else url.netloc}"
    except (AttributeError, RuntimeError):
        from huggingface_hub import constants

        return str(constants.ENDPOINT)


def _offline_message() -> str:
    switches = offline_variables()
    mode = f"offline mode ({', '.join(f'{name}=1' for name in switches)})" if switches else "offline mode"
    return (f"{mode} keeps the Hub client from the network, and the local Hugging Face cache does not hold what is "
            f"needed; unset {' and '.join(switches) or 'it'} with the network on, or use a local copy")


def _unreachable(err: BaseException) -> str:
    return (f"cannot reach the Hub at {_endpoint(err)} ({type(err).__name__}: {first_line(err)}); check the network "
            "connection, a proxy, or HF_ENDPOINT")


def _http_status(err: BaseException) -> int | None:
    status = getattr(getattr(err, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _server_says(err: BaseException) -> str:
    message = getattr(err, "server_message", None)
    return f": {first_line(Exception(message), 120)}" if message else ""


def _classify(err: BaseException) -> str | None:
    from huggingface_hub import errors as hub

    # datasets re-raises its DatasetNotFoundError "from None", dropping the client's error: its message tells which
    not_found = str(err) if type(err).__name__ == "DatasetNotFoundError" else ""
    if isinstance(err, hub.OfflineModeIsEnabled):
        return _offline_message()
    if isinstance(err, hub.GatedRepoError) or "is a gated dataset" in not_found:
        return f"a gated repository: accept its conditions on its Hub page, then {LOGIN}"
    if isinstance(err, hub.RepositoryNotFoundError) or "doesn't exist on the Hub or cannot be accessed" in not_found:
        return f"no such repository on the Hub, or a private one this token cannot see; check the id, or {LOGIN}"
    if isinstance(err, hub.RevisionNotFoundError) or not_found.startswith("Revision "):
        return "no such revision; name an existing branch, tag or commit"
    if isinstance(err, hub.RemoteEntryNotFoundError):
        url = getattr(getattr(err, "response", None), "url", "")
        return f"no such file in the repository (HTTP 404 for {url})"
    if isinstance(err, hub.DisabledRepoError):
        return "the repository is disabled on the Hub"
    if isinstance(err, hub.HfHubHTTPError) and _http_status(err) is not None:
        return _http_problem(err, _http_status(err))  # type: ignore[arg-type]
    if isinstance(err, _transport_errors()) or type(err) in (ConnectionRefusedError, TimeoutError):
        return _unreachable(err)
    if isinstance(err, hub.LocalEntryNotFoundError) or type(err) is ConnectionError:
        if offline_variables():
            return _offline_message()
        return (f"not in the local Hugging Face cache, and the Hub at {_endpoint()} cannot be reached "
                f"({first_line(err)}); check the network connection, a proxy, or HF_ENDPOINT")
    if isinstance(err, hub.HFValidationError):
        return f"not a Hub id ({first_line(err).split(':')[0].rstrip('.')})"
    module = type(err).__module__.split(".")[0]
    if isinstance(err, (OSError, ValueError)) or module in ("huggingface_hub", "datasets", "fsspec"):
        return f"{type(err).__name__}: {first_line(err)}"
    return None


def _http_problem(err: BaseException, status: int) -> str:
    says = _server_says(err)
    if status == 401:
        return f"the Hub refused the credentials (HTTP 401{says}); {LOGIN} (to push: a token with write access)"
    if status == 403:
        return f"no permission (HTTP 403{says}); the token needs access to the repository (to push: write access)"
    if status == 429:
        return f"the Hub limits the request rate (HTTP 429{says}); wait a while and try again"
    if status >= 500:
        return f"the Hub answered with a server error (HTTP {status}{says}); try again later"
    return f"the Hub answered HTTP {status}{says or ': ' + first_line(err)}"
