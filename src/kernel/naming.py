"""Moves in the context of a game's history: the names a game gives its
pieces beside the engine's notation, followed step by step.

The engine's notation names a piece by where it stands (a square, a slot).
A game whose places shift under its pieces (rows packed to one side, so a
slot is a place and not a piece) gives them names that stay with them
instead, and those names are THE notation a player reads and writes: in
records, the engine protocol, analysis output, the terminal and the web
page. They follow from the game's public steps alone, so the core keeps no
identity for a piece. A game declares them with its plugin's `piece_names`
(a fresh `PieceNames` for the start of a game); a game without (one whose
squares do not shift) has the identity, `NO_NAMES`.

`MoveNames` follows one game: `said` writes a move of the engine's in the
names (as its mover writes it), `read` turns a move in the names (or in the
engine's notation: a slot is still read) into the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.plugin import find_plugin

if TYPE_CHECKING:
    from xenophon.kernel.game import State


class PieceNames(Protocol):
    """A game's names for its pieces after some steps (immutable)."""

    def after(self, before: dict, after: dict, actor: int | None, text: str | None) -> PieceNames:
        """The names after one step from view `before` to view `after`;
        `text` the step's notation (None when hidden), `actor` its player
        (None for chance)."""
        ...

    def covering(self, view: dict) -> PieceNames:
        """The names with one for every piece of `view` (a game followed from
        a position other than its start)."""
        ...

    def words(self, text: str, actor: int, seat: int) -> str:
        """`actor`'s move `text` (engine notation) with its pieces named as
        `seat` reads them."""
        ...

    def notation(self, text: str, seat: int) -> str:
        """`seat`'s move written with names, in the engine's notation
        (NotationError naming a piece that is not there)."""
        ...

    def named_view(self, view: dict, seat: int) -> dict:
        """`seat`'s view of the state (`State.view`) with each piece on the
        board carrying its name as `seat` writes it in a move."""
        ...


class _NoNames:
    """The names of a game whose notation needs no history: its own."""

    def after(self, before: dict, after: dict, actor: int | None, text: str | None) -> _NoNames:
        return self

    def covering(self, view: dict) -> _NoNames:
        return self

    def words(self, text: str, actor: int, seat: int) -> str:
        return text

    def notation(self, text: str, seat: int) -> str:
        return text

    def named_view(self, view: dict, seat: int) -> dict:
        return view


NO_NAMES: PieceNames = _NoNames()


def start_names(game_name: str) -> PieceNames:
    """The names at the start of a game of `game_name` (its plugin's)."""
    plugin = find_plugin(game_name)
    if plugin is None or plugin.piece_names is None:
        return NO_NAMES
    return plugin.piece_names()


def has_names(game_name: str) -> bool:
    """Whether `game_name`'s notation names its pieces by names of its own."""
    return start_names(game_name) is not NO_NAMES


def _actor(player: int) -> int | None:
    return player if player in (0, 1) else None  # chance: no mover


class MoveNames:
    """The names of one game's pieces, followed step by step from its start
    (or from the first position it is shown, whose pieces are named then).

    Every view it reads is `seat`'s: the names come from what that seat
    sees (the pieces on the board are public in every game here), so a seat
    told the names of its own view gets the names of the whole game."""

    def __init__(self, game_name: str, seat: int = 0):
        self.seat = seat
        self.names = start_names(game_name)

    def copy(self) -> MoveNames:
        """These names, followed on apart from this one's."""
        twin = MoveNames.__new__(MoveNames)
        twin.seat, twin.names = self.seat, self.names
        return twin

    def _at(self, state: State) -> PieceNames:
        return self.names.covering(state.view(self.seat))

    def step(self, before: State, after: State, player: int, text: str | None) -> None:
        """Follows one step from `before` to `after` (`text` None when hidden)."""
        self.follow(before.view(self.seat), after.view(self.seat), player, text)

    def follow(self, before: dict, after: dict, player: int, text: str | None) -> None:
        """Follows one step between two of the seat's views."""
        self.names = self.names.covering(before).after(before, after, _actor(player), text)

    def said(self, state: State, text: str, player: int | None = None) -> str:
        """A move of `player`'s (the player to move by default) at `state`,
        in the names as its mover writes it."""
        return self.said_all(state, [text], player)[0]

    def said_all(self, state: State, texts: Iterable[str], player: int | None = None) -> list[str]:
        """`said` of many moves at one position (its names worked out once)."""
        mover = state.current_player if player is None else player
        if _actor(mover) is None:
            return list(texts)
        names = self._at(state)
        return [names.words(text, mover, mover) for text in texts]

    def seen(self, state: State, text: str, player: int, seat: int) -> str:
        """A move of `player`'s at `state` as `seat` reads it."""
        if _actor(player) is None:
            return text
        return self._at(state).words(text, player, seat)

    def read(self, state: State, text: str, player: int | None = None) -> str:
        """A move of `player`'s at `state`, in the names or the engine's
        notation, as the engine writes it (NotationError: a name that is
        not on the board)."""
        mover = state.current_player if player is None else player
        if _actor(mover) is None:
            return text
        return self._at(state).notation(text, mover)

    def view(self, state: State, seat: int) -> dict:
        """`seat`'s view of `state` (`State.view`), each piece carrying its
        name as `seat` writes it (a game without names: the view as it is)."""
        return self._at(state).named_view(state.view(seat), seat)

    def board(self, state: State, seat: int) -> str:
        """The board as `seat` sees it, the pieces by their names."""
        return state.render(seat, names=self.names)

    def line(self, state: State, texts: Iterable[str], seat: int | None = None) -> list[str]:
        """A line of play from `state` (a search's principal variation, in the
        engine's notation) in the names, each move named as its units stand
        before it. The line is followed on a copy of `state`, or, given the
        `seat` whose search it is, on a world drawn from that seat's
        information (so that nothing hidden from it decides what is shown);
        it is cut before a move that cannot be played there (the line came
        from another of the searcher's worlds)."""
        world = state.copy() if seat is None else state.resample(seat, random.Random(0))
        names = self.copy()
        said: list[str] = []
        for text in texts:
            if world.is_terminal():
                break
            before = world.copy()
            try:
                world.apply(text)
            except XenophonError:
                break
            said.append(names.said(before, text))
            names.step(before, world, before.current_player, text)
        return said


def names_through(
    game_name: str, states: list[State], steps: Iterable[tuple[int, str | None]], seat: int = 0
) -> MoveNames:
    """The names after a game's steps: `states[i]` the state before step `i`
    and `states[-1]` after the last; `steps[i]` its (player, text)."""
    names = MoveNames(game_name, seat)
    for (player, text), before, after in zip(steps, states, states[1:]):
        names.step(before, after, player, text)
    return names


__all__ = ["NO_NAMES", "MoveNames", "PieceNames", "has_names", "names_through", "start_names"]
