"""A hostile external player is bounded (docs/players.md, "What a player
program may cost"): what it sends counts against its deadline byte by byte,
a `python:` spec's module is never imported in the referee, its whole
process tree is ended (descendants with sessions of their own too), and its
standard error is kept to a ring of the last 64 KiB."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import contextmanager

import pytest

from test_external_players import pids_in, running
from xenophon.kernel.registry import GAMES, SpecError
from xenophon.lab.tournament import play_one
from xenophon.play.external import (
    MAX_ANSWER_BYTES,
    READ_BYTES,
    STDERR_KEPT,
    Channel,
    Forfeit,
    _answer,
    _kill_tree,
    parse_external,
)
from xenophon.play.players import make_bot
from xenophon.play.warden import kill_below

#: seconds after which a test that should have ended counts as hung
HANG_SECONDS = 20


@contextmanager
def hang_guard(seconds: float = HANG_SECONDS):
    """Raises in the test, instead of hanging it, if its body runs longer than `seconds`."""

    def hung(_signal, _frame):
        raise TimeoutError(f"still running after {seconds} s: hung")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def python(source: str) -> tuple[str, ...]:
    return (sys.executable, "-c", textwrap.dedent(source))


def forfeit_of(channel: Channel, seconds: float) -> Forfeit:
    """The forfeit the channel's next answer ends in (a test fails if it answers)."""
    with hang_guard(), pytest.raises(Forfeit) as caught:
        _answer(channel, channel.receive(seconds))
    return caught.value


# -- the deadline counts every byte ---------------------------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        "import os\nwhile True: os.write(1, b'\\n' * 4096)",
        "import os\nwhile True: os.write(1, b' \\r\\n\\t\\n')",
        "import os, time\nwhile True: os.write(1, b'x'); time.sleep(0.001)",
    ],
    ids=["blank-lines", "whitespace-lines", "a-line-that-never-ends"],
)
def test_a_player_that_keeps_writing_but_never_answers_times_out(source):
    channel = Channel(python(source), 0)
    try:
        lost = forfeit_of(channel, 0.3)
        assert (lost.reason, lost.message) == ("timeout", "no answer within 0.3 s")
        assert len(channel.buffer) <= MAX_ANSWER_BYTES + READ_BYTES
    finally:
        channel.close(0.0)


def test_a_blank_flood_in_a_match_forfeits_by_timeout(tmp_path):
    """The match goes on (it hung for ever before): the flooding seat loses by 'timeout'."""
    script = tmp_path / "flood.py"
    script.write_text(
        "import json, os, sys\n"
        "sys.stdin.readline()\n"
        'print(json.dumps({"type": "ready", "protocol": 2}), flush=True)\n'
        "sys.stdin.readline()\n"
        "while True:\n"
        "    os.write(1, b'\\n' * 65536)\n"
    )
    with hang_guard():
        record = play_one(GAMES[0], [f"cmd[time=0.3]:{sys.executable} {script}", "random"], 1, 0)
    assert record.forfeit == {"seat": 0, "reason": "timeout", "message": "no answer within 0.3 s"}


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("import os\nos.write(1, b'{' * (2 << 20) + b'\\n')\nimport time\ntime.sleep(60)",
         "malformed"),
        ("import os, random\nos.write(1, random.Random(3).randbytes(5000) + b'\\n')\n"
         "import time\ntime.sleep(60)", "malformed"),
        ("import time\ntime.sleep(60)", "timeout"),
    ],
    ids=["huge-line", "random-bytes", "late"],
)  # fmt: skip
def test_huge_lines_and_random_bytes_are_malformed_and_late_answers_time_out(source, reason):
    channel = Channel(python(source), 0)
    try:
        lost = forfeit_of(channel, 1.0 if reason == "timeout" else 30)
        assert lost.reason == reason, lost.message
        assert "\n" not in lost.message
    finally:
        channel.close(0.0)


# -- a python: spec is checked by a child --------------------------------------------------
MARKING_PLAYER = textwrap.dedent(
    """
    import os, random
    with open(os.environ["IMPORT_MARKS"], "a") as out:
        out.write(f"{os.getpid()}\\n")
    import sys
    sys.patched_by_a_player = True  # a hostile module could patch the referee so

    class Player:
        def choose(self, view, legal_moves):
            return random.choice(legal_moves)
    """
)


