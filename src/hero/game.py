"""The public Hero `Game` and `State`, over the C core or the oracle."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xenophon.hero import notation
from xenophon.hero.cards import Deck, HeroCardSet, load_card_set, load_deck, prebuilt_decks
from xenophon.hero.render import render_state
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.game import Game as BaseGame
from xenophon.kernel.game import State as BaseState

DEFAULT_DECKS = ("crimson_conqueror", "wild_grove")


class State(BaseState):
    """A Hero position. Moves are written as in docs/hero-engine.md §8, from
    the view of the player deciding (own slots F1..B5, the opponent's op.F1..)."""

    game: Game

    def format_code(self, code: int) -> str:
        return notation.format_action(code, self.game.cards)

    def parse_code(self, text: str) -> int:
        return notation.parse_action(text, self.game.cards)

    def view(self, seat: int) -> dict:
        """Seat `seat`'s information view (docs/hero-engine.md §11.2): the
        canonical state dict with the other seat's hand and deck set to None
        (their sizes and the known cards stay). Equal views for every state
        `seat` cannot tell apart."""
        view = self.to_dict()
        other = view["players"][1 - seat]
        other["hand"] = other["deck"] = None
        return view

    def render(self, seat: int, color: bool = False, names: Any = None) -> str:
        """Both fields, avatars, hands and counters as `seat` sees them; each
        unit by its letter when `names` (its UnitNames) are given, else by its slot."""
        lettered = names.covering(self.view(seat)) if names is not None else None
        return render_state(
            self.to_dict(), self.game.cards, self.game.decks, seat, color=color, names=lettered
        )


def resolve_deck(deck: Deck | str | Path, cards: HeroCardSet) -> Deck:
    """A Deck, the name of a prebuilt deck, or the path of a deck file."""
    if isinstance(deck, Deck):
        return deck
    prebuilt = prebuilt_decks(cards)
    if str(deck) in prebuilt:
        return prebuilt[str(deck)]
    path = Path(deck)
    if path.suffix == ".toml" or path.exists():
        return load_deck(path, cards)
    raise XenophonError(
        f"unknown deck '{shown(deck)}' (prebuilt: {', '.join(sorted(prebuilt))}, or a deck file)"
    )


class Game(BaseGame):
    """One Hero game: the two decks, the card set, the seed and the rules engine."""

    name = "hero"
    state_class = State

    def __init__(
        self,
        decks: Sequence[Deck | str | Path] = DEFAULT_DECKS,
        seed: int | None = None,
        cards: HeroCardSet | str | Path | None = None,
        engine: str = "c",
    ):
        super().__init__(seed, engine)
        self.cards = cards if isinstance(cards, HeroCardSet) else load_card_set(cards)
        if len(decks) != 2:
            raise XenophonError("a Hero game needs two decks")
        self.decks = tuple(resolve_deck(deck, self.cards) for deck in decks)
        self.deck_specs = [str(d) if not isinstance(d, Deck) else d.name for d in decks]
        self._attach_engine()

    def _make_tables(self) -> Any:
        try:
            return self._core().Tables(self.cards.core_data(*self.decks))
        except ValueError as error:
            raise XenophonError(str(error)) from None

    def _core(self) -> Any:
        from xenophon._core import hero

        return hero

    def options(self) -> dict[str, Any]:
        return {"decks": list(self.deck_specs)}

    def card_digest(self) -> str:
        """The card file's digest, extended with the decks' contents."""
        text = self.cards.digest + "".join(
            f"|{d.avatar.name}:{','.join(map(str, d.counts))}" for d in self.decks
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"Game(decks={self.deck_specs!r}, seed={self.seed!r}, engine={self.engine!r})"
