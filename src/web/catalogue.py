"""What the page needs to draw cards and to turn clicks into moves, for
each game: the public card data (stats, effects, patterns) and the *anchors*
of a move, the things on the board its text names (a square, a card in the
hand or the market, a unit, an event slot), in the order a player clicks
them. Each game's plugin reads them from the move's text in its notation;
which moves are legal, and what they do, stays the engine's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xenophon.kernel.game import Game
from xenophon.kernel.registry import game_plugin


def catalogue(game: Game) -> dict[str, Any]:
    """The public card data of `game`, for the page's card details."""
    return game_plugin(game.name).catalogue(game)


def moves_for_page(state: Any, said: Callable[[str], str]) -> list[dict[str, Any]]:
    """The legal moves (the player to move's) as `said` writes them (the
    notation's names of the pieces), with their anchors (read from the
    engine's notation: the board's places)."""
    anchors = game_plugin(state.game.name).anchors
    return [
        {"text": said(move.text), "anchors": anchors(move.text)} for move in state.legal_moves()
    ]


def anchors_of(game_name: str, text: str) -> list[str]:
    return game_plugin(game_name).anchors(text)


def _other_side(anchor: str) -> str:
    kind, _, rest = anchor.partition(":")
    side, _, place = rest.partition(":")
    flipped = {"me": "op", "op": "me"}.get(side, side)
    return f"{kind}:{flipped}" + (f":{place}" if place else "")


def opponent_anchors(game_name: str, text: str) -> list[str]:
    """The anchors of the opponent's move on the viewer's board: in a game
    whose moves are written from the mover's side (its F1 is the viewer's
    op.F1) they change sides; squares seen alike by both stay."""
    anchors = anchors_of(game_name, text)
    if game_plugin(game_name).mirrored_notation:
        return [_other_side(a) for a in anchors]
    return anchors
