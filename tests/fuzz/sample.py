"""Real games to take positions, records and queries from: seeded random
play on the C core, so that every fuzz run starts from the same material."""

from __future__ import annotations

import atexit
import contextlib
import functools
import random
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xenophon.kernel.errors import ELLIPSIS, MAX_LINE
from xenophon.kernel.game import Game, State
from xenophon.kernel.registry import make_game

#: the games the seeds come from: (game name, options, seed)
GAMES = {
    "anabasis": (("anabasis", {}, 1), ("anabasis", {}, 2), ("anabasis", {"mode": "expert"}, 3)),
    "hero": (
        ("hero", {}, 1),
        ("hero", {}, 2),
        ("hero", {"decks": ("wild_grove", "crimson_conqueror")}, 3),
    ),
}
MAX_ACTIONS = 3000


def step(state: State, rng: random.Random) -> int:
    """Plays one random action, or a chance outcome with its true probability;
    returns its code."""
    code = state.sample_chance(rng).code if state.is_chance() else rng.choice(state.legal_actions())
    state.apply_code(code)
    return code


def playout(state: State, rng: random.Random, actions: int) -> State:
    """Plays at most `actions` random actions from `state` (in place)."""
    for _ in range(actions):
        if state.is_terminal():
            break
        step(state, rng)
    return state


def walk(game: Game, seed: int) -> Iterator[tuple[State, int | None]]:
    """(state, the code played there) for every state of one seeded random
    game, from the start to the end (where the code is None)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(MAX_ACTIONS):
        if state.is_terminal():
            break
        before = state.copy()
        yield before, step(state, rng)
    yield state, None


def spaced(items: list, count: int) -> list:
    """`count` items spread evenly over the list, first and last included."""
    if len(items) <= count:
        return items
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)]


@functools.cache
def games(name: str) -> tuple[Game, ...]:
    """The seeded games of `name` (anabasis or hero)."""
    return tuple(make_game(game, seed=seed, **options) for game, options, seed in GAMES[name])


@functools.cache
def positions(name: str, per_game: int = 24) -> tuple[State, ...]:
    """Positions spread over the seeded games of `name` (chance nodes, decisions
    and the final position), the same every run."""
    found: list[State] = []
    for game in games(name):
        found += spaced([state for state, _ in walk(game, game.seed)], per_game)
    return tuple(found)


@functools.cache
def game_lines(name: str, index: int = 0) -> tuple[tuple[int, str], ...]:
    """(player, move text) for every action of the `index`-th seeded game of `name`."""
    game = games(name)[index]
    return tuple(
        (state.current_player, state.format_code(code))
        for state, code in walk(game, game.seed)
        if code is not None
    )


@functools.cache
def _scratch_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="xenophon-fuzz-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def scratch(name: str) -> Path:
    """A path in this process's own temporary folder (removed at exit), for
    inputs that have to be files."""
    return _scratch_folder() / name


@contextlib.contextmanager
def patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` set to `value` for the time of a with block (budgets a
    fuzz target cuts so that no input can keep it busy for long)."""
    saved = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, saved)


class MessageFinding(AssertionError):
    """A refusal whose message is not one printable line of bounded length."""


#: what an error line must never hold: C0 and C1 controls, DEL, line separators
_RAW = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def check_message(error: BaseException) -> None:
    """An error's message is one line a terminal can show as it is: control
    characters escaped, quoted text cut (xenophon.kernel.errors.shown)."""
    message = str(error)
    if _RAW.search(message) or len(message) > MAX_LINE + len(ELLIPSIS):  # one_line's cut
        raise MessageFinding(f"{type(error).__name__} message {message[:500]!r}")
