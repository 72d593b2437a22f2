"""The Hero C core against the pure-Python oracle on seeded random games over
several deck pairings: every node compared (current player, legal actions or
chance outcomes with probabilities, returns, canonical state dict)."""

import random

import pytest

from harness import choose, differential_batches, differential_game, information_pairs
from hero_decks import CARDS, PAIRINGS
from xenophon._core import hero as core
from xenophon.hero import notation
from xenophon.hero.oracle import OracleGame

GAMES_PER_PAIRING = 400
GAMES_PER_BATCH = 50
MAX_ACTIONS = 5000


def factories(pairing):
    deck0, deck1 = PAIRINGS[pairing]
    tables = core.Tables(CARDS.core_data(deck0, deck1))
    oracle_game = OracleGame(CARDS, deck0, deck1)
    return (lambda: core.CoreState.initial(tables)), oracle_game.new_initial_state


def describe(backend, code):
    return notation.format_action(code, CARDS)


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
@pytest.mark.parametrize("batch", differential_batches(GAMES_PER_PAIRING, GAMES_PER_BATCH))
def test_core_agrees_with_oracle(pairing, batch):
    core_factory, oracle_factory = factories(pairing)
    offset = sorted(PAIRINGS).index(pairing) * 1_000_000
    played = [
        differential_game(core_factory, oracle_factory, offset + game, MAX_ACTIONS, describe)
        for game in range(batch * GAMES_PER_BATCH, (batch + 1) * GAMES_PER_BATCH)
    ]
    # every game was played to its end, and games are long enough to mean something
    assert max(played) < MAX_ACTIONS and sum(played) > 100 * GAMES_PER_BATCH


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
def test_information_set_keys_match_oracle_views(pairing):
    """After two different actions, a player's C keys are equal exactly when the
    oracle says that player cannot tell the two results apart."""
    core_factory, oracle_factory = factories(pairing)
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        c, o = core_factory(), oracle_factory()
        while not c.is_terminal():
            if len(c.legal_actions()) > 1:
                checked += information_pairs(c, o, rng, pairs=2)
            code = choose(c, rng)
            c.apply(code)
            o.apply(code)
    assert checked > 300
