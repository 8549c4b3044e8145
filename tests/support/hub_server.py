"""A local HTTP server standing in for the Hugging Face Hub's API, for ``needlework push`` tests.

It serves exactly the endpoints ``huggingface_hub`` (2.4) calls when ``HfApi`` pushes a small
dataset release with ``HF_ENDPOINT`` pointing here (read from the installed ``huggingface_hub``:
``hf_api.py`` ``create_repo``, ``list_repo_refs``, ``list_repo_tree`` behind ``list_repo_files``,
``_validate_yaml``, ``create_commit``, ``create_tag``; ``_commit_api.py`` ``_fetch_upload_modes``
and ``_prepare_commit_payload``):

    POST /api/repos/create                          -> {"url"}; 409 (with the url) when it exists
    GET  /api/datasets/{org}/{name}/refs            -> {"branches", "converts", "tags"}
    GET  /api/datasets/{org}/{name}/tree/{rev}      -> [{"type", "path", "size", "oid"}] (?recursive=True)
    POST /api/validate-yaml                         -> {"errors", "warnings"} for a README.md's YAML
    GET  /api/agent-harnesses                       -> an empty registry (``utils/_detect_agent.py`` asks
                                                       for it, unauthenticated, before the first request)
    POST /api/datasets/{org}/{name}/preupload/{rev} -> every file "regular" (no LFS / Xet transfer),
                                                       with the git blob oid of the file already there
    POST /api/datasets/{org}/{name}/commit/{rev}    <- NDJSON: header, file (base64), deletedFile lines
    POST /api/datasets/{org}/{name}/tag/{rev}       <- {"tag", "message"}; 409 when the tag exists
    GET  /api/datasets/{org}/{name}[/revision/{rev}] -> {"id", "sha", "siblings"}: ``repo_info``, which
                                                       ``create_commit`` asks for the head when every
                                                       file is unchanged (and sends no commit)

A new repository gets an initial commit holding ``.gitattributes``, as on the Hub. Every commit is a
folder snapshot under ``root`` (``load_dataset(snapshot, config)`` reads what
``load_dataset(repo, config, revision=...)`` reads from the Hub). Every request is recorded
(method, path, query, headers, body) in :attr:`HubState.requests`; any other route answers 404
and is recorded too, so a test sees a call the stand-in does not know.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web

GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
"""The ``.gitattributes`` the Hub writes into a new dataset repository (abridged)."""


def git_blob_oid(data: bytes) -> str:
    """Git's blob id (sha1 of ``blob {size}\\0`` + content): the ``oid`` the Hub reports for a regular
    file, and what ``huggingface_hub`` compares with its local ``sha.git_hash`` to skip unchanged files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, as it arrived."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def ndjson(self) -> list[dict[str, Any]]:
        """The body's NDJSON lines (a commit request)."""
        return [json.loads(line) for line in self.body.splitlines() if line.strip()]


@dataclass
class HubRepo:
    """One dataset repository: commits (oid -> files), the ``main`` branch and tags."""

    private: bool
    main: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)