def test_a_python_spec_is_never_imported_in_the_referee(tmp_path, monkeypatch):
    (tmp_path / "marking_player.py").write_text(MARKING_PLAYER)
    marks = tmp_path / "marks"
    monkeypatch.setenv("IMPORT_MARKS", str(marks))
    monkeypatch.chdir(tmp_path)
    spec = "python:marking_player:Player"
    before = set(sys.modules)
    make_bot(spec, 0)  # checked: by a child
    assert pids_in(marks) and os.getpid() not in pids_in(marks)
    record = play_one(GAMES[0], [spec, "random"], 1, 0)
    assert record.forfeit is None
    assert "marking_player" not in set(sys.modules) - before
    assert not any(name.endswith("marking_player") for name in sys.modules)
    assert not hasattr(sys, "patched_by_a_player")
    assert os.getpid() not in pids_in(marks) and len(pids_in(marks)) >= 2  # the check, the game


def test_what_a_python_module_writes_to_its_output_is_no_answer(tmp_path):
    """Written by print or to the descriptor itself, it goes to the standard
    error: the check and the game read the protocol's answers only."""
    module = tmp_path / "noisy_player.py"
    module.write_text(
        "import os, random\n"
        "os.write(1, b'noise at import\\n')\n"
        "print('more noise')\n"
        "class Player:\n"
        "    def choose(self, view, legal_moves):\n"
        "        os.write(1, b'thinking\\n')\n"
        "        return random.choice(legal_moves)\n"
    )
    record = play_one(GAMES[0], [f"python:{module}:Player", "random"], 1, 0)
    assert record.forfeit is None


def test_a_python_spec_whose_module_hangs_is_one_line_after_its_startup_time(tmp_path):
    module = tmp_path / "hanging_player.py"
    module.write_text("import time\ntime.sleep(600)\n")
    with hang_guard(), pytest.raises(SpecError) as caught:
        parse_external(f"python[startup=0.5]:{module}:Player")
    assert "could not be loaded to check it: no answer within 0.5 s" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_python_spec_whose_module_fails_to_load_says_why(tmp_path):
    module = tmp_path / "broken_player.py"
    module.write_text("raise RuntimeError('no such luck')\n")
    with pytest.raises(SpecError, match="no such luck"):
        parse_external(f"python:{module}:Player")


# -- the whole process tree is ended -------------------------------------------------------
#: a player that starts a daemon (a grandchild in a session of its own, its
#: parent gone), writes its pid, then plays randomly or hangs as argv[1] says
ESCAPING_PLAYER = textwrap.dedent(
    """
    import json, os, random, sys, time
    mode, pids = sys.argv[1], sys.argv[2]
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            with open(pids + ".tmp", "w") as out:
                out.write(f"{os.getpid()}\\n")
            os.rename(pids + ".tmp", pids)
            time.sleep(600)
        os._exit(0)
    while not os.path.exists(pids):
        time.sleep(0.01)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready", "protocol": 2}), flush=True)
        elif message["type"] == "move":
            if mode == "hang":
                time.sleep(600)
            print(json.dumps({"move": random.choice(message["legal_moves"])}), flush=True)
        else:
            break
    """
)


@pytest.mark.parametrize("mode", ["play", "hang"])
def test_a_daemon_a_player_started_is_ended_with_its_game(mode, tmp_path):
    script, pids = tmp_path / "escaping_player.py", tmp_path / "pids"
    script.write_text(ESCAPING_PLAYER)
    spec = f"cmd[time=0.5,startup=30]:{sys.executable} {script} {mode} {pids}"
    with hang_guard():
        record = play_one(GAMES[0], [spec, "random"], 1, 0)
    assert (record.forfeit or {}).get("reason") == ("timeout" if mode == "hang" else None)
    [daemon] = pids_in(pids)
    assert not running(daemon)


