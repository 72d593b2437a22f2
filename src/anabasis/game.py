"""The public Anabasis `Game` and `State`, over the C core or the oracle."""
from __future__ import annotations

import random
from pathlib import Path

from xenophon.anabasis import notation
from xenophon.anabasis.cards import Card, CardSet, load_card_set
from xenophon.anabasis.render import render_state
from xenophon.errors import XenophonError
from xenophon.game import State as BaseState

MODES = ("standard", "expert")
ENGINES = ("c", "oracle")


class Game:
    """One Anabasis game definition: mode, card set, seed and rules engine.

    `engine="c"` (the default) runs the C core; `engine="oracle"` the
    pure-Python reference, for tests and comparisons.
    """

    name = "anabasis"

    def __init__(self, mode: str = "standard", seed: int | None = None,
                 cards: CardSet | str | Path | None = None, engine: str = "c"):
        if mode not in MODES:
            raise XenophonError(f"unknown mode '{mode}' (standard or expert)")
        if engine not in ENGINES:
            raise XenophonError(f"unknown engine '{engine}' (c or oracle)")
        self.mode = mode
        self.seed = seed
        self.engine = engine
        self.cards = cards if isinstance(cards, CardSet) else load_card_set(cards)
        self.rng = random.Random(seed)
        if engine == "c":
            from xenophon._core import anabasis as core
            self._core = core
            self.tables = core.Tables(self.cards, mode)
        else:
            from xenophon.reference.anabasis import OracleGame
            self._oracle = OracleGame(self.cards, mode)

    def new_initial_state(self) -> "State":
        """The state before setup: a chance node (deals, market, draws follow)."""
        if self.engine == "c":
            return State(self, self._core.CoreState.initial(self.tables))
        return State(self, self._oracle.new_initial_state())

    def state_from_bytes(self, data: bytes) -> "State":
        if self.engine != "c":
            raise XenophonError("only the C engine serialises states to bytes")
        try:
            return State(self, self._core.CoreState.from_bytes(self.tables, data))
        except ValueError as error:
            raise XenophonError(f"not an Anabasis state: {error}") from None

    def __repr__(self) -> str:
        return f"Game(mode={self.mode!r}, seed={self.seed!r}, engine={self.engine!r})"


class State(BaseState):
    """An Anabasis position. Moves are written as in docs/anabasis-engine.md §7."""

    game_name = "anabasis"

    def _slot_event(self, slot: int) -> Card | None:
        player = self.current_player
        if player < 0:
            return None
        entry = self.backend.to_dict()["players"][player]["slots"][slot]
        return self.game.cards.by_name(entry["card"]) if entry else None

    def format_code(self, code: int) -> str:
        return notation.format_action(code, self.game.cards, self._slot_event)

    def parse_code(self, text: str) -> int:
        return notation.parse_action(text, self.game.cards)

    def render(self, seat: int, color: bool = False) -> str:
        """The board and counters as `seat` sees them (nothing hidden from it shown)."""
        return render_state(self.to_dict(), self.game.cards, seat, self.game.mode, color=color)
