"""`anabasis_from_bytes`, `hero_from_bytes`, `anabasis_from_dict`,
`hero_from_dict`: any input as a position for the C cores' state readers,
`Game.state_from_bytes` (CoreState.from_bytes) and `Game.state_from_dict`
(CoreState.from_dict).

Inputs. Byte 0 picks the game among `sample.games(name)` (low bits, modulo
their number); the rest is the position:

- from_bytes: the state's bytes, any length. If bit 7 of byte 0 is set, the
  stored hash (the first 8 bytes) is first replaced by the hash of the other
  bytes (`CoreState.rehashed`), so that a mutated state gets past the hash
  test to the structural checks behind it.
- from_dict: JSON text of the dict (a real position's `to_dict()` in the
  seeds). Text that is not UTF-8 or not JSON is not an input: the target
  returns.

A reader must refuse with XenophonError or return a state the core can play
on: every invariant holds (`check()`), the bytes (and for the dict targets
the dict) read back to the same state, every query answers, a legal action
applied and undone leaves every byte as it was and the state after it passes
the check too, a chance node samples, resampling gives valid states, and the
C random walk from the state runs. Anything else raises: a finding.
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Callable

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game, State

from . import sample

REHASH = 0x80
#: C random-walk steps from each accepted state (restarting there when a game ends)
WALK = 40


def _game(name: str, data: bytes) -> Game:
    games = sample.games(name)
    return games[(data[0] & ~REHASH) % len(games)]


@functools.cache
def _core_state(game: Game) -> type:
    """The game's CoreState class (of the C engine)."""
    return type(game.new_initial_state().backend)


def exercise(game: Game, state: State, choice: int) -> None:
    """Plays on a state a reader returned; raises AssertionError (or the
    error of the call) where the core misbehaves. `choice` picks the action,
    seeds and player."""
    backend = state.backend
    data = state.to_bytes()
    assert backend.check() is None, backend.check()
    assert game.state_from_bytes(data).to_bytes() == data
    state.to_dict()
    backend.returns()
    for player in (0, 1):
        backend.information_set_key(player)
        backend.evaluate(player)
        resampled = backend.resample(player, choice)
        assert resampled.check() is None, resampled.check()
    legal = state.legal_actions()
    assert legal or state.is_terminal(), "a game that goes on without a move"
    if state.is_chance():
        assert backend.sample_chance(choice) in legal
        assert abs(sum(p for _, p in backend.chance_outcomes()) - 1) < 1e-9
    if legal:
        state.apply_code(legal[choice % len(legal)])
        assert backend.check() is None, f"after {legal[choice % len(legal)]}: {backend.check()}"
        state.to_dict()
        state.legal_actions()
        state.undo()
        assert state.to_bytes() == data, "undo did not restore every byte"
    backend.random_actions(WALK, choice)


def read_bytes(name: str, data: bytes) -> tuple[Game, State] | None:
    """(game, state) that a from_bytes input reads to, None if refused."""
    if not data:
        return None
    game, raw = _game(name, data), data[1:]
    if data[0] & REHASH:
        try:
            raw = _core_state(game).rehashed(game.tables, raw)
        except ValueError:  # not the size of a state: from_bytes refuses it anyway
            pass
    try:
        state = game.state_from_bytes(raw)
    except XenophonError:
        return None
    assert state.to_bytes() == raw, "from_bytes returned another state"
    return game, state


def read_dict(name: str, data: bytes) -> tuple[Game, State] | None:
    """(game, state) that a from_dict input reads to, None if refused or not JSON."""
    if not data:
        return None
    game = _game(name, data)
    try:
        position = json.loads(data[1:].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # not JSON: not an input
        return None
    try:
        state = game.state_from_dict(position)
    except XenophonError:
        return None
    again = game.state_from_dict(state.to_dict())
    assert again.to_bytes() == state.to_bytes(), "to_dict does not read back to the same state"
    return game, state


READERS = {"from_bytes": read_bytes, "from_dict": read_dict}


def _target(name: str, reader: str) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        read = READERS[reader](name, data)
        if read is not None:
            exercise(*read, zlib.crc32(data))

    target.__name__ = f"{name}_{reader}"
    return target


def read(target: str, data: bytes) -> tuple[Game, State] | None:
    """What target `target` reads `data` to (None: refused)."""
    name, _, reader = target.partition("_")
    return READERS[reader](name, data)


def _game_byte(game: Game, name: str) -> int:
    return next(i for i, g in enumerate(sample.games(name)) if g is game)


@functools.cache
def _byte_seeds(name: str) -> tuple[bytes, ...]:
    """Each position's bytes, as is and with the rehash bit."""
    seeds = []
    for state in sample.positions(name):
        first = _game_byte(state.game, name)
        seeds += [bytes([first]) + state.to_bytes(), bytes([first | REHASH]) + state.to_bytes()]
    return tuple(seeds)


@functools.cache
def _dict_seeds(name: str) -> tuple[bytes, ...]:
    """The positions' dicts that from_dict reads (Anabasis: resting positions only)."""
    seeds = []
    for state in sample.positions(name):
        try:
            state.game.state_from_dict(state.to_dict())
        except XenophonError:
            continue
        seeds.append(bytes([_game_byte(state.game, name)]) + json.dumps(state.to_dict()).encode())
    return tuple(seeds)


TARGETS = {
    f"{name}_{reader}": _target(name, reader) for name in ("anabasis", "hero") for reader in READERS
}
SEEDS = {
    "anabasis_from_bytes": lambda: list(_byte_seeds("anabasis")),
    "hero_from_bytes": lambda: list(_byte_seeds("hero")),
    "anabasis_from_dict": lambda: list(_dict_seeds("anabasis")),
    "hero_from_dict": lambda: list(_dict_seeds("hero")),
}
