"""A local stand-in for the Hub's dataset repositories: commits are folder snapshots, refs point at them.

It implements the calls :mod:`builders.push` makes (``huggingface_hub.HfApi``'s signatures), applying
``CommitOperationAdd`` / ``CommitOperationDelete`` as the Hub does, so a test can load a pushed tag
with ``load_dataset(snapshot_folder, config)`` exactly as a user loads ``revision=tag``.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any


@dataclass
class LocalRepo:
    """One repository: its commits (oid -> snapshot folder), ``main`` and its tags."""

    main: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    commits: dict[str, Path] = field(default_factory=dict)
    private: bool = False


class LocalHub:
    """Dataset repositories under ``root``; every call is recorded in :attr:`calls`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.repos: dict[str, LocalRepo] = {}
        self.calls: list[str] = []

    def create_repo(self, repo_id: str, *, repo_type: str | None = None, private: bool | None = None,
                    exist_ok: bool = False) -> str:
        self.calls.append("create_repo")
        assert repo_type == "dataset"
        if repo_id in self.repos and not exist_ok:
            raise FileExistsError(repo_id)
        self.repos.setdefault(repo_id, LocalRepo(private=bool(private)))
        return f"https://huggingface.co/datasets/{repo_id}"

    def list_repo_refs(self, repo_id: str, *, repo_type: str | None = None) -> Any:
        self.calls.append("list_repo_refs")
        return SimpleNamespace(tags=[SimpleNamespace(name=t, target_commit=c) for t, c in self.repos[repo_id].tags.items()])

    def list_repo_files(self, repo_id: str, *, repo_type: str | None = None) -> list[str]:
        self.calls.append("list_repo_files")
        repo = self.repos[repo_id]
        return sorted(self.files(repo_id, repo.main)) if repo.main else [".gitattributes"]

    def files(self, repo_id: str, revision: str) -> dict[str, Path]:
        """The files of a revision (commit oid, tag or ``main``)."""
        repo = self.repos[repo_id]
        oid = repo.main if revision == "main" else repo.tags.get(revision, revision)
        folder = repo.commits[oid]
        return {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}

    def snapshot(self, repo_id: str, revision: str) -> Path:
        """The folder holding a revision's files, as ``snapshot_download`` would give it."""
        repo = self.repos[repo_id]
        return repo.commits[repo.tags.get(revision, revision)]

    def create_commit(self, repo_id: str, operations: Any, *, commit_message: str, repo_type: str | None = None) -> Any:
        self.calls.append("create_commit")
        repo = self.repos[repo_id]
        content = {path: file.read_bytes() for path, file in self.files(repo_id, "main").items()} if repo.main else {}
        for op in operations:
            if type(op).__name__ == "CommitOperationAdd":
                content[op.path_in_repo] = Path(op.path_or_fileobj).read_bytes()
            elif type(op).__name__ == "CommitOperationDelete":
                del content[op.path_in_repo]
            else:
                raise TypeError(op)
        oid = hashlib.sha1(repr((repo.main, sorted((p, hashlib.sha1(b).hexdigest()) for p, b in content.items()),
                                 commit_message)).encode()).hexdigest()
        folder = self.root / repo_id.replace("/", "__") / oid
        if folder.exists():
            shutil.rmtree(folder)
        for path, data in content.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(data)
        repo.commits[oid] = folder
        repo.main = oid
        return SimpleNamespace(oid=oid, commit_url=f"https://huggingface.co/datasets/{repo_id}/commit/{oid}")

    def create_tag(self, repo_id: str, *, tag: str, tag_message: str | None = None, revision: str | None = None,
                   repo_type: str | None = None, exist_ok: bool = False) -> None:
        self.calls.append("create_tag")
        repo = self.repos[repo_id]
        if tag in repo.tags and not exist_ok:
            raise FileExistsError(tag)
        repo.tags[tag] = revision or repo.main
