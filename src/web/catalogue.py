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


def reach(game: Game, view: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """The squares each piece on the board of `view` reaches, by its anchor
    (the game's `page_reach`; none for a game without one)."""
    reach_of = game_plugin(game.name).page_reach
    return reach_of(game, view) if reach_of else {}


def anchors_of(game_name: str, text: str) -> list[str]:
    return game_plugin(game_name).anchors(text)


#: the zones a move names that are its mover's own (the hand, the event
#: slots): an opponent's move names the opponent's, drawn (if at all) on
#: the opponent's side of the viewer's board, as `ZONE:op:PLACE`
OWN_ZONES = ("hand", "slot")


def _other_side(anchor: str) -> str:
    kind, _, rest = anchor.partition(":")
    side, _, place = rest.partition(":")
    flipped = {"me": "op", "op": "me"}.get(side, side)
    return f"{kind}:{flipped}" + (f":{place}" if place else "")


def _as_the_opponents(anchor: str, mirrored: bool) -> str:
    kind, _, place = anchor.partition(":")
    if kind in OWN_ZONES:
        return f"{kind}:op:{place}"
    return _other_side(anchor) if mirrored else anchor


def opponent_anchors(game_name: str, text: str) -> list[str]:
    """The anchors of the opponent's move on the viewer's board: its hand and
    event slots are the opponent's (`hand:op:NAME`, `slot:op:N`); in a game
    whose moves are written from the mover's side (its F1 is the viewer's
    op.F1) the rest change sides too; squares seen alike by both stay."""
    mirrored = game_plugin(game_name).mirrored_notation
    return [_as_the_opponents(anchor, mirrored) for anchor in anchors_of(game_name, text)]
