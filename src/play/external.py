"""External players: any program (`cmd:PROGRAM ARGS`) or Python class
(`python:MODULE:CLASS`) as a bot, speaking the player protocol of
docs/players.md over its standard input and output, one JSON object a line.

Each game starts its own child process (a Python class runs in a child
Python, `xenophon.play.python_player`), so that a player that crashes, hangs
or answers nonsense costs only that game: `choose` raises `Forfeit` with the
reason (crash, timeout, illegal, malformed), the game's runner counts the
game lost for that seat (`forfeit_returns`), and `finish` always ends the
child and every process it started (each child runs under a warden,
`xenophon.play.warden`, that ends its whole tree; docs/players.md, "What a
player program may cost").

A decision sends the seat's view only (`State.view`, the state dict with
everything hidden from the seat taken out: equal for every state the seat
cannot tell apart) and the legal moves in the game's notation. In protocol 2
the notation names pieces by the names a game gives them
(xenophon.kernel.naming), which the player follows from the game's start
through its seat's views (`play_step`), and the view shows each piece's
name; a player that answers protocol 1 is spoken to in the engine's
notation, as before names.

A spec may give options in brackets before the colon:
``cmd[time=2,startup=20]:./my_bot --depth 3`` (seconds a move, and seconds
for the program to start and answer the handshake).
"""

from __future__ import annotations

import functools
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

import psutil

from xenophon.kernel.errors import IllegalMoveError, NotationError, XenophonError, shown
from xenophon.kernel.game import Move, State
from xenophon.kernel.naming import MoveNames, has_names
from xenophon.kernel.registry import SpecError, game_options_as_text, parse_spec
from xenophon.play.python_player import PROTOCOL  # the version's one owner
from xenophon.play.referee import player_environment, player_seed
from xenophon.play.warden import kill_below

#: the versions a ready answer may ask for: 2, the notation's names of pieces;
#: 1, the engine's notation (pieces named by where they stand)
PROTOCOLS = (1, 2)
#: the module a `python:` player's child runs
PYTHON_PLAYER = "xenophon.play.python_player"
#: the kinds of external spec
EXTERNAL_KINDS = ("cmd", "python")
#: the default seconds a move, and for the start and the handshake
MOVE_SECONDS = 10.0
START_SECONDS = 10.0
#: the range of both
MIN_SECONDS, MAX_SECONDS = 0.01, 3600.0
#: seconds a player has to leave after the game-over message before it is killed
EXIT_SECONDS = 2.0
#: the longest answer line read (a longer one is malformed)
MAX_ANSWER_BYTES = 1 << 20
#: the end of the player's standard error kept (the rest is counted, not kept)
STDERR_KEPT = 64 * 1024
#: seconds a program that closed its output is given to exit, then for the
#: rest of its standard error (a crash costs at most their sum, 1 s)
CRASH_SECONDS, STDERR_SETTLE_SECONDS = 0.75, 0.25
#: blank lines at the start of what a player sent (bytes.strip's whitespace)
BLANK_LINES = re.compile(rb"(?:[ \t\r\x0b\x0c]*\n)+")
#: bytes read from a pipe at once
READ_BYTES = 65536
#: seconds a warden has to end the player's processes once told to (it
#: takes milliseconds; past this the engine kills them itself)
WARDEN_SECONDS = 3.0
#: how often the end of a warden is looked for
EXIT_POLL_SECONDS = 0.01
#: the tensors a player may ask for in its ready answer (docs/players.md, docs/tensors.md)
TENSOR_KINDS = ("information_state", "observation")
#: why a game is lost: the program died, was silent too long, named a move
#: not legal now, or wrote something that is not an answer
REASONS = ("crash", "timeout", "illegal", "malformed")


class Forfeit(XenophonError):
    """An external player lost the game by its own fault: `seat`, `reason`
    (one of REASONS) and a sentence saying what happened."""

    def __init__(self, seat: int, reason: str, message: str):
        super().__init__(f"seat {seat} forfeits ({reason}): {message}")
        self.seat, self.reason, self.message = seat, reason, shown(message, 500)

    def record(self) -> dict[str, Any]:
        """What a game's record keeps of it."""
        return {"seat": self.seat, "reason": self.reason, "message": self.message}


def forfeit_returns(seat: int) -> list[float]:
    """The returns of a game `seat` forfeited: a loss for it, a win for the other."""
    returns = [1.0, 1.0]
    returns[seat] = -1.0
    return returns


