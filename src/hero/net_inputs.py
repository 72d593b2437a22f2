"""Hero's raw inputs of the sparse-input network (docs/learning.md), computed
the slow and readable way from a state's canonical dict: the reference the
C inputs (src/engine_c/hero/net_inputs.c) are tested against
(tests/test_network.py).

One side is seven zones of one number per card id of the card set (zone z,
card c: input z * n_cards + c): copies in hand, in the deck, in the
graveyard, and units of the card on the field by row and state, Retainer
tokens apart.
"""

from __future__ import annotations

from typing import Any

ZONES = ("hand", "deck", "graveyard", "front_ready", "front_used", "back_ready", "back_used")


def side_inputs(state: dict[str, Any], seat: int, card_names: list[str]) -> list[float]:
    """Seat `seat`'s side of the world `state` (a state dict) as raw inputs."""
    index = {name: i for i, name in enumerate(card_names)}
    n = len(card_names)
    out = [0.0] * (len(ZONES) * n)
    player = state["players"][seat]
    for zone, key in enumerate(("hand", "deck", "graveyard")):
        for name, count in player[key].items():
            out[zone * n + index[name]] += count
    for row, first in (("front", 3), ("back", 5)):
        for unit in player[row]:
            if not unit["token"]:
                out[(first + unit["used"]) * n + index[unit["card"]]] += 1.0
    return out
