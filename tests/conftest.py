"""Fixtures shared by several test files."""

import importlib.util
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from xenophon.kernel.plugin import game_names

# The registered games (the plugin registry's order): the shared tests run
# over each, so a new game is tested by them without editing them.
GAME_NAMES = game_names()

# Tests that share one costly session fixture run in one xdist worker (under
# `--dist loadgroup`), so that `-n 2` starts it once rather than once a worker.
SHARED_FIXTURE_GROUPS = {"ray_cluster": "ray", "jax_process": "jax"}


def pytest_collection_modifyitems(config, items):
    for item in items:
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
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool
