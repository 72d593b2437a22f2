"""What the searcher believes about the opponent's hidden cards, for analysis.

>>> belief = opponent_belief(state)                      # doctest: +SKIP
>>> belief.hand["Archer"]          # P(the opponent holds at least one Archer)
>>> belief.slots[1]                # Anabasis: {event: P} for its face-down slot 1

The probabilities are those of the worlds the search samples: uniform among
the states the player cannot tell from the true one (``sampler="uniform"``),
or weighted by opponent-move inference (``sampler="policy"``,
`xenophon.search.sampler`). They read only what the player saw, as the search
does: two positions it cannot tell apart give the same belief.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xenophon.errors import XenophonError
from xenophon.game import State
from xenophon.search import sampler as samplers

#: worlds a belief is estimated from unless told
DEFAULT_WORLDS = 1000


@dataclass(frozen=True)
class Belief:
    """The opponent's (`seat`'s) hidden cards as `player` sees them.

    `hand`: card name -> probability of at least one copy in the hand;
    `expected`: card name -> expected copies in the hand;
    `slots`: face-down slot index -> {card name: probability} (Anabasis events);
    `worlds`: how many sampled worlds the estimate rests on."""

    player: int
    seat: int
    hand: dict[str, float]
    expected: dict[str, float]
    slots: dict[int, dict[str, float]] = field(default_factory=dict)
    worlds: int = 0


def _hidden_of(world: State, seat: int) -> tuple[dict[str, int], dict[int, str]]:
    """`seat`'s hand and face-down slot cards in a full state."""
    player = world.to_dict()["players"][seat]
    slots = {index: slot["card"] for index, slot in enumerate(player.get("slots", []))
             if slot is not None and not slot["face_up"]}
    return player["hand"], slots


def opponent_belief(state: State, player: int | None = None, sampler: str = "uniform",
                    worlds: int = DEFAULT_WORLDS, seed: int = 0,
                    likelihood: str = samplers.DEFAULT_LIKELIHOOD,
                    temperature: float = samplers.DEFAULT_TEMPERATURE) -> Belief:
    """The probability of each card being in the opponent's hand (and in each
    of its face-down slots), as `player` (default: the player to move) sees
    this position, from `worlds` worlds of the search's `sampler`."""
    if player is None:
        player = state.current_player
    if player not in (0, 1):
        raise XenophonError("a belief is held by a seat: give player 0 or 1")
    if sampler not in samplers.SAMPLERS:
        raise XenophonError(f"unknown sampler '{sampler}' ({', '.join(samplers.SAMPLERS)})")
    if sampler == "policy":
        sampled = samplers.policy_worlds(state, player, worlds, seed, likelihood, temperature)
    else:
        sampled = samplers.uniform_worlds(state, player, worlds, seed)
    if not sampled.states:               # no world fits the window: the uniform belief
        sampled = samplers.uniform_worlds(state, player, worlds, seed)
    seat = 1 - player
    hand: dict[str, float] = {}
    expected: dict[str, float] = {}
    slots: dict[int, dict[str, float]] = {}
    for data, weight in zip(sampled.states, sampled.weights):
        held, face_down = _hidden_of(state.game.state_from_bytes(data), seat)
        for card, count in held.items():
            hand[card] = hand.get(card, 0.0) + weight
            expected[card] = expected.get(card, 0.0) + weight * count
        for index, card in face_down.items():
            slot = slots.setdefault(index, {})
            slot[card] = slot.get(card, 0.0) + weight
    return Belief(player, seat, hand, expected, slots, len(sampled.states))
