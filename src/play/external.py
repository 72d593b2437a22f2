"""External players: any program (`cmd:PROGRAM ARGS`) or Python class
(`python:MODULE:CLASS`) as a bot, speaking the player protocol of
docs/players.md over its standard input and output, one JSON object a line.

Each game starts its own child process (a Python class runs in a child
Python, `xenophon.play.python_player`), so that a player that crashes, hangs
or answers nonsense costs only that game: `choose` raises `Forfeit` with the
reason (crash, timeout, illegal, malformed), the game's runner counts the
game lost for that seat (`forfeit_returns`), and `finish` always ends the
child (its whole process group killed if it does not leave when told).

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

import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from xenophon.kernel.errors import IllegalMoveError, NotationError, XenophonError, shown
from xenophon.kernel.game import Move, State
from xenophon.kernel.naming import MoveNames, has_names
from xenophon.kernel.registry import SpecError, game_options_as_text, parse_spec
from xenophon.play.python_player import PROTOCOL, load_class  # the version's one owner
from xenophon.play.referee import player_environment, player_seed

#: the versions a ready answer may ask for: 2, the notation's names of pieces;
#: 1, the engine's notation (pieces named by where they stand)
PROTOCOLS = (1, 2)
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
#: the end of the player's standard error a crash reason quotes
STDERR_TAIL = 4096
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
    argv = _program(spec, rest) if kind == "cmd" else _python_class(spec, rest)
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


def _python_class(spec: str, target: str) -> tuple[str, ...]:
    """The child command line of a `python:MODULE:CLASS` spec, the class
    loaded here once to check it (SpecError naming what is wrong)."""
    module, colon, name = target.strip().rpartition(":")
    if not colon or not module or not name:
        raise SpecError(f"bot '{shown(spec)}': write it python:MODULE:CLASS")
    try:
        load_class(module, name)
    except Exception as error:  # the user's module may raise anything as it loads
        raise SpecError(f"bot '{shown(spec)}': {shown(error)}") from None
    if os.path.isfile(module):
        module = os.path.abspath(module)
    return (sys.executable, "-m", "xenophon.play.python_player", module, name)


class Channel:
    """A child process and its pipes: a line written or read by a deadline,
    stderr kept in a file to quote when it crashes."""

    def __init__(self, argv: tuple[str, ...], seat: int):
        self.seat = seat
        self.stderr = tempfile.TemporaryFile()
        self.buffer = b""
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env=player_environment(),
                start_new_session=True,  # its own process group, killed whole
            )
        except OSError as error:
            self.stderr.close()
            raise Forfeit(seat, "crash", f"the program could not start: {error}") from None
        self._stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        self._stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        os.set_blocking(self._stdin.fileno(), False)
        self._finalizer = weakref.finalize(self, _kill, self.process)

    def send(self, message: dict[str, Any], seconds: float) -> None:
        """Writes one line, waiting at most `seconds` for the pipe to take it."""
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        deadline = time.monotonic() + seconds
        while data:
            if not select.select([], [self._stdin], [], _left(deadline))[1]:
                if _left(deadline) <= 0:
                    raise self.forfeit("timeout", f"it read nothing for {seconds:g} s")
                continue
            try:
                data = data[os.write(self._stdin.fileno(), data) :]
            except (BrokenPipeError, ConnectionResetError):
                raise self.crashed() from None

    def receive(self, seconds: float) -> bytes:
        """The next non-blank line, waited for at most `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if not select.select([self._stdout], [], [], _left(deadline))[0]:
                if _left(deadline) <= 0:
                    raise self.forfeit("timeout", f"no answer within {seconds:g} s")
                continue
            chunk = os.read(self._stdout.fileno(), 65536)
            if not chunk:
                raise self.crashed()
            self.buffer += chunk

    def _take_line(self) -> bytes | None:
        while b"\n" in self.buffer:
            line, _, self.buffer = self.buffer.partition(b"\n")
            if line.strip():
                return line
        if len(self.buffer) > MAX_ANSWER_BYTES:
            raise self.forfeit("malformed", f"a line longer than {MAX_ANSWER_BYTES} bytes")
        return None

    def forfeit(self, reason: str, message: str) -> Forfeit:
        return Forfeit(self.seat, reason, message)

    def crashed(self) -> Forfeit:
        """The forfeit of a program that closed its output or died: its exit
        status and the last line it wrote to stderr."""
        try:
            status = self.process.wait(timeout=EXIT_SECONDS)
            how = f"it exited with status {status}" if status >= 0 else _signal_text(-status)
        except subprocess.TimeoutExpired:
            how = "it closed its output"
        last = self.stderr_tail().strip().splitlines()[-1:]
        return self.forfeit("crash", how + (f"; its last error line: {last[0]}" if last else ""))

    def stderr_tail(self) -> str:
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - STDERR_TAIL))
        return self.stderr.read().decode(errors="replace")

    def close(self, grace: float) -> None:
        """Closes its input, gives it `grace` seconds to leave, then kills its
        process group; always reaps it."""
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self._finalizer()
        self._stdout.close()
        self.stderr.close()


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def _signal_text(number: int) -> str:
    try:
        return f"it was killed by {signal.Signals(number).name}"
    except ValueError:
        return f"it was killed by signal {number}"


def _kill(process: subprocess.Popen) -> None:
    """Kills a child's whole process group (what it started too) and reaps it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


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