@dataclass(frozen=True)
class ExternalSpec:
    """An external bot spec, read: the child's command line and its clocks."""

    spec: str
    kind: str
    argv: tuple[str, ...]
    move_seconds: float = MOVE_SECONDS
    start_seconds: float = START_SECONDS


def is_external(spec: str) -> bool:
    """Whether a bot spec names an external player (`cmd:` or `python:`)."""
    head = spec.partition(":")[0].strip()
    return head.partition("[")[0] in EXTERNAL_KINDS


def parse_external(spec: str) -> ExternalSpec:
    """An external spec checked (one SpecError line naming the spec if the
    program is not found or the class cannot be loaded)."""
    head, colon, rest = spec.partition(":")
    kind, options = _head_options(spec, head.strip())
    if not colon or not rest.strip():
        form = "cmd:PROGRAM ARGS" if kind == "cmd" else "python:MODULE:CLASS"
        raise SpecError(f"bot '{shown(spec)}': write it {form}")
    if kind == "cmd":
        argv = _program(spec, rest)
    else:
        argv = _python_class(spec, rest, options.get("start_seconds", START_SECONDS))
    return ExternalSpec(spec, kind, argv, **options)


def _head_options(spec: str, head: str) -> tuple[str, dict[str, float]]:
    """'cmd[time=2]' -> ('cmd', {'move_seconds': 2.0})."""
    kind, bracket, inside = head.partition("[")
    if bracket and not inside.endswith("]"):
        raise SpecError(f"bot '{shown(spec)}': options go in brackets, e.g. {kind}[time=2]:...")
    _, texts = parse_spec(f"{kind}:{inside[:-1]}" if bracket else kind, "bot")
    names = {"time": "move_seconds", "startup": "start_seconds"}
    options: dict[str, float] = {}
    for key, text in texts.items():
        if key not in names:
            raise SpecError(
                f"bot '{shown(spec)}': {kind} has no option '{shown(key)}' (its options: time, "
                "startup)"
            )
        options[names[key]] = _seconds(spec, key, text)
    return kind, options