def test_a_daemon_is_ended_when_the_referee_dies(tmp_path):
    """The warden hears its referee's death (SIGKILLed here) and ends the tree."""
    script, pids = tmp_path / "escaping_player.py", tmp_path / "pids"
    script.write_text(ESCAPING_PLAYER)
    referee = textwrap.dedent(
        f"""
        import os, signal, sys
        from xenophon.play.external import Channel
        channel = Channel(({sys.executable!r}, {str(script)!r}, "hang", {str(pids)!r}), 0)
        while not os.path.exists({str(pids)!r}):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    subprocess.run([sys.executable, "-c", referee], timeout=HANG_SECONDS)
    [daemon] = pids_in(pids)
    with hang_guard():
        while running(daemon):  # its warden ends it as soon as it hears
            time.sleep(0.02)


def test_the_engine_ends_the_tree_of_a_warden_that_does_not_end_it(tmp_path):
    """A warden stopped (it can end nothing): the engine kills what is below it."""
    script, pids = tmp_path / "escaping_player.py", tmp_path / "pids"
    script.write_text(ESCAPING_PLAYER)
    channel = Channel((sys.executable, str(script), "hang", str(pids)), 0)
    try:
        with hang_guard():
            while not pids.exists():
                time.sleep(0.01)
        [daemon] = pids_in(pids)
        os.kill(channel.process.pid, signal.SIGSTOP)
        _kill_tree(channel.process.pid)
        with hang_guard():
            while running(daemon):
                time.sleep(0.01)
    finally:
        channel.close(0.0)


# -- standard error, a bounded ring --------------------------------------------------------
def test_a_player_flooding_its_standard_error_keeps_only_its_end():
    flood = 10_000_000
    channel = Channel(
        python(
            f"""
            import os, sys
            os.write(2, b"x" * {flood} + b"\\n")
            print("the last words", file=sys.stderr)
            sys.exit(5)
            """
        ),
        0,
    )
    try:
        lost = forfeit_of(channel, 30)
        assert lost.reason == "crash"
        assert lost.message.startswith("it exited with status 5; its last error line: the last")
        dropped = flood + 1 + len("the last words\n") - STDERR_KEPT
        assert f"({dropped} bytes of its standard error before its last 64 KiB" in lost.message
        assert len(channel.stderr.kept) == STDERR_KEPT
    finally:
        channel.close(0.0)


class Listed:
    """A process as psutil lists it, for kill_below."""

    def __init__(self, pid, status):
        self.pid, self._status, self.killed = pid, status, False

    def status(self):
        return "zombie" if self.killed else self._status

    def kill(self):
        self.killed = True

    def wait(self, timeout=None):
        return 0


def test_a_child_forked_by_a_process_that_exited_as_it_was_listed_is_killed():
    """The race the hostile_player fuzz target found: a daemon's parent was
    alive when listed and a zombie when looked at, its child (the daemon) not
    yet listed; one listing with no living process is not the end."""
    parent, daemon = Listed(11, "zombie"), Listed(12, "sleeping")
    listings = iter([[parent], [parent, daemon], [parent, daemon], [parent, daemon]])

    class Root:
        def children(self, recursive):
            return next(listings)

    kill_below(Root())
    assert daemon.killed


def test_without_waitid_the_engine_still_ends_a_player(monkeypatch):
    """Where the os has no waitid: the warden is waited for (and reaped) instead."""
    monkeypatch.delattr(os, "waitid")
    channel = Channel(python("import time\ntime.sleep(60)"), 0)
    forfeit_of(channel, 0.2)
    channel.close(0.0)
    assert channel.process.returncode is not None


def test_without_waitid_the_warden_exits_as_its_program_did():
    warden = (
        "import os, sys\ndel os.waitid\nfrom xenophon.play.warden import main\nmain(sys.argv[1:])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", warden, str(os.getpid()), sys.executable, "-c", "exit(7)"],
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 7


def test_a_program_that_cannot_start_is_a_crash_saying_why(tmp_path):
    channel = Channel((str(tmp_path / "no-such-program"),), 0)
    try:
        lost = forfeit_of(channel, 30)
        assert lost.reason == "crash"
        assert "status 127; its last error line: the program could not start" in lost.message
        assert "No such file or directory" in lost.message
    finally:
        channel.close(0.0)
