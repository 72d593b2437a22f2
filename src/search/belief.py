"""What the searcher believes about the opponent's hidden cards, for analysis.

>>> belief = opponent_belief(state, sampler="policy")     # doctest: +SKIP
>>> belief["hand"]["Archer"]      # P(the opponent holds at least one Archer)
>>> belief["slot 2"]              # {event: P} for a face-down slot 2

The worlds are the search's: uniform among the states the player cannot tell
from the true one (``sampler="uniform"``), or weighted by opponent-move
inference (``sampler="policy"``, `xenophon.search.sampler`). The places and
their probabilities are `xenophon.play.explain.card_probabilities`', which
`analyse` and `suggest` show; `search_sampler` gives the same worlds to
`xenophon.play.explain` itself. They read only what the player saw, as the search
does: two positions it cannot tell apart give the same belief.
"""
from __future__ import annotations

import random

from xenophon.kernel.errors import XenophonError
from xenophon.play.explain import Sampler, card_probabilities, uniform_sampler
from xenophon.kernel.game import State
from xenophon.search import sampler as samplers

#: worlds a belief is estimated from unless told
DEFAULT_WORLDS = 1000


class PolicySampler:
    """An `xenophon.play.explain.Sampler` over the worlds of opponent-move
    inference: they are inferred once per position asked about, then drawn
    by their weights (each returned with weight 1)."""

    def __init__(self, particles: int = samplers.DEFAULT_PARTICLES, seed: int = 0,
                 likelihood: str = samplers.DEFAULT_LIKELIHOOD):
        self.particles, self.seed, self.likelihood = particles, seed, likelihood
        self._inferred: dict[tuple[int, bytes, int], samplers.Worlds] = {}

    def __call__(self, state: State, seat: int, rng: random.Random) -> tuple[State, float]:
        key = (id(state), state.to_bytes(), seat)
        if key not in self._inferred:
            self._inferred = {key: samplers.policy_worlds(state, seat, self.particles, self.seed,
                                                          self.likelihood)}
        worlds = self._inferred[key]
        if not worlds.states:            # no world fits the window: a uniform one
            return uniform_sampler(state, seat, rng)
        data = rng.choices(worlds.states, weights=worlds.weights)[0]
        return state.game.state_from_bytes(data), 1.0


def search_sampler(sampler: str, seed: int = 0, likelihood: str = samplers.DEFAULT_LIKELIHOOD
                   ) -> Sampler:
    """The `xenophon.play.explain` sampler of the search's `sampler` setting."""
    if sampler not in samplers.SAMPLERS:
        raise XenophonError(f"unknown sampler '{sampler}' ({', '.join(samplers.SAMPLERS)})")
    if sampler == "policy":
        return PolicySampler(seed=seed, likelihood=likelihood)
    return uniform_sampler


def opponent_belief(state: State, player: int | None = None, sampler: str = "uniform",
                    worlds: int = DEFAULT_WORLDS, seed: int = 0,
                    likelihood: str = samplers.DEFAULT_LIKELIHOOD
                    ) -> dict[str, dict[str, float]]:
    """For each place of the opponent's hidden cards ("hand", and "slot N"
    for a face-down event), the probability of each card being
    there, as `player` (default: the player to move) sees this position, over
    `worlds` worlds of the search's `sampler`; most likely first."""
    if player is None:
        player = state.current_player
    if player not in (0, 1):
        raise XenophonError("a belief is held by a seat: give player 0 or 1")
    return card_probabilities(state, player, search_sampler(sampler, seed, likelihood),
                              random.Random(seed), worlds)
