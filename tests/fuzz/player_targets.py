"""`hostile_player`: any bytes as the script of a hostile player program
(`hostile_player.py`: random bytes, blank floods, partial and huge lines,
late answers, forks and daemons, standard error floods, exits, signals,
hangs, valid and illegal moves mixed), run as a real child under the
referee's `ExternalPlayer` for a few decisions of an Anabasis game at
time=0.05.

Whatever the player does, the referee may only end the game with a
`Forfeit` of one of REASONS whose message is one printable line; no call
may take more than its deadlines and LATE_SECONDS (and NOISE_SECONDS of
a busy machine's scheduling); after the game no
process the player started runs; the referee's memory grows by less than
MEMORY_BYTES. Anything else, a hang or a crash is a finding.
"""

from __future__ import annotations

import random
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from xenophon.play import external
from xenophon.play.external import (
    REASONS,
    STDERR_SETTLE_SECONDS,
    WARDEN_SECONDS,
    ExternalPlayer,
    Forfeit,
    parse_external,
    play_step,
)

from . import hostile_player, sample

PLAYER = Path(__file__).resolve().parent / "hostile_player.py"
SCRIPT_BYTES = 32  # 16 operations
MOVE_SECONDS, START_SECONDS = 0.05, 2.0
EXIT_SECONDS = 0.05  # the game-over grace, cut from 2 s
DECISIONS = 6  # the player's decisions in a game at most
LATE_SECONDS = 1.0  # a call's time past its deadlines at most (the referee's bound)
NOISE_SECONDS = 0.5  # and what a machine shared with other work may add to it
MEMORY_BYTES = 100 << 20  # the referee's growth at most
GAME = "anabasis"

_baseline: list[int] = []  # the worker's peak memory before its first input


class PlayerFinding(AssertionError):
    """The referee broke a bound of a hostile player (docs/players.md)."""


def hostile_player_target(data: bytes) -> None:
    pids = sample.scratch("pids")
    pids.write_bytes(b"")
    script = data[:SCRIPT_BYTES].hex()
    spec = (
        f"cmd[time={MOVE_SECONDS},startup={START_SECONDS}]:"
        f"{sys.executable} -I -S {PLAYER} {script or '00'} {pids}"
    )
    if not _baseline:
        _baseline.append(_peak_memory())
    with sample.patched(external, "EXIT_SECONDS", EXIT_SECONDS):
        play_a_few_decisions(ExternalPlayer(parse_external(spec), 1))
    check_no_leftovers(pids)
    grown = _peak_memory() - _baseline[0]
    if grown > MEMORY_BYTES:
        raise PlayerFinding(f"the referee's peak memory grew by {grown >> 20} MiB")


def play_a_few_decisions(player: ExternalPlayer) -> None:
    """Seat 0 is the player, seat 1 plays at random; the game ends at its
    end, the player's forfeit, or DECISIONS of the player's."""
    state = sample.games(GAME)[0].new_initial_state()
    rng = random.Random(0)
    forfeit: Forfeit | None = None
    decisions = 0
    try:
        while not state.is_terminal() and decisions < DECISIONS:
            if state.is_chance():
                code = state.sample_chance(rng).code
            elif state.current_player == 0:
                budget = 2 * MOVE_SECONDS + (2 * START_SECONDS if player.channel is None else 0)
                code = timed(budget, lambda: player.choose(state)).code
                decisions += 1
            else:
                code = rng.choice(state.legal_actions())
            play_step(state, code, [player, None])
    except Forfeit as lost:
        check_forfeit(lost)
        forfeit = lost
    finally:
        grace = 0.0 if forfeit else EXIT_SECONDS
        if state.is_terminal() or forfeit:
            end: Callable[[], Any] = lambda: player.finish(state, forfeit)  # noqa: E731
        else:
            end = player.abandon
        timed(grace + EXIT_SECONDS + WARDEN_SECONDS + STDERR_SETTLE_SECONDS, end)


def timed(budget: float, call: Callable[[], Any]) -> Any:
    """call(), which must return or raise within `budget` and LATE_SECONDS
    (give or take NOISE_SECONDS)."""
    began = time.monotonic()
    try:
        return call()
    finally:
        spent = time.monotonic() - began
        if spent > budget + LATE_SECONDS + NOISE_SECONDS:
            raise PlayerFinding(f"a call took {spent:.2f} s, its deadlines {budget:g} s")


def check_forfeit(lost: Forfeit) -> None:
    if lost.seat != 0 or lost.reason not in REASONS:
        raise PlayerFinding(f"a forfeit of seat {lost.seat} for {lost.reason!r}")
    sample.check_message(lost)


def check_no_leftovers(pids: Path) -> None:
    """No process the player started still runs (a pid taken since by
    another program is not the player's: its command line tells)."""
    for pid in {int(line) for line in pids.read_text().split()}:
        try:
            process = psutil.Process(pid)
            left = process.status() != psutil.STATUS_ZOMBIE and str(PLAYER) in process.cmdline()
        except psutil.Error:
            continue
        if left:
            raise PlayerFinding(f"process {pid} of the player outlived its game")


def _peak_memory() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def hostile_player_seeds() -> list[bytes]:
    """A valid game; one that stays valid through forks, daemons, blank
    lines, a standard error flood and a program that does not leave; and
    each way to forfeit after a valid handshake and first move, some after
    forks (every one a few bytes: mutations make the rest)."""
    hp = hostile_player
    benign = [hp.FORK, 0, hp.FORK, 1, hp.FORK, 2, hp.BLANKS, 3, hp.STDERR, 255, hp.STAY, 0]
    forfeits = [
        [hp.RANDOM, 255],
        [hp.PARTIAL, 3],
        [hp.HUGE, 3],
        [hp.LATE, 255],
        [hp.FORK, 2, hp.EXIT, 3],
        [hp.FORK, 0, hp.SIGNAL, 1],
        [hp.FORK, 1, hp.HANG, 0],
        [hp.CLOSE, 3],
        [hp.ILLEGAL, 3],
        [hp.BLANKS, 255],
    ]
    start = [hp.VALID, 0, hp.VALID, 1]
    return [b"", bytes(start + benign + [hp.VALID, 2])] + [
        bytes(start + steps + [hp.VALID, 2]) for steps in forfeits
    ]


TARGETS = {"hostile_player": hostile_player_target}
SEEDS = {"hostile_player": hostile_player_seeds}
