"""Atomic writes: a file or folder appears at its path complete, or not at all.

Every writer in needlework (releases, the retrieval cache, eval run files, reports) goes through
these three context managers, so an interrupted process never leaves a half-written file that a
later run would trust. Temporary names sit beside the target (same file system, so the final
``rename`` is atomic), start with a dot, and carry the writer's process id, so that the leftovers
of a killed writer can be told apart from those of a live one and cleaned up by the next.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from needlework.interrupts import deferred_signals

FILE_MODE = 0o644
FOLDER_MODE = 0o755
"""Permissions of what is renamed into place: ``mkstemp``/``mkdtemp`` make private entries, and
releases, caches and reports are meant to be shared."""
PARTIAL = ".partial"
OLD = ".old-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}.{os.getpid()}."


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary file path beside ``path`` for a writer that needs a name (``numpy`` memory maps).

    On a clean exit the file is renamed onto ``path`` (replacing it); on an exception it is removed.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary: Path | None = None
    try:
        with deferred_signals():  # a signal cannot fall between creating the file and owning it
            handle, name = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=PARTIAL, dir=path.parent)
            os.close(handle)
            temporary = Path(name)
        yield temporary
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    finally:
        if temporary is not None:
            with deferred_signals():
                temporary.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically, replacing any file there."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as temporary:
        temporary.write_bytes(payload)


def recover_interrupted(path: Path) -> None:
    """Clean up after writers of folder ``path`` that were killed.

    Removes their temporary folders, and puts back a previous folder that a kill left stranded
    between the two renames of a swap. Leftovers of writers still running are not touched.
    """
    path = Path(path)
    prefix = f".{path.name}."
    leftovers = sorted(path.parent.glob(f"{prefix}*{PARTIAL}")) + sorted(path.parent.glob(f"{prefix}{OLD[1:]}*"))
    for stale in leftovers:
        pid = stale.name.removeprefix(prefix).removeprefix(OLD[1:]).split(".")[0]
        if not pid.isdigit() or _pid_alive(int(pid)):
            continue
        if stale.name.endswith(PARTIAL) or path.exists():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.rename(path)


@contextlib.contextmanager
def atomic_folder(path: Path, *, existing: Literal["replace", "keep"] = "replace") -> Iterator[Path]:
    """A temporary folder beside ``path`` to fill; on a clean exit it becomes ``path``.

    Readers never see a partial folder: the swap is two renames (the old folder aside, the new one
    in), and :func:`recover_interrupted` repairs a kill between them on the next call. On an
    exception (or ``KeyboardInterrupt``) the temporary folder is removed and ``path`` is untouched;
    under :func:`needlework.interrupts.signals_unwind` a SIGTERM or SIGINT counts as one, and the swap
    and the removal finish before the signal is raised.

    Args:
        path: Where the folder should end up.
        existing: What to do when ``path`` exists at the end: ``replace`` it (a rebuilt release),
            or ``keep`` it and drop ours (a cache entry another process stored from the same inputs).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    recover_interrupted(path)
    temporary: Path | None = None
    try:
        with deferred_signals():  # a signal cannot fall between creating the folder and owning it
            temporary = Path(tempfile.mkdtemp(prefix=_temporary_prefix(path), suffix=PARTIAL, dir=path.parent))
            temporary.chmod(FOLDER_MODE)
        yield temporary
        with deferred_signals():
            _swap_into_place(temporary, path, existing)
    finally:
        if temporary is not None:
            with deferred_signals():
                if temporary.exists():
                    shutil.rmtree(temporary, ignore_errors=True)


def _swap_into_place(temporary: Path, path: Path, existing: Literal["replace", "keep"]) -> None:
    if not path.exists():
        try:
            temporary.rename(path)
            return
        except OSError:
            if not path.exists():
                raise  # another writer did not get there first: a real failure
    if existing == "keep":
        return
    old = path.with_name(f".{path.name}{OLD}{os.getpid()}")
    path.rename(old)
    temporary.rename(path)
    shutil.rmtree(old, ignore_errors=True)
