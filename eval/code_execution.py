"""Run model-written Python against a problem's tests, in a separate, limited process (MBPP scoring).

Executing a model's output is opt-in (``--allow-code-execution``, :class:`eval.task.TaskOptions`): a
task that does it says so (``executes_code``), and :func:`refuse_code_execution` stops a run or a
re-scoring before anything is sent or run when the user did not allow it.

Each solution is checked as MBPP checks one (Austin et al. 2021: the program, then the setup code and
the asserts of ``test_list``; it passes when every assert holds), isolated the way harnesses that
run model code do (openai/human-eval ``human_eval/execution.py``: a separate process, a timeout,
limits), in our own code:

- a fresh interpreter, ``sys.executable -I`` (isolated: no ``PYTHON*`` variables, no user site, the
  working folder not on ``sys.path``), whose environment holds only a locale and ``HOME``/``TMPDIR``
  (the temporary folder), so no secret held in the parent's environment reaches the model's code;
- a fresh temporary folder as working folder, removed afterwards;
- a wall-clock timeout (:data:`DEFAULT_TIMEOUT_S`; the whole process group is killed on expiry);
- on POSIX, ``resource`` limits the child sets on itself before it reads the solution: address space,
  CPU seconds, size of files written, no core dumps, no further processes (set there, not in a
  ``preexec_fn``, which may deadlock a process with threads, such as a run's HTTP client);
- a pass counts only when the driver reaches its end and prints a random token the model's code
  never sees (a solution that exits early with status 0 does not pass).

This is a guard against accidents (infinite loops, runaway memory, stray writes), not a security
boundary: run untrusted models' code in a container or VM as well.

Scoring a run (at the end of each invocation, and on every ``python -m eval score``) would run every
solution again, about 130 ms each. Inside :func:`remembered_executions` (the run directory's
``executions.jsonl``), a solution already run against the same tests, timeout and Python is answered
from the log; a timeout is not remembered, since it may say more about the machine's load than
about the code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import secrets
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from eval.store import SampleWriter, latest_records
from needlework.errors import SpecError

DEFAULT_TIMEOUT_S = 5.0
"""Seconds a solution and its tests may run (NeMo-Skills' code evaluator uses 10 per test case;
evalplus at least 1 per test, scaled from the reference solution's time)."""
MEMORY_LIMIT_BYTES = 2 * 1024**3
FILE_SIZE_LIMIT_BYTES = 16 * 1024**2
OUTPUT_TAIL_CHARS = 400

Outcome = Literal["passed", "no_code", "syntax_error", "assertion", "error", "timeout"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "no_code", "syntax_error", "assertion", "error", "timeout")
"""Why a solution scored what it did: every assert passed; no code was found; the code does not
compile; an assert failed; the code or a test raised (or the process was killed by a limit); the time ran out."""

_EXIT_SOLUTION_ERROR, _EXIT_ASSERTION, _EXIT_TEST_ERROR = 3, 4, 5
_DRIVER = """\
import sys
try:
    import resource
except ImportError:
    resource = None
memory, cpu, files, solution_error, assertion_error, test_error = (int(value) for value in sys.argv[1:7])
if resource is not None:
    for name, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, files),
                        (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 0)):
        try:
            resource.setrlimit(name, (value, value))
        except (ValueError, OSError):
            pass
token = sys.stdin.readline().strip()
sys.stdin.close()
namespace = {"__name__": "__main__"}
with open("solution.py", encoding="utf-8") as handle:
    solution = handle.read()
with open("tests.py", encoding="utf-8") as handle:
    tests = handle.read()
try:
    exec(compile(solution, "solution.py", "exec"), namespace)
except BaseException as error:
    print(f"solution: {type(error).__name__}: {error}", file=sys.stderr)
    sys.stderr.flush()
    raise SystemExit(solution_error)
try:
    exec(compile(tests, "tests.py", "exec"), namespace)
except AssertionError as error:
    print(f"tests: AssertionError: {error}", file=sys.stderr)
    sys.stderr.flush()
    raise SystemExit(assertion_error)
except BaseException as error:
    print(f"tests: {type(error).__name__}: {error}", file=sys.stderr)
    sys.stderr.flush()
    raise SystemExit(test_error)
sys.stdout.write("\\n" + token + "\\n")
sys.stdout.flush()
"""
"""The program the child runs (arguments: the limits, then the exit statuses to end with): its POSIX
limits first (address space, CPU seconds, file size, no core dumps, no further processes; those the
platform refuses are skipped), then the solution and the tests in one namespace, reporting how it
ended by exit status and the token on standard output."""


@dataclass(frozen=True)
class Execution:
    """The outcome of running one solution against its tests.

    Attributes:
        outcome: One of :data:`OUTCOMES`.
        detail: The last line of the process's error output (the exception), or what stopped it.
    """

    outcome: Outcome
    detail: str = ""

    @property
    def passed(self) -> bool:
        """Whether every test passed."""
        return self.outcome == "passed"


def program_of_tests(setup: str, tests: Iterable[str]) -> str:
    """The test code MBPP runs after a solution: the setup code, then each assert on its own line."""
    return "\n".join([setup, *tests]) if setup else "\n".join(tests)


def _tail(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")[-OUTPUT_TAIL_CHARS:]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def run_solution(code: str, tests: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> Execution:
    """Run ``code`` and then ``tests`` (setup and asserts, :func:`program_of_tests`) in a fresh, limited
    Python process; see the module docstring for the isolation.

    Args:
        code: The extracted solution ("" when the response held none).
        tests: The test program.
        timeout_s: Wall-clock seconds before the process group is killed (CPU seconds are limited
            to the next whole second above it).

    Returns:
        The outcome; ``passed`` only when every assert ran and held.
    """
    if timeout_s <= 0:
        raise SpecError(f"the code timeout must be positive seconds, not {timeout_s}")
    if not code.strip():
        return Execution("no_code")
    try:
        compile(code, "solution.py", "exec")
    except (SyntaxError, ValueError) as error:
        return Execution("syntax_error", f"{type(error).__name__}: {error}")
    log = _LOG.get()
    if log is None:
        return _execute(code, tests, timeout_s)
    return log.execution(code, tests, timeout_s)


class _ExecutionLog:
    """Executions remembered in a run directory's log, keyed by what decides them."""

    def __init__(self, path: Path) -> None:
        self.known = {key: Execution(record["outcome"], record.get("detail", ""))
                      for key, record in latest_records(path).items() if record.get("outcome") in OUTCOMES}
        self.path = path
        self.writer: SampleWriter | None = None

    def execution(self, code: str, tests: str, timeout_s: float) -> Execution:
        """The remembered outcome, or the code run now (and remembered unless it timed out)."""
        key = hashlib.sha256(json.dumps([code, tests, timeout_s, platform.python_version()]).encode("utf-8")).hexdigest()
        if key in self.known:
            return self.known[key]
        ran = _execute(code, tests, timeout_s)
        if ran.outcome != "timeout":
            self.writer = self.writer or SampleWriter(self.path)
            self.writer.append({"key": key, "outcome": ran.outcome, "detail": ran.detail})
            self.known[key] = ran
        return ran


_LOG: ContextVar[_ExecutionLog | None] = ContextVar("needlework_execution_log", default=None)


@contextlib.contextmanager
def remembered_executions(path: Path) -> Iterator[None]:
    """Within the block, :func:`run_solution` answers from the log at ``path`` what it already ran and
    appends what it runs (outcome and detail, keyed by the sha256 of solution, tests, timeout and
    Python version; timeouts are not kept), so a run is re-scored without running its code again."""
    log = _ExecutionLog(path)
    token = _LOG.set(log)
    try:
        yield
    finally:
        _LOG.reset(token)
        if log.writer is not None:
            log.writer.close()


def _execute(code: str, tests: str, timeout_s: float) -> Execution:
    """Run compiled ``code`` and ``tests`` in the child process (:func:`run_solution` without the log)."""
    token = secrets.token_hex(16)
    posix = os.name == "posix"
    with tempfile.TemporaryDirectory(prefix="needlework-exec-") as folder:
        work = Path(folder)
        (work / "solution.py").write_text(code, encoding="utf-8")
        (work / "tests.py").write_text(tests, encoding="utf-8")
        env = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "HOME": folder, "TMPDIR": folder}
        if not posix:  # Windows needs its system root to start Python
            env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
        with (work / "stdout").open("wb") as out, (work / "stderr").open("wb") as err:
            arguments = (MEMORY_LIMIT_BYTES, int(timeout_s) + 1, FILE_SIZE_LIMIT_BYTES,
                         _EXIT_SOLUTION_ERROR, _EXIT_ASSERTION, _EXIT_TEST_ERROR)
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", _DRIVER, *map(str, arguments)], cwd=folder, env=env, stdin=subprocess.PIPE,
                stdout=out, stderr=err, start_new_session=posix,
            )
            try:
                process.communicate((token + "\n").encode("ascii"), timeout=timeout_s)
            except subprocess.TimeoutExpired:
                _kill(process, posix)
                return Execution("timeout", f"no result within {timeout_s:g} s")
        stdout, detail = (work / "stdout").read_text(encoding="utf-8", errors="replace"), _tail(work / "stderr")
    status = process.returncode
    if status == 0 and stdout.rstrip().endswith(token):
        return Execution("passed")
    if status == _EXIT_ASSERTION:
        return Execution("assertion", detail)
    if status < 0:
        return Execution("error", f"killed by signal {-status}, a resource limit" + (f"; {detail}" if detail else ""))
    return Execution("error", detail or f"exited with status {status} before the tests finished")


def _kill(process: subprocess.Popen, posix: bool) -> None:
    """Kill the process (its whole group on POSIX: anything it started too) and reap it."""
    if posix:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    else:
        process.kill()
    process.wait()


def refuse_code_execution(tasks: Iterable[object], allowed: bool) -> None:
    """Stop before anything runs when a task scores by executing model output and the user did not allow it.

    Args:
        tasks: The tasks of a run (those with ``executes_code`` true run code to score).
        allowed: ``TaskOptions.allow_code_execution`` (``--allow-code-execution``).

    Raises:
        SpecError: One line naming a task that executes code and the flag that allows it.
    """
    if allowed:
        return
    running = sorted(str(getattr(t, "name", t)) for t in tasks if getattr(t, "executes_code", False))
    if running:
        raise SpecError(f"{running[0]} scores answers by running the model's code: pass --allow-code-execution to run "
                        "it (a separate Python process with a timeout and resource limits; not a security sandbox)")
