"""Signals that unwind: SIGTERM and SIGINT become Interrupted, finally blocks run, atomic writes clean up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import needlework.atomic
from needlework.atomic import atomic_folder
from needlework.interrupts import Interrupted, deferred_signals, signals_unwind
from tests.support.signals import with_default_signals

CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from needlework.atomic import atomic_folder
    from needlework.interrupts import Interrupted, signals_unwind

    try:
        with signals_unwind(), atomic_folder(Path(sys.argv[1])) as folder:
            (folder / "half.txt").write_text("half")
            print("ready", flush=True)
            time.sleep(60)
    except Interrupted as err:
        print(err, flush=True)
        sys.exit(err.exit_status)
    """
)


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_in_another_process_removes_its_partial_folder(tmp_path, signum, status):
    target = tmp_path / "release"
    child = subprocess.Popen(with_default_signals([sys.executable, "-c", CHILD, str(target)]), stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout.readline() == "ready\n"
    assert [p.name.endswith(".partial") for p in tmp_path.iterdir()] == [True]
    child.send_signal(signum)
    out, _ = child.communicate(timeout=30)
    assert child.returncode == status
    assert out == f"interrupted by {signum.name}\n"
    assert list(tmp_path.iterdir()) == []  # no partial folder, and no target


def test_sigterm_raises_interrupted_and_the_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught:
        with signals_unwind():
            assert signal.getsignal(signal.SIGTERM) is not before
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 0)  # give the interpreter a point to run the handler
    assert caught.value.signum == signal.SIGTERM and caught.value.exit_status == 143
    assert isinstance(caught.value, KeyboardInterrupt) and not isinstance(caught.value, Exception)
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_signal_ignored_at_start_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_unwind():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 0)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_deferred_signals_finish_the_block_then_raise():
    finished = []
    with pytest.raises(Interrupted):
        with signals_unwind():
            with deferred_signals():
                os.kill(os.getpid(), signal.SIGTERM)
                signal.sigtimedwait([], 0)
                finished.append(True)
    assert finished == [True]


def test_a_signal_during_the_swap_lets_the_swap_finish(tmp_path, monkeypatch):
    swap = needlework.atomic._swap_into_place

    def signalled_swap(*args):
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0)
        swap(*args)

    monkeypatch.setattr(needlework.atomic, "_swap_into_place", signalled_swap)
    target = tmp_path / "release"
    with pytest.raises(Interrupted):
        with signals_unwind(), atomic_folder(target) as folder:
            (folder / "a.txt").write_text("complete")
    assert (target / "a.txt").read_text() == "complete"
    assert [p.name for p in tmp_path.iterdir()] == ["release"]
