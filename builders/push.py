"""Publish a release on the Hugging Face Hub: validated first, one atomic commit, a version tag.

A maintainer's last step. The release folder is uploaded as it is (card with its ``configs:`` YAML,
which the Hub's dataset viewer and ``load_dataset`` read, ``manifest.json``, the Parquet shards), in
one ``create_commit``: readers never see half a release. Files of an earlier release that this one
does not have are deleted in the same commit, so a ``data_files`` pattern such as
``mk_niah_basic/test-*`` can never match a stale shard. The commit is then tagged with the
release's version, and ``load_dataset(repo, config, revision=tag)`` reads exactly that version for
good: a tag that exists already is refused, never moved.

The token is never an argument: ``huggingface_hub`` takes it from ``HF_TOKEN`` or the login cache
(``hf auth login``), and nothing here prints or writes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from builders.release import MANIFEST
from builders.validate import read_manifest, validate_release
from needlework.errors import ReleaseError
from needlework.hub import hub_errors, hub_id_problem, tag_problem

REPO_TYPE = "dataset"
KEPT_REMOTE_FILES = frozenset({".gitattributes"})
"""Files of the Hub repository that a push never deletes (the Hub's own LFS attributes)."""


class HubApi(Protocol):
    """The part of :class:`huggingface_hub.HfApi` a push uses (tests pass a local stand-in)."""

    def create_repo(self, repo_id: str, *, repo_type: str | None = ..., private: bool | None = ...,
                    exist_ok: bool = ...) -> Any: ...

    def list_repo_refs(self, repo_id: str, *, repo_type: str | None = ...) -> Any: ...

    def list_repo_files(self, repo_id: str, *, repo_type: str | None = ...) -> list[str]: ...

    def create_commit(self, repo_id: str, operations: Iterable[Any], *, commit_message: str,
                      repo_type: str | None = ...) -> Any: ...

    def create_tag(self, repo_id: str, *, tag: str, tag_message: str | None = ..., revision: str | None = ...,
                   repo_type: str | None = ..., exist_ok: bool = ...) -> None: ...


@dataclass(frozen=True)
class PushPlan:
    """What a push uploads: the validated release's files and the tag it will carry.

    Attributes:
        release: The release folder.
        repo_id: The Hub dataset, ``ORG/NAME``.
        tag: The version tag the commit gets.
        files: ``(path in the repository, bytes)`` of every file uploaded, sorted by path.
    """

    release: Path
    repo_id: str
    tag: str
    files: tuple[tuple[str, int], ...]

    @property
    def total_bytes(self) -> int:
        """Bytes uploaded in all."""
        return sum(size for _, size in self.files)

    def lines(self) -> list[str]:
        """The plan as ``--dry-run`` prints it: one line per file, then the total and the tag."""
        lines = [f"{size:>14,}  {path}" for path, size in self.files]
        lines.append(f"{len(self.files)} files, {self.total_bytes:,} bytes -> {self.repo_id} (dataset), tag {self.tag}")
        return lines


@dataclass(frozen=True)
class PushResult:
    """What a push did on the Hub."""

    repo_id: str
    commit: str
    tag: str
    uploaded: int
    deleted: tuple[str, ...]

    def lines(self) -> list[str]:
        """One line for the commit and tag, and one naming files of an earlier release that were removed."""
        lines = [f"pushed {self.uploaded} files to {self.repo_id} in commit {self.commit[:12]}, tagged {self.tag}",
                 f'load with: load_dataset("{self.repo_id}", CONFIG, revision="{self.tag}")']
        if self.deleted:
            lines.append(f"removed {len(self.deleted)} files of an earlier release: {', '.join(self.deleted[:5])}"
                         + (" ..." if len(self.deleted) > 5 else ""))
        return lines


def release_version(manifest: dict) -> str:
    """The default tag of a release: ``v{needlework version}-{12 hex}``, the hex digest over every
    config's and split's content hash, so two releases get one tag exactly when their rows are equal."""
    digest = hashlib.sha256()
    for config, info in sorted((manifest.get("configs") or {}).items()):
        for split, split_info in sorted(info.get("splits", {}).items()):
            digest.update(f"{config}\0{split}\0{split_info.get('content_sha256')}\n".encode())
    return f"v{manifest.get('needlework_version', '0')}-{digest.hexdigest()[:12]}"


def release_files(release: Path) -> list[tuple[str, int]]:
    """Every file of the release folder (``path``, bytes), sorted; hidden files and folders are not
    part of a release (an interrupted build's temporary folder, editor files)."""
    files = []
    for path in sorted(Path(release).rglob("*")):
        relative = path.relative_to(release)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            files.append((relative.as_posix(), path.stat().st_size))
    return files


def plan_push(release: Path, repo_id: str, tag: str | None = None) -> PushPlan:
    """Validate ``release`` and list what a push of it to ``repo_id`` uploads.

    Raises:
        ReleaseError: ``repo_id`` is not ``ORG/NAME`` or ``tag`` cannot name a git tag (both checked
            before anything is read), or the release does not validate (the first problem and how
            many there are).
    """
    check_push_target(repo_id, tag)
    release = Path(release)
    manifest = read_manifest(release)
    problems = validate_release(release)
    if problems:
        raise ReleaseError(f"{release}: does not validate, not pushed ({len(problems)} problem"
                           f"{'s' if len(problems) != 1 else ''}; first: {problems[0]}); run needlework validate")
    files = release_files(release)
    if MANIFEST not in {path for path, _ in files}:
        raise ReleaseError(f"{release}: no {MANIFEST}")
    return PushPlan(release, repo_id, tag or release_version(manifest), tuple(files))


def check_push_target(repo_id: str, tag: str | None) -> None:
    """Refuse a ``repo_id`` that is not ``ORG/NAME`` by the Hub's own rule and a ``tag`` that git cannot
    name, before anything is read or uploaded (a dry run too): a tag the Hub refused would come only
    after the commit, leaving an untagged release on the Hub.

    Raises:
        ReleaseError: Naming the bad id or tag and the rule.
    """
    problem = hub_id_problem(repo_id)
    if problem is not None:
        raise ReleaseError(f"{repo_id!r}: {problem.replace('Hub id', 'Hub dataset id')}")
    if tag is not None and (problem := tag_problem(tag)) is not None:
        raise ReleaseError(f"--tag {tag!r}: {problem}")


def remote_tags(refs: Any) -> set[str]:
    """Tag names of a ``list_repo_refs`` answer."""
    return {getattr(ref, "name", ref) for ref in getattr(refs, "tags", ()) or ()}


def commit_operations(plan: PushPlan, remote_files: Sequence[str]) -> tuple[list[Any], tuple[str, ...]]:
    """The operations of the push commit: add every release file, delete every other remote file
    (except :data:`KEPT_REMOTE_FILES`); and the deleted paths."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    local = {path for path, _ in plan.files}
    deleted = tuple(sorted(p for p in remote_files if p not in local and p not in KEPT_REMOTE_FILES))
    operations: list[Any] = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=str(plan.release / path))
                             for path, _ in plan.files]
    operations += [CommitOperationDelete(path_in_repo=path) for path in deleted]
    return operations, deleted


def push_release(plan: PushPlan, api: HubApi | None = None, *, private: bool = False,
                 message: str | None = None) -> PushResult:
    """Push a planned release: create the dataset repository if needed, refuse an existing tag,
    upload in one commit (deleting files of an earlier release), tag that commit.

    Args:
        plan: From :func:`plan_push` (the release already validated).
        api: The Hub client; default ``huggingface_hub.HfApi()``, which finds the token in
            ``HF_TOKEN`` or the login cache.
        private: Create the repository private (an existing one keeps its visibility).
        message: The commit message (default names the release's version).

    Raises:
        ReleaseError: The tag exists already in the repository.
        HubError: The Hub answered with an error or could not be reached: one line naming the
            repository and what to do (:func:`needlework.hub.hub_errors`).
    """
    with hub_errors(f"{plan.repo_id}: push failed"):
        return _push(plan, api, private=private, message=message)


def _push(plan: PushPlan, api: HubApi | None, *, private: bool, message: str | None) -> PushResult:
    """:func:`push_release` without the translation of Hub client errors."""
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    api.create_repo(plan.repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
    if plan.tag in remote_tags(api.list_repo_refs(plan.repo_id, repo_type=REPO_TYPE)):
        raise ReleaseError(f"{plan.repo_id}: tag {plan.tag} exists already; a version tag is never moved "
                           "(pass another --tag)")
    operations, deleted = commit_operations(plan, api.list_repo_files(plan.repo_id, repo_type=REPO_TYPE))
    info = api.create_commit(plan.repo_id, operations, repo_type=REPO_TYPE,
                             commit_message=message or f"needlework release {plan.tag}")
    commit = getattr(info, "oid", None) or str(info)
    api.create_tag(plan.repo_id, tag=plan.tag, revision=commit, repo_type=REPO_TYPE,
                   tag_message=f"needlework release {plan.tag}")
    return PushResult(plan.repo_id, commit, plan.tag, len(plan.files), deleted)