def _seconds(spec: str, key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not MIN_SECONDS <= value <= MAX_SECONDS:
        raise SpecError(
            f"bot '{shown(spec)}': '{key}' must be seconds from {MIN_SECONDS:g} to "
            f"{MAX_SECONDS:g} (got '{shown(text)}')"
        )
    return value


def _program(spec: str, command: str) -> tuple[str, ...]:
    """The command line of a `cmd:` spec, its program found on the PATH or as a path."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise SpecError(f"bot '{shown(spec)}': cannot read the command line ({error})") from None
    if not argv:
        raise SpecError(f"bot '{shown(spec)}': no program given")
    found = shutil.which(argv[0])
    if found is None:
        what = "not an executable file" if os.path.exists(argv[0]) else "no such program"
        raise SpecError(f"bot '{shown(spec)}': {what} '{shown(argv[0])}'")
    return (os.path.abspath(found) if os.sep in argv[0] else argv[0], *argv[1:])


def _python_class(spec: str, target: str, start_seconds: float) -> tuple[str, ...]:
    """The child command line of a `python:MODULE:CLASS` spec, the class
    loaded by a child of its own to check it (SpecError naming what is
    wrong): the module is never imported here."""
    module, colon, name = target.strip().rpartition(":")
    if not colon or not module or not name:
        raise SpecError(f"bot '{shown(spec)}': write it python:MODULE:CLASS")
    if os.path.isfile(module):
        module = os.path.abspath(module)
    error = class_error(module, name, os.getcwd(), start_seconds)
    if error is not None:
        raise SpecError(f"bot '{shown(spec)}': {shown(error)}")
    return (sys.executable, "-m", PYTHON_PLAYER, module, name)


@functools.lru_cache(maxsize=64)
def class_error(module: str, name: str, folder: str, seconds: float) -> str | None:
    """What is wrong with the class `name` of `module` as a player (None: it
    loads), found by a child that loads it (`python_player --check`) within
    `seconds`, in the folder `folder` (the current one: a module is looked
    for there); asked once per class and folder."""
    channel = Channel((sys.executable, "-m", PYTHON_PLAYER, "--check", module, name), 0)
    try:
        answer = _answer(channel, channel.receive(seconds))
    except Forfeit as forfeit:
        return f"the class could not be loaded to check it: {forfeit.message}"
    finally:
        channel.close(0.0)
    if answer.get("ok") is True:
        return None
    return str(answer.get("error", "the check answered nothing"))


class Channel:
    """A child process and its pipes: a line written or read by a deadline,
    the end of its standard error kept to quote when it crashes.

    The program runs under a warden (`xenophon.play.warden`), which ends
    every process the program started when the program exits or the warden
    is told to stop; the warden's own process group is killed as a last
    resort. What a program sends counts against its deadline byte by byte:
    blank lines and a line that never ends do not put the deadline off."""

    def __init__(self, argv: tuple[str, ...], seat: int):
        self.seat = seat
        self.buffer = bytearray()  # what was read past the last line taken
        self._scanned = 0  # the bytes of the buffer known to hold no newline
        warden = (sys.executable, "-m", "xenophon.play.warden", str(os.getpid()))
        try:
            self.process = subprocess.Popen(
                (*warden, *argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=player_environment(),
                start_new_session=True,  # its own process group, killed whole at the end
            )
        except OSError as error:
            raise Forfeit(seat, "crash", f"the program could not start: {error}") from None
        self._stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        self._stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        self.stderr = StderrRing(self.process.stderr)  # type: ignore[arg-type]
        os.set_blocking(self._stdin.fileno(), False)
        self._finalizer = weakref.finalize(self, _end, self.process, 0.0)

    def send(self, message: dict[str, Any], seconds: float) -> None:
        """Writes one line, waiting at most `seconds` for the pipe to take it."""
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        deadline = time.monotonic() + seconds
        while data:
            if _left(deadline) <= 0:
                raise self.forfeit("timeout", f"it read nothing for {seconds:g} s")
            if not select.select([], [self._stdin], [], _left(deadline))[1]:
                continue
            try:
                data = data[os.write(self._stdin.fileno(), data) :]
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise self.crashed() from None

    def receive(self, seconds: float) -> bytes:
        """The next non-blank line, waited for at most `seconds`: every byte
        read, blank lines too, counts against the deadline."""
        deadline = time.monotonic() + seconds
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if _left(deadline) <= 0:
                raise self.forfeit("timeout", f"no answer within {seconds:g} s")
            if not select.select([self._stdout], [], [], _left(deadline))[0]:
                continue
            chunk = os.read(self._stdout.fileno(), READ_BYTES)
            if not chunk:
                raise self.crashed()
            self.buffer += chunk

    def _take_line(self) -> bytes | None:
        """The first non-blank line of the buffer, taken off it (None while
        there is none): a run of blank lines is dropped at once, and a line
        still coming is not searched again from its start."""
        while True:
            if self._scanned == 0:
                blanks = BLANK_LINES.match(self.buffer)
                if blanks:
                    del self.buffer[: blanks.end()]
            end = self.buffer.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self.buffer)
                if self._scanned > MAX_ANSWER_BYTES:
                    raise self.forfeit("malformed", f"a line longer than {MAX_ANSWER_BYTES} bytes")
                return None
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
            self._scanned = 0
            if line.strip():
                return line

    def forfeit(self, reason: str, message: str) -> Forfeit:
        return Forfeit(self.seat, reason, message)

    def crashed(self) -> Forfeit:
        """The forfeit of a program that closed its output or died: its exit
        status and the last line it wrote to stderr (and how much of its
        stderr was dropped, if any)."""
        try:
            status = self.process.wait(timeout=CRASH_SECONDS)
            how = f"it exited with status {status}" if status >= 0 else _signal_text(-status)
        except subprocess.TimeoutExpired:
            how = "it closed its output"
        self.stderr.settle(STDERR_SETTLE_SECONDS)
        last = self.stderr_tail().strip().splitlines()[-1:]
        message = how + (f"; its last error line: {shown(last[0], 300)}" if last else "")
        if self.stderr.dropped:
            message += (
                f" ({self.stderr.dropped} bytes of its standard error before its last "
                f"{STDERR_KEPT // 1024} KiB were dropped)"
            )
        return self.forfeit("crash", message)

    def stderr_tail(self) -> str:
        """What is kept of its standard error (its last STDERR_KEPT bytes)."""
        return self.stderr.text()

    def close(self, grace: float) -> None:
        """Closes its input, gives it `grace` seconds to leave, then ends
        its warden (which ends what the program started) and kills the
        warden's process group; always reaps it."""
        try:
            self._stdin.close()
        except OSError:
            pass
        self._finalizer.detach()
        _end(self.process, grace)
        self._stdout.close()
        self.stderr.settle(STDERR_SETTLE_SECONDS)


class StderrRing:
    """A program's standard error, read as it comes by a thread of its own
    so that a program writing without end neither blocks nor fills the
    memory: the last STDERR_KEPT bytes are kept, the rest counted as dropped."""

    def __init__(self, pipe: IO[bytes]):
        self.kept = bytearray()
        self.dropped = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(pipe,), daemon=True)
        self._thread.start()

    def _drain(self, pipe: IO[bytes]) -> None:
        with pipe:
            while chunk := os.read(pipe.fileno(), READ_BYTES):
                with self._lock:
                    self.kept += chunk
                    excess = len(self.kept) - STDERR_KEPT
                    if excess > 0:
                        del self.kept[:excess]
                        self.dropped += excess

    def settle(self, seconds: float) -> None:
        """Waits at most `seconds` for the pipe's end (all the program wrote read)."""
        self._thread.join(seconds)

    def text(self) -> str:
        with self._lock:
            return bytes(self.kept).decode(errors="replace")


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def _signal_text(number: int) -> str:
    try:
        return f"it was killed by {signal.Signals(number).name}"
    except ValueError:
        return f"it was killed by signal {number}"