@dataclass
class HubState:
    """The server's repositories and every request it received.

    Attributes:
        root: Where commit snapshots are written (``root/ORG__NAME/OID/...``).
        token: When set, write requests without ``Authorization: Bearer {token}`` answer 401.
        fault: When set, ``(status, X-Error-Code or None, message)`` answered to every request but
            ``/api/agent-harnesses`` (a gated repository, a server error ...), after recording it.
    """

    root: Path
    token: str | None = None
    fault: tuple[int, str | None, str] | None = None
    repos: dict[str, HubRepo] = field(default_factory=dict)
    requests: list[RecordedRequest] = field(default_factory=list)

    def resolve(self, repo_id: str, revision: str) -> str | None:
        """The commit oid of a branch (``main``), tag or oid; None when unknown."""
        repo = self.repos[repo_id]
        if revision == "main":
            return repo.main
        if revision in repo.tags:
            return repo.tags[revision]
        return revision if revision in repo.commits else None

    def files(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        """The files of a revision, path -> content."""
        oid = self.resolve(repo_id, revision)
        if oid is None:
            raise KeyError(f"{repo_id}@{revision}")
        return dict(self.repos[repo_id].commits[oid])

    def snapshot(self, repo_id: str, revision: str = "main") -> Path:
        """The folder holding a revision's files, as ``snapshot_download`` would give it."""
        oid = self.resolve(repo_id, revision)
        if oid is None:
            raise KeyError(f"{repo_id}@{revision}")
        return self.root / repo_id.replace("/", "__") / oid

    def commit(self, repo_id: str, files: dict[str, bytes], message: str) -> str:
        """Make ``files`` the new head of ``main`` and write its snapshot; returns the commit oid."""
        repo = self.repos[repo_id]
        tree = sorted((path, git_blob_oid(data)) for path, data in files.items())
        oid = hashlib.sha1(json.dumps([repo.main, tree, message, len(repo.commits)]).encode()).hexdigest()
        repo.commits[oid] = dict(files)
        repo.parents[oid] = repo.main
        repo.main = oid
        folder = self.root / repo_id.replace("/", "__") / oid
        for path, data in files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(data)
        return oid

    def calls(self, method: str | None = None, suffix: str = "") -> list[RecordedRequest]:
        """The recorded requests, optionally only one method and paths containing ``suffix``."""
        return [r for r in self.requests if (method is None or r.method == method) and suffix in r.path]


def _error(status: int, message: str, code: str | None = None) -> web.Response:
    headers = {"X-Error-Code": code, "X-Error-Message": message} if code else {"X-Error-Message": message}
    return web.json_response({"error": message}, status=status, headers=headers)


def make_app(state: HubState) -> web.Application:
    """The aiohttp application serving the Hub endpoints a push calls, over ``state``."""

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.read()
        state.requests.append(RecordedRequest(request.method, request.path, dict(request.query),
                                              dict(request.headers), body))
        if state.fault is not None and request.path != "/api/agent-harnesses":
            status, code, message = state.fault
            return _error(status, message, code)
        if request.method == "POST" and state.token is not None \
                and request.headers.get("Authorization") != f"Bearer {state.token}":
            return _error(401, "Invalid credentials in Authorization header")
        return await handler(request)

    def repo_of(request: web.Request) -> tuple[str, HubRepo | None]:
        repo_id = f"{request.match_info['org']}/{request.match_info['name']}"
        return repo_id, state.repos.get(repo_id)

    async def create_repo(request: web.Request) -> web.Response:
        payload = await request.json()
        if payload.get("type") != "dataset":
            return _error(400, f"only dataset repositories here, not {payload.get('type')!r}")
        repo_id = f"{payload['organization']}/{payload['name']}"
        url = f"https://huggingface.co/datasets/{repo_id}"
        if repo_id in state.repos:  # the Hub's 409 names the url too: create_repo(exist_ok=True) returns it
            return web.json_response({"error": "You already created this dataset repo", "url": url}, status=409,
                                     headers={"X-Error-Message": "You already created this dataset repo"})
        state.repos[repo_id] = HubRepo(private=payload.get("visibility") == "private" or bool(payload.get("private")))
        state.commit(repo_id, {".gitattributes": GITATTRIBUTES}, "initial commit")
        return web.json_response({"url": url, "name": repo_id})

    async def refs(request: web.Request) -> web.Response:
        _, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        return web.json_response({
            "branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": repo.main}],
            "converts": [],
            "tags": [{"name": tag, "ref": f"refs/tags/{tag}", "targetCommit": oid} for tag, oid in repo.tags.items()],
        })

    async def tree(request: web.Request) -> web.Response:
        repo_id, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        oid = state.resolve(repo_id, request.match_info["rev"])
        if oid is None:
            return _error(404, "Invalid rev id", "RevisionNotFound")
        recursive = request.query.get("recursive", "").lower() in ("true", "1")
        entries, folders = [], set()
        for path, data in sorted(repo.commits[oid].items()):
            parts = path.split("/")
            folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
            if recursive or len(parts) == 1:
                entries.append({"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(data)})
        entries += [{"type": "directory", "path": folder, "oid": hashlib.sha1(folder.encode()).hexdigest()}
                    for folder in sorted(folders) if recursive or "/" not in folder]
        return web.json_response(entries)

    async def info(request: web.Request) -> web.Response:
        repo_id, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        oid = state.resolve(repo_id, request.match_info.get("rev", "main"))
        if oid is None:
            return _error(404, "Invalid rev id", "RevisionNotFound")
        return web.json_response({"id": repo_id, "sha": oid, "private": repo.private,
                                  "siblings": [{"rfilename": path} for path in sorted(repo.commits[oid])]})

    async def validate_yaml(request: web.Request) -> web.Response:
        payload = await request.json()
        content = payload.get("content", "")
        if not content.startswith("---"):
            return web.json_response({"errors": [], "warnings": [{"message": "empty or missing yaml metadata"}]})
        try:
            yaml.safe_load(content.split("---", 2)[1])
        except yaml.YAMLError as err:
            return web.json_response({"errors": [{"message": str(err)}], "warnings": []}, status=400)
        return web.json_response({"errors": [], "warnings": []})

    async def preupload(request: web.Request) -> web.Response:
        repo_id, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        oid = state.resolve(repo_id, request.match_info["rev"])
        if oid is None:
            return _error(404, "Invalid rev id", "RevisionNotFound")
        current = repo.commits[oid]
        files = (await request.json())["files"]
        return web.json_response({"files": [
            {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
             "oid": git_blob_oid(current[f["path"]]) if f["path"] in current else None}
            for f in files]})

    async def commit(request: web.Request) -> web.Response:
        repo_id, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        if request.match_info["rev"] != "main":
            return _error(400, "this stand-in commits to main only")
        lines = [json.loads(line) for line in (await request.read()).splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            return _error(400, "the first NDJSON line must be the header")
        files = dict(repo.commits[repo.main])
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file" and value.get("encoding") == "base64":
                files[value["path"]] = base64.b64decode(value["content"])
            elif key == "deletedFile":
                if value["path"] not in files:
                    return _error(404, "A file with this name doesn't exist", "EntryNotFound")
                del files[value["path"]]
            else:
                return _error(400, f"this stand-in does not take {key!r} lines")
        oid = state.commit(repo_id, files, lines[0]["value"]["summary"])
        return web.json_response({"success": True, "commitOid": oid,
                                  "commitUrl": f"https://huggingface.co/datasets/{repo_id}/commit/{oid}"})

    async def tag(request: web.Request) -> web.Response:
        repo_id, repo = repo_of(request)
        if repo is None:
            return _error(404, "Repository not found", "RepoNotFound")
        oid = state.resolve(repo_id, request.match_info["rev"])
        if oid is None:
            return _error(404, "Invalid rev id", "RevisionNotFound")
        name = (await request.json())["tag"]
        if name in repo.tags:
            return _error(409, f"Tag {name} already exists")
        repo.tags[name] = oid
        return web.json_response({})

    async def agent_harnesses(request: web.Request) -> web.Response:
        return web.json_response({"standardEnvVars": [], "harnesses": {}})

    async def unknown(request: web.Request) -> web.Response:
        return _error(404, f"the Hub stand-in has no route {request.method} {request.path}")

    repo = "/api/datasets/{org}/{name}"
    app = web.Application(middlewares=[record], client_max_size=1 << 30)
    app.router.add_post("/api/repos/create", create_repo)
    app.router.add_post("/api/validate-yaml", validate_yaml)
    app.router.add_get("/api/agent-harnesses", agent_harnesses)
    app.router.add_get(repo, info)
    app.router.add_get(repo + "/revision/{rev}", info)
    app.router.add_get(repo + "/refs", refs)
    app.router.add_get(repo + "/tree/{rev}", tree)
    app.router.add_post(repo + "/preupload/{rev}", preupload)
    app.router.add_post(repo + "/commit/{rev}", commit)
    app.router.add_post(repo + "/tag/{rev}", tag)
    app.router.add_route("*", "/{tail:.*}", unknown)
    return app


class HubServer:
    """A running Hub stand-in: ``endpoint`` for ``HF_ENDPOINT``, ``state`` to inspect, ``stop()``."""

    def __init__(self, state: HubState, port: int = 0) -> None:
        """A server over ``state``, to listen on ``port`` once started (0: any free port)."""
        self.state = state
        self.port = port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        runner = web.AppRunner(make_app(self.state), access_log=None)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", self.port)
        self._loop.run_until_complete(site.start())
        self.port = runner.addresses[0][1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    def start(self) -> HubServer:
        """Start serving in a daemon thread; returns once the port is bound."""
        self._thread.start()
        self._ready.wait(10)
        return self

    @property
    def endpoint(self) -> str:
        """The value for ``HF_ENDPOINT``."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop the loop and wait for the thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def serve_in_thread(root: Path, token: str | None = None) -> HubServer:
    """Start a Hub stand-in writing its snapshots under ``root``."""
    return HubServer(HubState(Path(root), token)).start()
