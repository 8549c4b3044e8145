"""Local release folders: tell a release from a typo, and suggest the release that was meant.

A release folder is a folder holding ``manifest.json``. Commands that read local releases
(``needlework validate``, ``needlework info``, ``python -m eval``) name a path that is not one in
one line: no such folder, a file, or a folder without a manifest, with the closest sibling
releases as suggestions.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from needlework.errors import ReleaseError

MANIFEST = "manifest.json"
SUGGESTIONS = 3
SIMILARITY_CUTOFF = 0.6
"""``difflib`` ratio below which a sibling's name is not suggested (``rulerv3`` -> ``rulerv2`` is 0.86)."""


def is_release_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding a ``manifest.json``."""
    return (Path(path) / MANIFEST).is_file()


def release_folders_in(folder: Path) -> list[Path]:
    """The release folders directly inside ``folder``, sorted by name (empty if it is not a folder)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return [child for child in sorted(folder.iterdir()) if is_release_folder(child)]


def closest_release_folders(path: Path) -> list[Path]:
    """Release folders beside ``path`` whose names are closest to its name, best first.

    For a mistyped release argument: ``demo-releases/rulerv3`` -> ``[demo-releases/rulerv2]``. The
    paths are spelled like ``path`` (relative stays relative). At most :data:`SUGGESTIONS`, none
    below :data:`SIMILARITY_CUTOFF`, never ``path`` itself; empty when its parent is not a folder.
    """
    path = Path(path)
    siblings = {p.name: p for p in release_folders_in(path.parent) if p.name != path.name}
    names = difflib.get_close_matches(path.name, list(siblings), n=SUGGESTIONS, cutoff=SIMILARITY_CUTOFF)
    return [path.parent / name for name in names]


def did_you_mean(paths: list[Path]) -> str | None:
    """``did you mean a?`` or ``did you mean a or b?`` for suggested paths; None for none."""
    if not paths:
        return None
    names = [str(p) for p in paths]
    return f"did you mean {names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' or ' + names[-1]}?"


def check_release_folder(path: Path, *, reader: str) -> Path:
    """``path`` if it is a release folder; else a :class:`ReleaseError` that says what it is instead.

    Args:
        path: The release argument as the user gave it.
        reader: What reads it, shown in the message so a Hub id or a typo is explained, e.g.
            ``"needlework validate reads a local folder"``.

    Raises:
        ReleaseError: ``path`` does not exist, is a file, or is a folder without ``manifest.json``.
            The message is one line and suggests the closest sibling releases, or the releases a
            folder of releases holds.
    """
    path = Path(path)
    if is_release_folder(path):
        return path
    if not path.exists():
        hint = "; ".join(filter(None, [reader, did_you_mean(closest_release_folders(path))]))
        raise ReleaseError(f"{path}: no such release folder ({hint})")
    if not path.is_dir():
        hint = did_you_mean([path.parent]) if path.name == MANIFEST and is_release_folder(path.parent) else reader
        raise ReleaseError(f"{path}: a file, not a release folder ({hint})")
    inside = release_folders_in(path)
    if inside:
        shown = ", ".join(str(p) for p in inside[:SUGGESTIONS]) + (", ..." if len(inside) > SUGGESTIONS else "")
        hint = f"it holds {len(inside)} release{'s' if len(inside) > 1 else ''}: {shown}"
    else:
        hint = did_you_mean(closest_release_folders(path))
    raise ReleaseError(f"{path}: no {MANIFEST}; not a needlework release{f' ({hint})' if hint else ''}")