def _end(process: subprocess.Popen, grace: float) -> None:
    """Ends a warden and what runs under it: `grace` seconds to leave of
    itself, then SIGTERM (the warden ends the program's whole tree) and
    WARDEN_SECONDS more, then its process group killed; always reaped. The
    group is killed before the warden is reaped, while its number cannot be
    another's."""
    if not _exits_within(process, grace):
        for sent in (signal.SIGTERM, signal.SIGCONT):  # SIGCONT: a stopped warden hears it
            try:
                os.kill(process.pid, sent)
            except ProcessLookupError:
                pass
        if not _exits_within(process, WARDEN_SECONDS):
            _kill_tree(process.pid)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _kill_tree(pid: int) -> None:
    """Kills a warden that did not end in time and every process below it:
    stopped first, it still keeps them below it (a subreaper), and they are
    killed before it is."""
    try:
        warden = psutil.Process(pid)
        warden.suspend()
        kill_below(warden)
        warden.kill()
    except psutil.Error:
        pass


def _exits_within(process: subprocess.Popen, seconds: float) -> bool:
    """Whether the process has exited within `seconds` (it is not reaped,
    except where there is no waitid)."""
    if not hasattr(os, "waitid"):
        try:
            process.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline = time.monotonic() + seconds
    while True:
        try:
            info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        except ChildProcessError:  # reaped already
            return True
        if info is not None:
            return True
        if _left(deadline) <= 0:
            return False
        time.sleep(min(EXIT_POLL_SECONDS, _left(deadline)))


