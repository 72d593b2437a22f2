"""The C core against the pure-Python oracle on seeded random Anabasis games.

Every node of every game is compared: current player, legal actions (or chance
outcomes with their probabilities), returns, and the canonical state dict.
"""

import random

import pytest

from harness import choose, differential_batches, differential_game, information_pairs
from xenophon._core import anabasis as core
from xenophon.anabasis import notation
from xenophon.anabasis.cards import load_card_set
from xenophon.anabasis.oracle import OracleGame

CARDS = load_card_set()
GAMES_PER_MODE = 1000
GAMES_PER_BATCH = 50
MAX_ACTIONS = 3000


def factories(mode):
    tables = core.Tables(CARDS.core_data(), mode)
    oracle_game = OracleGame(CARDS, mode)
    return (lambda: core.CoreState.initial(tables)), oracle_game.new_initial_state


def describe(backend, code):
    return notation.format_action(code, CARDS)


@pytest.mark.parametrize("mode", ["standard", "expert"])
@pytest.mark.parametrize("batch", differential_batches(GAMES_PER_MODE, GAMES_PER_BATCH))
def test_core_agrees_with_oracle(mode, batch):
    core_factory, oracle_factory = factories(mode)
    offset = 0 if mode == "standard" else 1_000_000
    played = [
        differential_game(core_factory, oracle_factory, offset + game, MAX_ACTIONS, describe)
        for game in range(batch * GAMES_PER_BATCH, (batch + 1) * GAMES_PER_BATCH)
    ]
    # every game was played to its end, and games are long enough to mean something
    assert max(played) < MAX_ACTIONS and sum(played) > 100 * GAMES_PER_BATCH


@pytest.mark.parametrize("mode", ["standard", "expert"])
def test_information_set_keys_match_oracle_views(mode):
    """After two different actions, a player's C keys are equal exactly when the
    oracle says that player cannot tell the two results apart."""
    core_factory, oracle_factory = factories(mode)
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        c, o = core_factory(), oracle_factory()
        while not c.is_terminal() and checked < 4000 * (seed + 1):
            if len(c.legal_actions()) > 1:
                checked += information_pairs(c, o, rng, pairs=3)
            code = choose(c, rng)
            c.apply(code)
            o.apply(code)
    assert checked > 1000
