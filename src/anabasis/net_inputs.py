"""Anabasis's raw inputs of the sparse-input network (docs/learning.md),
computed the slow and readable way from a state's canonical dict: the
reference the C inputs (src/engine_c/anabasis/net_inputs.c) are tested
against (tests/test_network.py).

One side is six zones of one number per card id of the card set (zone z,
card c: input z * n_cards + c): copies in the deck, in hand, in the flow, in
the cemetery, in the event slots and on the board; then four zones of one
number per square (zone z, square q: input 6 * n_cards + z * 42 + q): the
side's character, its ready character, its territory and the damage on its
card. Squares are turned for seat 1 (its square q is the board's 41 - q), so
each side plays from ranks 1-2.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CARD_ZONES = ("deck", "hand", "flow", "cemetery", "slot", "board")
SQUARE_ZONES = ("character", "ready", "territory", "damage")
FILES = 7
SQUARES = 42


def turned_square(name: str, seat: int) -> int:
    """The square `name` ("a1".."g6") as seat `seat` sees it."""
    q = (int(name[1:]) - 1) * FILES + ord(name[0]) - ord("a")
    return q if seat == 0 else SQUARES - 1 - q


def side_inputs(state: dict[str, Any], seat: int, cards: Sequence[Any]) -> list[float]:
    """Seat `seat`'s side of the world `state` (a state dict) as raw inputs;
    `cards` are the card set's cards in id order (each with .name and .kind)."""
    index = {card.name: i for i, card in enumerate(cards)}
    n = len(cards)
    out = [0.0] * (len(CARD_ZONES) * n + len(SQUARE_ZONES) * SQUARES)
    player = state["players"][seat]
    for zone, key in enumerate(("deck", "hand", "flow", "cemetery")):
        for name, count in player[key].items():
            out[zone * n + index[name]] += count
    for slot in player["slots"]:
        if slot is not None:
            out[4 * n + index[slot["card"]]] += 1.0
    first = len(CARD_ZONES) * n
    for square, piece in state["grid"].items():
        if piece["owner"] != seat:
            continue
        q = turned_square(square, seat)
        out[5 * n + index[piece["card"]]] += 1.0
        if cards[index[piece["card"]]].kind == "character":
            out[first + q] += 1.0
            out[first + SQUARES + q] += float(piece["ready"])
        else:
            out[first + 2 * SQUARES + q] += 1.0
        out[first + 3 * SQUARES + q] += piece["damage"]
    return out
