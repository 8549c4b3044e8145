"""Atomic writes: the target holds the old content or the new, never a part, and nothing is left behind."""

from __future__ import annotations

import os
import stat

import pytest

from needlework.atomic import atomic_folder, atomic_path, atomic_write, recover_interrupted

DEAD_PID = 2**22 + 12345
"""Above the kernel's default pid_max, so no process has it."""


def hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_atomic_write_replaces_and_is_shareable(tmp_path):
    target = tmp_path / "sub" / "results.json"
    atomic_write(target, "first")
    atomic_write(target, b"second")
    assert target.read_text() == "second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert hidden(target.parent) == []


def test_atomic_path_failure_keeps_the_old_file(tmp_path):
    target = tmp_path / "data.npy"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as temporary:
            temporary.write_text("half")
            raise RuntimeError("killed mid-write")
    assert target.read_text() == "old"
    assert hidden(tmp_path) == []


def test_atomic_folder_replaces_or_keeps(tmp_path):
    target = tmp_path / "release"
    with atomic_folder(target) as folder:
        (folder / "a.txt").write_text("one")
        assert not target.exists()
    assert (target / "a.txt").read_text() == "one"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    with atomic_folder(target) as folder:
        (folder / "b.txt").write_text("two")
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]
    with atomic_folder(target, existing="keep") as folder:
        (folder / "c.txt").write_text("three")
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]
    assert hidden(tmp_path) == []


def test_atomic_folder_failure_leaves_target_untouched(tmp_path):
    target = tmp_path / "release"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    with pytest.raises(KeyboardInterrupt):
        with atomic_folder(target) as folder:
            (folder / "new.txt").write_text("new")
            raise KeyboardInterrupt
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]
    assert hidden(tmp_path) == []


def test_recover_interrupted_restores_a_stranded_folder_and_drops_dead_partials(tmp_path):
    target = tmp_path / "release"
    stranded = tmp_path / f".release.old-{DEAD_PID}"
    stranded.mkdir()
    (stranded / "old.txt").write_text("old")
    (tmp_path / f".release.{DEAD_PID}.abc.partial").mkdir()
    live = tmp_path / f".release.{os.getpid()}.xyz.partial"
    live.mkdir()
    recover_interrupted(target)
    assert (target / "old.txt").read_text() == "old"
    assert hidden(tmp_path) == [live.name]
