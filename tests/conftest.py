"""Fixtures shared by several test files."""

import importlib.util
import io
import multiprocessing
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from xenophon.kernel.plugin import game_names

# The registered games (the plugin registry's order): the shared tests run
# over each, so a new game is tested by them without editing them.
GAME_NAMES = game_names()

# The slow tests (tests/slow_tests.txt) carry the `slow` marker: the fast
# tier, `pytest -m "not slow"`, leaves them out (CONTRIBUTING, "Tests").
SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")
# Tests that share one costly fixture run in one xdist worker (`--dist
# loadgroup`, which pytest_configure makes the default under -n), so that
# `-n 2` starts it once rather than once a worker.
SHARED_FIXTURE_GROUPS = {"ray_cluster": "ray", "jax_process": "jax", "browser": "browser"}


def read_slow_tests(path: Path = SLOW_TESTS) -> set[str]:
    """The entries of the slow list: a test's id, a test function's id
    without its parameters, or a test file; `#` starts a comment."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}


def is_slow(nodeid: str, slow: set[str]) -> bool:
    """Whether the slow list names this test, its function or its file."""
    return bool({nodeid, nodeid.split("[", 1)[0], nodeid.split("::", 1)[0]} & slow)


def pytest_configure(config):
    if getattr(config.option, "dist", "no") == "load":  # -n N without --dist
        config.option.dist = "loadgroup"


@pytest.hookimpl(tryfirst=True)  # before -m deselects and xdist reads the groups
def pytest_collection_modifyitems(config, items):
    slow = read_slow_tests()
    for item in items:
        if is_slow(item.nodeid, slow):
            item.add_marker(pytest.mark.slow)
        for fixture, group in SHARED_FIXTURE_GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))


# The browser tests drive a system Chromium with Playwright (README, "Set
# up"); without either they skip, and the summary says so in one line.
BROWSER_TESTS = "test_web_browser.py"


def skip_reason(report) -> str:
    """The reason a skipped test report gives ("Skipped: " dropped)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def browser_skip_line(skipped) -> str | None:
    """One line for the browser tests among the skipped reports, or None."""
    reasons = [
        skip_reason(report)
        for report in skipped
        if report.nodeid.split("::")[0].endswith(BROWSER_TESTS)
    ]
    if not reasons:
        return None
    return f"{len(reasons)} browser tests skipped: {reasons[0]}; what they need: README, 'Set up'"


def pytest_terminal_summary(terminalreporter):
    line = browser_skip_line(terminalreporter.stats.get("skipped", []))
    if line is not None:
        terminalreporter.write_line(line, yellow=True)


@dataclass
class CliRun:
    """What one `xenophon` command gave (the fields of subprocess's
    CompletedProcess that the tests read)."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


class _CliTimeout(BaseException):
    """Raised in the command by SIGALRM when it runs out of time."""


def _out_of_time(signum, frame):
    raise _CliTimeout


def _exit_code(exit: SystemExit) -> int:
    """The exit code `sys.exit(code)` gives a process."""
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=sys.stderr)
    return 1


def run_cli(*args, input_text=None, home=None, env=None, timeout=600) -> CliRun:
    """`xenophon ARGS` run in this process, as `python -m xenophon.cli.main
    ARGS` would run with piped streams, without a new interpreter to start:
    stdin reads `input_text` (empty by default), stdout and stderr are
    captured, the environment is `env` (this process's by default) with
    XDG_DATA_HOME set to `home` if given, for the command only. An exception
    the command lets out ends it as it would end the process: its traceback
    on stderr, exit code 1. Past `timeout` seconds the command is stopped
    and subprocess.TimeoutExpired raised."""
    from xenophon.cli.main import main

    argv = [str(arg) for arg in args]
    streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    # byte buffers behind text wrappers, as a pipe is: the command may
    # reconfigure them (main() does) or write to their buffer
    sys.stdin = io.TextIOWrapper(io.BytesIO((input_text or "").encode()), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if home is not None:
        os.environ["XDG_DATA_HOME"] = str(home)
    alarm = signal.signal(signal.SIGALRM, _out_of_time)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    timed_out = False
    try:
        try:
            code = _exit_code(SystemExit(main(argv)))
        except SystemExit as exit:
            code = _exit_code(exit)
        except _CliTimeout:
            timed_out = True
        except Exception:
            traceback.print_exc()
            code = 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, alarm)
        captured = sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = streams
        os.environ.clear()
        os.environ.update(saved_env)
    if timed_out:
        raise subprocess.TimeoutExpired(["xenophon", *argv], timeout)
    # decoded as subprocess's text mode does (universal newlines)
    stdout, stderr = (
        io.TextIOWrapper(io.BytesIO(stream.buffer.getvalue()), encoding="utf-8").read()
        for stream in captured
    )
    return CliRun(["xenophon", *argv], code, stdout, stderr)


@pytest.fixture
def cli():
    """The `xenophon` command, run in the test's process: `cli(*args,
    input_text=None, home=None, env=None, timeout=600)` (run_cli)."""
    return run_cli


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A Ray cluster of one node with 2 worker CPUs, reached on the loopback
    address, started once for the session (`ray start --head --block` in its
    own process group, which the end of the session kills); yields its
    address. Its token (Ray's token authentication) is this session's own,
    in the environment the commands under test inherit."""
    pytest.importorskip("ray")
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(16)
    ray_command = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("ray") / "ray-start.log"
    # its own short temporary folder (socket paths are short): the default one
    # would keep naming this cluster as the machine's after it is gone
    temp_dir = tempfile.mkdtemp(prefix="xenophon-ray-")
    with open(log, "w") as handle:
        head = subprocess.Popen(
            [
                ray_command,
                "start",
                "--head",
                "--block",
                "--node-ip-address=127.0.0.1",
                f"--port={port}",
                "--num-cpus=2",
                "--include-dashboard=false",
                "--disable-usage-stats",
                f"--temp-dir={temp_dir}",
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.time() + 120
        while "Ray runtime started" not in Path(log).read_text():
            if head.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"ray start failed:\n{Path(log).read_text()}")
            time.sleep(0.5)
        yield address
    finally:
        os.killpg(head.pid, signal.SIGKILL)  # draining on SIGTERM takes 30 s
        head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def jax_process():
    """A process of its own (spawned, not forked) for the tests that run JAX:
    JAX starts threads, and this process forks pools of workers in other
    tests afterwards (a fork of a threaded process can deadlock). Skips,
    saying why, without the train extra."""
    if importlib.util.find_spec("optax") is None:
        pytest.skip("training needs the train extra")
    # the child imports the test modules whose functions it runs, and they
    # import this conftest by name: the tests' folder goes first on its path
    # (else another folder's conftest.py, bench/'s, may be found first)
    first = f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})"
    with ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=exec, initargs=(first,)
    ) as pool:
        yield pool
