"""What the searcher believes about the opponent's hidden cards, and the
world draws that belief (and the explanation of a search,
`xenophon.play.explain`) is estimated over.

>>> belief = opponent_belief(state, sampler="policy")     # doctest: +SKIP
>>> belief["hand"]["Archer"]      # P(the opponent holds at least one Archer)
>>> belief["slot 2"]              # {event: P} for a face-down slot 2

A *world draw* `draw(state, seat, rng)` returns a full state consistent with
everything `seat` has seen, and the weight of that world. The worlds are the
search's: uniform among the states the player cannot tell from the true one
(`draw_uniform_world`, the search's ``sampler="uniform"``), or weighted by
opponent-move inference (`InferredWorldDraw`, ``sampler="policy"``,
`xenophon.search.world_sampling`); `world_draw` gives the draw of a search's
`sampler` setting. They read only what the player saw, as the search does:
two positions it cannot tell apart give the same belief.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.game import State
from xenophon.search import world_sampling

#: (state, seat, rng) -> (a world consistent with the seat's information, its weight)
WorldDraw = Callable[[State, int, random.Random], tuple[State, float]]

#: worlds a belief is estimated from unless told
DEFAULT_WORLDS = 1000


def draw_uniform_world(state: State, seat: int, rng: random.Random) -> tuple[State, float]:
    """A world drawn uniformly from `seat`'s information (the search's own)."""
    return state.resample(seat, rng), 1.0


def hidden_places(world: State, seat: int) -> set[tuple[str, str]]:
    """The opponent's cards hidden from `seat` in a world, as (place, card):
    ('hand', 'Knight') for a card in the hand, ('slot 2', 'Ambush') for a
    face-down event (in a game with face-down slots)."""
    other = world.to_dict()["players"][1 - seat]
    places = {("hand", name) for name, count in other["hand"].items() if count}
    places |= {
        (f"slot {index + 1}", slot["card"])
        for index, slot in enumerate(other.get("slots", []))
        if slot is not None and not slot["face_up"]
    }
    return places


def card_probabilities(
    state: State, seat: int, draw: WorldDraw, rng: random.Random, worlds: int
) -> dict[str, dict[str, float]]:
    """For each place of the opponent's hidden cards, the probability of each
    card being there, over `worlds` drawn worlds; most likely first."""
    weights: dict[tuple[str, str], float] = defaultdict(float)
    total = 0.0
    for _ in range(worlds):
        world, weight = draw(state, seat, rng)
        total += weight
        for hidden in hidden_places(world, seat):
            weights[hidden] += weight
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for (place, card), weight in sorted(weights.items(), key=lambda item: -item[1]):
        table[place][card] = weight / total if total else 0.0
    return dict(sorted(table.items(), key=lambda item: (item[0] != "hand", item[0])))


class InferredWorldDraw:
    """A `WorldDraw` over the worlds of opponent-move inference: they are
    inferred once per position asked about, then drawn by their weights
    (each returned with weight 1)."""

    def __init__(
        self,
        particles: int = world_sampling.DEFAULT_PARTICLES,
        seed: int = 0,
        likelihood: str = world_sampling.DEFAULT_LIKELIHOOD,
    ):
        self.particles, self.seed, self.likelihood = particles, seed, likelihood
        self._inferred: dict[tuple[int, bytes, int], world_sampling.Worlds] = {}

    def __call__(self, state: State, seat: int, rng: random.Random) -> tuple[State, float]:
        key = (id(state), state.to_bytes(), seat)
        if key not in self._inferred:
            self._inferred = {
                key: world_sampling.policy_worlds(
                    state, seat, self.particles, self.seed, self.likelihood
                )
            }
        worlds = self._inferred[key]
        if not worlds.states:  # no world fits the window: a uniform one
            return draw_uniform_world(state, seat, rng)
        data = rng.choices(worlds.states, weights=worlds.weights)[0]
        return state.game.state_from_bytes(data), 1.0


def world_draw(
    sampler: str, seed: int = 0, likelihood: str = world_sampling.DEFAULT_LIKELIHOOD
) -> WorldDraw:
    """The world draw of the search's `sampler` setting."""
    if sampler not in world_sampling.SAMPLERS:
        raise XenophonError(
            f"unknown sampler '{shown(sampler)}' ({', '.join(world_sampling.SAMPLERS)})"
        )
    if sampler == "policy":
        return InferredWorldDraw(seed=seed, likelihood=likelihood)
    return draw_uniform_world


def opponent_belief(
    state: State,
    player: int | None = None,
    sampler: str = "uniform",
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    likelihood: str = world_sampling.DEFAULT_LIKELIHOOD,
) -> dict[str, dict[str, float]]:
    """For each place of the opponent's hidden cards ("hand", and "slot N"
    for a face-down event), the probability of each card being
    there, as `player` (default: the player to move) sees this position, over
    `worlds` worlds of the search's `sampler`; most likely first."""
    if player is None:
        player = state.current_player
    if player not in (0, 1):
        raise XenophonError("a belief is held by a seat: give player 0 or 1")
    return card_probabilities(
        state, player, world_draw(sampler, seed, likelihood), random.Random(seed), worlds
    )
