"""The moves that spend a card for nothing (GamePlugin.futile_moves): a
Flood Disaster on a rank where no enemy character stands (issue 47). Its
only effect is then on the player's own characters and its card is gone; a
search with `futile_moves=skip` leaves such a move out of its root unless
nothing else is legal (docs/search.md, "Wasted Floods")."""

from __future__ import annotations

from typing import Any

from xenophon.anabasis.notation import EVENT, FILES, parse_square
from xenophon.kernel.codes import decode


def enemy_character_ranks(view: dict[str, Any], cards: Any, seat: int) -> set[int]:
    """The ranks (0-5) where a character of the other seat stands."""
    return {
        parse_square(square) // len(FILES)
        for square, piece in view["grid"].items()
        if piece["owner"] != seat and cards.by_name(piece["card"]).kind == "character"
    }


def futile_moves(state: Any) -> list[int]:
    """The codes of the legal moves that activate a flood event (an effect
    "flood" in the acting seat's slot) on a rank holding no enemy character.
    Read from the seat's own view: the grid and its own slots."""
    if state.is_terminal() or state.is_chance():
        return []
    seat = state.current_player
    view = state.view(seat)
    cards = state.game.cards
    slots = view["players"][seat]["slots"]
    targets = None
    futile = []
    for code in state.backend.legal_actions():
        kind, slot, rank = decode(code)
        if kind != EVENT or slots[slot] is None:
            continue
        if cards.by_name(slots[slot]["card"]).effect != "flood":
            continue
        if targets is None:
            targets = enemy_character_ranks(view, cards, seat)
        if rank not in targets:
            futile.append(code)
    return futile