class ExternalPlayer:
    """A bot whose decisions a child process makes (`choose(state) -> Move`);
    the child starts at its first decision and ends at `finish`."""

    settings: tuple[str, ...] = ()

    def __init__(self, spec: ExternalSpec, seed: int):
        # the seed its start message gives: keyed by the referee's secret, so
        # that it says nothing of the deal's chance (xenophon.play.referee)
        self.spec, self.seed = spec, player_seed(seed)
        self.name = spec.spec
        self.channel: Channel | None = None
        self.seat: int | None = None
        self.tensor: str | None = None  # the tensor its ready answer asked for
        self.protocol = PROTOCOL  # the version its ready answer asked for
        # the names of the pieces, followed from the game's start through its
        # seat's views (`follow`); None until it is shown a step
        self.names: MoveNames | None = None

    def __repr__(self) -> str:
        return self.name

    def follow(self, seat: int, before: State, after: State, code: int) -> None:
        """Follows one step of the game (`code`, played from `before` to
        `after`) as `seat`, the seat it plays, sees it: the names of the
        pieces. A runner shows it every step from the start (`play_step`)."""
        if self.channel is not None and self.protocol < 2:
            return  # spoken to in the engine's notation: no names to follow
        if self.names is None:
            self.names = MoveNames(before.game.name, seat)
        text = before.format_code(code) if before.observed_by(code, seat) else None
        self.names.step(before, after, before.current_player, text)

    def choose(self, state: State, names: MoveNames | None = None) -> Move:
        """The move the program answers for the player to move (Forfeit if
        it crashes, is late, or answers something that is no legal move);
        `names`, the pieces' names now when the caller follows them, else
        its own (`follow`)."""
        seat = state.current_player
        channel = self._channel(state, seat)
        named = self._names(state, seat, names)
        message = decision_message(state, seat, self.tensor, named)
        channel.send(message, self.spec.move_seconds)
        answer = _answer(channel, channel.receive(self.spec.move_seconds))
        if "move" not in answer or not isinstance(answer["move"], str):
            raise channel.forfeit("malformed", "the answer has no string 'move'")
        try:
            text = answer["move"] if named is None else named.read(state, answer["move"])
            return state.move(text)
        except (NotationError, IllegalMoveError) as error:
            text = shown(answer["move"], 80)
            raise channel.forfeit("illegal", f"it answered '{text}': {error}") from None

    def _names(self, state: State, seat: int, given: MoveNames | None) -> MoveNames | None:
        """The names its messages use: None in protocol 1 or in a game
        without names (the engine's notation), else the given ones or its own
        (fresh ones from a runner that did not show it the steps: the pieces
        named as they stand, not kept from one decision to the next)."""
        if self.protocol < 2 or not has_names(state.game.name):
            return None
        return given or self.names or MoveNames(state.game.name, seat)

    def _channel(self, state: State, seat: int) -> Channel:
        """The child of this game, started and greeted at the first decision."""
        if self.channel is None:
            self.seat = seat
            self.channel = Channel(self.spec.argv, seat)
            start = start_message(state, seat, self.seed, self.spec.move_seconds)
            self.channel.send(start, self.spec.start_seconds)
            ready = self.channel.receive(self.spec.start_seconds)
            self.protocol, self.tensor = _check_ready(self.channel, ready)
        elif seat != self.seat:
            raise XenophonError(f"{self.name} plays seat {self.seat}, not seat {seat}")
        return self.channel

    def finish(
        self, state: State, forfeit: Forfeit | None = None, names: MoveNames | None = None
    ) -> None:
        """Tells the program the game is over (unless it forfeited) and ends
        it; nothing is waited for past EXIT_SECONDS."""
        channel, self.channel = self.channel, None
        if channel is None:
            return
        if forfeit is None or forfeit.seat != channel.seat:
            named = self._names(state, channel.seat, names)
            try:
                channel.send(game_over_message(state, channel.seat, forfeit, named), EXIT_SECONDS)
            except Forfeit:
                pass  # gone or not reading: it is killed below
            channel.close(EXIT_SECONDS)
        else:
            channel.close(0.0)

    def abandon(self) -> None:
        """Ends the program of a game left unfinished (the player quit): its
        input is closed, with no game-over message; killed after EXIT_SECONDS."""
        channel, self.channel = self.channel, None
        if channel is not None:
            channel.close(EXIT_SECONDS)


class Opponent:
    """An external player as `xenophon play`'s opponent: the interface the
    session asks of a level's bot (reseed, analyse, choose_from) over an
    ExternalPlayer. `analyse` is the program's move (Forfeit if it crashes,
    is late or answers no legal move); nothing else of it is shown. The
    names of the pieces are the session's (`names_now`, which the session
    follows through undo and resume)."""

    def __init__(self, spec: str, seed: int):
        self.player = ExternalPlayer(parse_external(spec), seed)
        self.name = spec
        self.names_now: Callable[[], MoveNames] | None = None

    def __repr__(self) -> str:
        return self.name

    def reseed(self, seed: int) -> None:
        """Nothing: the program's seed is the one of its start message."""

    def analyse(self, state: State, **_progress: Any) -> Move:
        return self.player.choose(state, self._names())

    def _names(self) -> MoveNames | None:
        return self.names_now() if self.names_now is not None else None

    def choose_from(self, result: Move) -> Move:
        return result

    def close(self, state: State, forfeit: Forfeit | None = None) -> None:
        """Ends the program: told the game is over when it is (or killed at
        once when it forfeited), its input closed when the player left."""
        if forfeit is not None or state.is_terminal():
            self.player.finish(state, forfeit, self._names())
        else:
            self.player.abandon()


