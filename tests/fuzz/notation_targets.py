"""`anabasis_notation`, `hero_notation`: any text as a move in real positions.

The first byte picks one of the positions of `sample.positions`, the rest is
the text, decoded as UTF-8 with invalid bytes kept as lone surrogates (what a
terminal or a file with a stray byte can hand to the parser). `State.move`
must give a legal `Move` whose text parses back to the same code, or refuse
with NotationError or IllegalMoveError, whose message is one printable line
(`sample.check_message`); anything else is a finding.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from xenophon.kernel.errors import IllegalMoveError, NotationError
from xenophon.kernel.game import Move, State

from . import sample

GAMES = ("anabasis", "hero")
SEED_MOVES_PER_POSITION = 6


class NotationFinding(AssertionError):
    """The notation broke one of its promises (the message says which)."""


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def check_round_trip(state: State) -> None:
    """Every legal move's (or chance outcome's) text names that move again."""
    for move in state.legal_moves():
        again = state.move(move.text)
        if again.code != move.code or again.text != move.text:
            raise NotationFinding(
                f"'{move.text}' (code {move.code}) parses back as "
                f"'{again.text}' (code {again.code}) in {state!r}"
            )


_CHECKED: set[str] = set()


def checked_positions(game: str) -> tuple[State, ...]:
    """The positions of `game`, checked for the round trip on first use."""
    states = sample.positions(game)
    if game not in _CHECKED:
        for state in states:
            check_round_trip(state)
        _CHECKED.add(game)
    return states


def check_move(state: State, text: str) -> None:
    try:
        move = state.move(text)
    except (NotationError, IllegalMoveError) as error:
        sample.check_message(error)
        return
    if not isinstance(move, Move) or move.code not in state.legal_actions():
        raise NotationFinding(f"{text!r} gave {move!r}, not a legal Move")
    if state.move(move.text).code != move.code:
        raise NotationFinding(f"{text!r} gave {move!r}, whose text names another move")


def notation_target(game: str) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        states = checked_positions(game)
        if data:
            check_move(states[data[0] % len(states)], decode(data[1:]))

    target.__name__ = f"{game}_notation"
    return target


def notation_seeds(game: str) -> Callable[[], list[bytes]]:
    """A few legal moves of every position (and 'end', which is often illegal)."""

    def seeds() -> list[bytes]:
        rng = random.Random(0)
        found = []
        for index, state in enumerate(sample.positions(game)):
            texts = [m.text for m in state.legal_moves()] if not state.is_terminal() else []
            for text in rng.sample(texts, min(len(texts), SEED_MOVES_PER_POSITION)) + ["end"]:
                found.append(bytes([index]) + text.encode())
        return found

    return seeds


TARGETS = {f"{game}_notation": notation_target(game) for game in GAMES}
SEEDS = {f"{game}_notation": notation_seeds(game) for game in GAMES}
