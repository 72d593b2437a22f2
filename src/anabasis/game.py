"""The public Anabasis `Game` and `State`, over the C core or the oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xenophon.anabasis import notation
from xenophon.anabasis.cards import Card, CardSet, load_card_set
from xenophon.anabasis.render import render_state
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.game import Game as BaseGame
from xenophon.kernel.game import State as BaseState

MODES = ("standard", "expert")


class State(BaseState):
    """An Anabasis position. Moves are written as in docs/anabasis-engine.md §7."""

    game: Game

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

    def view(self, seat: int) -> dict:
        """The canonical state dict (docs/anabasis-engine.md §8) with what
        `seat` cannot see taken out (§9.1): the opponent's hand and DECK
        become None beside their sizes, and the opponent's face-down events
        lose their names. Equal views for every state `seat` cannot tell apart."""
        view = self.to_dict()
        for player, info in enumerate(view["players"]):
            info["hand_size"] = sum(info["hand"].values())
            info["deck_size"] = sum(info["deck"].values())
            if player != seat:
                info["hand"] = info["deck"] = None
                info["slots"] = [
                    slot if slot is None or slot["face_up"] else {"card": None, "face_up": False}
                    for slot in info["slots"]
                ]
        return view

    def render(self, seat: int, color: bool = False, names: Any = None) -> str:
        """The board and counters as `seat` sees them (nothing hidden from it shown)."""
        return render_state(self.to_dict(), self.game.cards, seat, self.game.mode, color=color)


class Game(BaseGame):
    """One Anabasis game: mode, card set, seed and rules engine.

    `engine="c"` (the default) runs the C core; `engine="oracle"` the
    pure-Python reference, for tests and comparisons.
    """

    name = "anabasis"
    state_class = State

    def __init__(
        self,
        mode: str = "standard",
        seed: int | None = None,
        cards: CardSet | str | Path | None = None,
        engine: str = "c",
    ):
        super().__init__(seed, engine)
        if mode not in MODES:
            raise XenophonError(f"unknown mode '{shown(mode)}' (standard or expert)")
        self.mode = mode
        self.cards = cards if isinstance(cards, CardSet) else load_card_set(cards)
        self._attach_engine()

    def _make_tables(self) -> Any:
        return self._core().Tables(self.cards.core_data(), self.mode)

    def _core(self) -> Any:
        from xenophon._core import anabasis

        return anabasis

    def options(self) -> dict[str, Any]:
        return {"mode": self.mode}

    def card_digest(self) -> str:
        return self.cards.digest

    def __repr__(self) -> str:
        return f"Game(mode={self.mode!r}, seed={self.seed!r}, engine={self.engine!r})"
