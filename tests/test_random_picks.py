"""The random picks of the C cores, which take one code without writing the
legal list (runs.h), against their definitions over the whole ascending
list, draw for draw: the core's generator (xoshiro256**, rng.h) replayed in
Python from the same seed must give the same code at every decision of many
random games.

- random_decision: list[below(n)], the random walks' and uniform playouts' pick;
- the Anabasis playout policy: an attack (uniform) with probability 3/4
  where attacks are legal, else a uniform code;
- the Hero playout policy: a uniform code, then three corrections (an `end`
  of the action phase -> a deploy with probability 0.9, an `end` of the
  battle phase -> an attack with 0.75, a Retainer discard -> a code of
  another kind with 0.75).

And the chance draw without the list (sample_chance) against chance_outcomes'
probabilities, by counting seeded draws.
"""

from __future__ import annotations

import random

import pytest

from hero_decks import CARDS as HERO_CARDS
from hero_decks import PAIRINGS
from xenophon._core import anabasis as anabasis_core
from xenophon._core import hero as hero_core
from xenophon.anabasis.cards import load_card_set

MASK64 = (1 << 64) - 1
HERO_END, HERO_DEPLOY, HERO_RETAINER, HERO_ATTACK = 0, 3, 5, 8
ANA_ATTACK = 7
ANABASIS_CARDS = load_card_set()


def kind(code: int) -> int:
    return code >> 12


class Xoshiro:
    """rng.h's generator: xoshiro256** seeded through splitmix64, Lemire's
    bounded integers, 53-bit doubles."""

    def __init__(self, seed: int) -> None:
        self.s = []
        for _ in range(4):
            seed = (seed + 0x9E3779B97F4A7C15) & MASK64
            z = seed
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def _rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & MASK64

    def next(self) -> int:
        s = self.s
        result = (self._rotl((s[1] * 5) & MASK64, 7) * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self._rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        m = (self.next() >> 32) * n
        if (m & 0xFFFFFFFF) < n:
            threshold = ((1 << 32) - n) % n
            while (m & 0xFFFFFFFF) < threshold:
                m = (self.next() >> 32) * n
        return m >> 32

    def unit(self) -> float:
        return (self.next() >> 11) / 9007199254740992.0


def hero_policy(codes: list[int], phase: str, rng: Xoshiro) -> int:
    code = codes[rng.below(len(codes))]
    deploys = [c for c in codes if kind(c) == HERO_DEPLOY]
    attacks = [c for c in codes if kind(c) == HERO_ATTACK]
    if kind(code) == HERO_END and phase == "action":
        if deploys and rng.unit() < 0.9:
            code = deploys[rng.below(len(deploys))]
    elif kind(code) == HERO_END and phase == "battle":
        if attacks and rng.unit() < 0.75:
            code = attacks[rng.below(len(attacks))]
    elif kind(code) == HERO_RETAINER and rng.unit() < 0.75:
        others = [c for c in codes if kind(c) != HERO_RETAINER]
        code = others[rng.below(len(others))]
    return code


def anabasis_policy(codes: list[int], phase: str, rng: Xoshiro) -> int:
    attacks = [c for c in codes if kind(c) == ANA_ATTACK]  # only the field stage has them
    if attacks and rng.below(4) != 0:
        return attacks[rng.below(len(attacks))]
    return codes[rng.below(len(codes))]


def uniform(codes: list[int], phase: str, rng: Xoshiro) -> int:
    return codes[rng.below(len(codes))]


def walk_states(new_game, games: int, walk: random.Random):
    """Every state before the end of `games` random games: chance drawn with
    its probabilities, decisions uniformly (after the caller has looked)."""
    for _ in range(games):
        state = new_game()
        while not state.is_terminal():
            yield state
            if state.is_chance():
                outcomes = state.chance_outcomes()
                state.apply(
                    walk.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
                )
            else:
                state.apply(walk.choice(state.legal_actions()))


def decisions(new_game, games: int, walk: random.Random):
    """Every decision state of `games` random games."""
    return (state for state in walk_states(new_game, games, walk) if not state.is_chance())


def chance_states(new_game, games: int, walk: random.Random):
    """Every chance state of `games` random games."""
    return (state for state in walk_states(new_game, games, walk) if state.is_chance())


GAMES = {
    f"hero {name}": (
        lambda pair=pair: hero_core.CoreState.initial(
            hero_core.Tables(HERO_CARDS.core_data(*pair))
        ),
        hero_policy,
        6,
    )
    for name, pair in PAIRINGS.items()
}
GAMES.update(
    {
        f"anabasis {mode}": (
            lambda mode=mode: anabasis_core.CoreState.initial(
                anabasis_core.Tables(ANABASIS_CARDS.core_data(), mode)
            ),
            anabasis_policy,
            2,
        )
        for mode in ("standard", "expert")
    }
)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("pick", ["random_decision", "playout_action"])
def test_pick_is_its_definition_draw_for_draw(game, pick):
    new_game, policy, games = GAMES[game]
    definition = uniform if pick == "random_decision" else policy
    walk = random.Random(f"{game} {pick}")
    checked = 0
    kinds_seen: set[int] = set()
    for state in decisions(new_game, games, walk):
        codes = state.legal_actions()
        phase = state.to_dict()["phase"]
        for seed in (walk.getrandbits(64), walk.getrandbits(64)):
            expected = definition(codes, phase, Xoshiro(seed))
            assert getattr(state, pick)(seed) == expected, (phase, codes, seed)
            kinds_seen.add(kind(expected))
            checked += 1
    assert checked > 500 and len(kinds_seen) >= 6  # most kinds were picked


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sample_chance_draws_by_the_outcomes_probabilities(game):
    """The core's chance draw without the list (sample_chance: the playouts'
    and the search's) follows chance_outcomes' probabilities: 2,000 seeded
    draws at chance nodes of random games, each outcome's share within five
    standard deviations of its probability, and no code outside the list."""
    new_game, _, games = GAMES[game]
    walk = random.Random(f"{game} chance")
    draws = 2000
    checked = 0
    for index, state in enumerate(chance_states(new_game, games, walk)):
        outcomes = dict(state.chance_outcomes())
        if len(outcomes) < 2 or index % 5:
            continue  # a fifth of the nodes keeps the test short
        counts = dict.fromkeys(outcomes, 0)
        for seed in range(checked * draws, (checked + 1) * draws):
            code = state.sample_chance(seed)
            assert code in counts, (code, sorted(outcomes))
            counts[code] += 1
        for code, probability in outcomes.items():
            deviation = (probability * (1 - probability) / draws) ** 0.5
            assert abs(counts[code] / draws - probability) <= 5 * deviation + 1e-9, (
                code,
                counts[code],
                probability,
                state.to_dict()["phase"],
            )
        checked += 1
    assert checked >= 10