def _answer(channel: Channel, line: bytes) -> dict[str, Any]:
    try:
        answer = json.loads(line.decode())
    except (UnicodeDecodeError, ValueError):
        raise channel.forfeit(
            "malformed", f"not a JSON object: {shown(line.decode(errors='replace'), 80)}"
        ) from None
    if not isinstance(answer, dict):
        raise channel.forfeit("malformed", f"not a JSON object: {shown(line.decode(), 80)}")
    return answer


def _check_ready(channel: Channel, line: bytes) -> tuple[int, str | None]:
    """The ready answer checked: the protocol version it asks for, and the
    tensor, if any."""
    answer = _answer(channel, line)
    if answer.get("type") != "ready":
        raise channel.forfeit(
            "malformed",
            f'the handshake\'s answer must be {{"type": "ready", "protocol": {PROTOCOL}}}',
        )
    protocol = answer.get("protocol")
    if type(protocol) is not int or protocol not in PROTOCOLS:  # not True either
        accepted = " or ".join(str(version) for version in PROTOCOLS)
        raise channel.forfeit(
            "malformed",
            f"the handshake's 'protocol' must be {accepted} (it was {json.dumps(protocol)[:40]})",
        )
    tensor = answer.get("tensor")
    if tensor is not None and tensor not in TENSOR_KINDS:
        raise channel.forfeit(
            "malformed", f"the handshake's 'tensor' must be one of {', '.join(TENSOR_KINDS)}"
        )
    return protocol, tensor


def start_message(state: State, seat: int, seed: int, move_seconds: float) -> dict[str, Any]:
    """The first message of a game: the game, the options, the seat, the clock."""
    return {
        "type": "start",
        "protocol": PROTOCOL,
        "game": state.game.name,
        "options": game_options_as_text(state.game),
        "seat": seat,
        "seed": seed,
        "time": move_seconds,
    }


def decision_message(
    state: State, seat: int, tensor: str | None = None, names: MoveNames | None = None
) -> dict[str, Any]:
    """A decision: the seat's view and its legal moves (the last field, so
    that a program can cut them off the line's end); for a player that asked
    for a tensor, also the seat's tensor of that kind (the C core's,
    docs/tensors.md) and the legal moves' action codes, in the same order.
    Given the pieces' `names` (protocol 2), the moves name pieces by them and
    the view shows each piece's; else both are the engine's (protocol 1)."""
    message: dict[str, Any] = {"type": "move", "seat": seat, "view": view_for(state, seat, names)}
    moves = state.legal_moves()
    if tensor is not None:
        message["tensor"] = getattr(state.backend, f"{tensor}_tensor")(seat).tolist()
        message["legal_codes"] = [move.code for move in moves]
    texts = [move.text for move in moves]
    message["legal_moves"] = texts if names is None else names.said_all(state, texts)
    return message


def game_over_message(
    state: State, seat: int, forfeit: Forfeit | None, names: MoveNames | None = None
) -> dict[str, Any]:
    """The last message: the seat's final view, the returns, and the opponent's forfeit if any."""
    returns = state.returns() if forfeit is None else forfeit_returns(forfeit.seat)
    return {
        "type": "game_over",
        "seat": seat,
        "returns": returns,
        "forfeit": forfeit.record() if forfeit else None,
        "view": view_for(state, seat, names),
    }


def view_for(state: State, seat: int, names: MoveNames | None) -> dict[str, Any]:
    """`seat`'s view of `state`, with the pieces' names when given."""
    return state.view(seat) if names is None else names.view(state, seat)


def play_step(state: State, code: int, players: Sequence[Any]) -> None:
    """Plays one step of a game (`code`, a decision's or chance's), and
    shows it to each player (`players[seat]`) that follows the game (an
    external player, for the names of the pieces) in a game with names."""
    followers = [(seat, player) for seat, player in enumerate(players) if hasattr(player, "follow")]
    if not followers or not has_names(state.game.name):
        state.apply_code(code)
        return
    before = state.copy()
    state.apply_code(code)
    for seat, player in followers:
        player.follow(seat, before, state, code)


def finish_players(players: list[Any], state: State, forfeit: Forfeit | None) -> None:
    """Ends a game for each player that has a child to end."""
    for player in players:
        finish = getattr(player, "finish", None)
        if finish is not None:
            finish(state, forfeit)
