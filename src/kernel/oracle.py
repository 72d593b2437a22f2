"""What both oracles share, written once over the backend protocol."""

from __future__ import annotations

import importlib
from typing import Any

from xenophon.kernel.codes import CHANCE, TERMINAL
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import engine_factory
from xenophon.kernel.plugin import find_plugin

# Multisets of both oracles: dict card id -> positive count


def ms_add(ms: dict[int, int], card: int, n: int = 1) -> None:
    ms[card] = ms.get(card, 0) + n


def ms_take(ms: dict[int, int], card: int) -> None:
    """Removes one copy of card (which must be there)."""
    if ms[card] == 1:
        del ms[card]
    else:
        ms[card] -= 1


def ms_size(ms: dict[int, int]) -> int:
    return sum(ms.values())


class OracleStateBase:
    """The backend protocol (docs/architecture.md) of an oracle state, over
    what each game's oracle defines: `current_player`, `_chance_weights`
    (ascending (code, integer weight) at a chance node), `_legal_decisions`,
    `_play(code)` (a legal code, and everything that follows it), `_copy` (a
    copy without history) and `_describe(code)` (the code in words)."""

    #: the returns of a finished game (None while it goes on)
    result: list[int] | None

    def __init__(self, game: Any):
        self.game = game
        self._history: list[Any] = []
        self._legal: list[int] | None = None

    # -- what each game's oracle defines --------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def _chance_weights(self) -> list[tuple[int, int]]:
        raise NotImplementedError

    def _legal_decisions(self) -> list[int]:
        raise NotImplementedError

    def _play(self, code: int) -> None:
        raise NotImplementedError

    def _copy(self) -> OracleStateBase:
        raise NotImplementedError

    def _describe(self, code: int) -> str:
        raise NotImplementedError

    # -- the backend protocol -------------------------------------------------
    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            player = self.current_player()
            if player == TERMINAL:
                self._legal = []
            elif player == CHANCE:
                self._legal = [code for code, _ in self._chance_weights()]
            else:
                self._legal = self._legal_decisions()
        return list(self._legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance():
            return []
        weights = self._chance_weights()
        total = sum(w for _, w in weights)
        return [(code, float(w) / float(total)) for code, w in weights]

    def apply(self, code: int) -> None:
        if code not in self.legal_actions():
            raise ValueError(f"illegal action {code} ({self._describe(code)})")
        self._history.append(self._copy())
        self._play(code)
        self._legal = None

    def undo(self) -> None:
        if not self._history:
            raise IndexError("nothing to undo")
        previous = self._history.pop()
        history = self._history
        self.__dict__.update(previous.__dict__)
        self._history = history

    def returns(self) -> list[float]:
        if self.result is None:
            return [0.0, 0.0]
        return [float(self.result[0]), float(self.result[1])]

    def clone(self) -> Any:
        return self._copy()


def perft(state: Any, depth: int) -> int:
    """Leaves of the game tree `depth` plies deep, every chance outcome a branch.

    A line on which the game ends before `depth` counts no leaf (the chess
    convention; docs/anabasis-engine.md, docs/hero-engine.md E-35), as in the
    C cores.
    """
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    total = 0
    for code in state.legal_actions():
        state.apply(code)
        total += perft(state, depth - 1)
        state.undo()
    return total


def reference_features(state: Any, player: int) -> dict[str, float]:
    """{feature name: value} of a public `State` (either game) for `player`:
    the learned evaluation's features computed on the oracle's copy of the
    position by the `feature_side` of the game's reference-features module
    (GamePlugin.reference_features), each the evaluating player's value
    minus the other seat's.

    >>> from xenophon.kernel.registry import GAMES, make_game
    >>> game = make_game(GAMES[0], seed=1)
    >>> state = game.new_initial_state()
    >>> state.resolve_chance(game.rng)
    >>> reference_features(state, 0)["first_seat"]
    1.0
    """
    oracle = engine_factory("oracle", state.game.name)(state.game)
    st = oracle.state_from_dict(state.to_dict())
    plugin = find_plugin(state.game.name)
    if plugin is None:
        raise XenophonError(f"no reference features for {state.game.name}")
    side = importlib.import_module(plugin.reference_features).feature_side
    mine, theirs = side(st, player), side(st, 1 - player)
    return {name: float(mine[name] - theirs[name]) for name in mine}
