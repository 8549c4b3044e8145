"""A ``needlework build`` stopped by SIGTERM or SIGINT leaves no partial folder, exits 143 or 130."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders.cli import main
from tests.support.signals import with_default_signals

SLOW_BUILD = ("build", "rulerv2", "--tasks", "mk_niah_basic", "--lengths", "65536", "--samples", "1000", "--quiet")
"""About 25 s of work on a quiet 2-core machine: the signal always arrives while the release is being written."""


def wait_for_partial(folder: Path, process: subprocess.Popen, timeout: float = 120.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        partial = [p for p in folder.iterdir() if p.name.endswith(".partial")]
        if partial:
            return partial[0]
        if process.poll() is not None:
            pytest.fail(f"the build ended before it was signalled: {process.communicate()}")
        time.sleep(0.05)
    process.kill()
    pytest.fail("no .partial folder appeared")


def signal_dispositions(pid: int) -> dict[str, str]:
    """The process's ignored, caught and (main thread's) blocked signal sets, as /proc shows them (hex masks;
    SIGINT is 0x2, SIGTERM 0x4000); empty where /proc is not there."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in lines if line.startswith(("SigIgn", "SigCgt", "SigBlk")))


def signal_until_it_ends(process: subprocess.Popen, signum: int, *, every: float = 8.0, most: int = 3) -> int:
    """Send ``signum`` to ``process`` until it exits (``every`` seconds apart, ``most`` times); how many were sent.

    Why more than one: in about one full suite run in four (seen 5 times, with SIGINT and with SIGTERM), the
    build's first signal is lost: /proc shows the handler installed and the signal neither ignored nor blocked,
    yet the build runs to its end and exits 0. The cause is not found (the closing note of issue 37 says what
    was ruled out). A lost first signal is reported as a warning, so it stays visible; what the test asserts is
    what one signal that arrives must do. ``every`` is far above the 0.1-0.3 s a build takes to unwind, so a second
    signal never lands on a build that is already cleaning up (after its handler is gone, it would kill it outright),
    and far below the ~20 s a build that lost its signal goes on writing."""
    for sent in range(1, most + 1):
        process.send_signal(signum)
        try:
            process.wait(timeout=every)
        except subprocess.TimeoutExpired:
            continue
        if sent > 1:
            warnings.warn(f"the build's first {signal.Signals(signum).name} was lost; it stopped after {sent}",
                          stacklevel=2)
        return sent
    return most


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signalled_build_removes_its_partial_folder_and_keeps_the_old_release(demo, tmp_path, signum, status):
    out = tmp_path / "rulerv2"
    shutil.copytree(demo.folder / "rulerv2", out)
    build = subprocess.Popen(with_default_signals([sys.executable, "-m", "builders", *SLOW_BUILD, "--out", str(out)]),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_partial(tmp_path, build)
    dispositions = signal_dispositions(build.pid)
    sent = signal_until_it_ends(build, signum)
    stdout, stderr = build.communicate(timeout=60)
    assert build.returncode == status, (dispositions, sent, stdout[-500:], stderr[-2000:])
    assert stdout == ""
    assert stderr == f"error: interrupted by {signum.name}\n"  # one line, no traceback
    assert [p.name for p in tmp_path.iterdir()] == ["rulerv2"]
    validated = CliRunner().invoke(main, ["validate", str(out)])
    assert validated.exit_code == 0, validated.output  # the previous release, untouched
