"""Rules-core speed: random actions and apply+undo pairs per second, C core and
oracle on the same seeded games, with their ratio (printed at the end).

Run: pytest bench --benchmark-only  (add -k anabasis or -k hero)."""

import pytest

from xenophon._core import anabasis as anabasis_core
from xenophon.anabasis.cards import load_card_set
from xenophon.anabasis.oracle import OracleGame
from xenophon.lab.benchmarks import oracle_apply_undo, oracle_random_actions

ANABASIS_CARDS = load_card_set()


@pytest.mark.parametrize("mode", ["standard", "expert"])
def test_anabasis_random_actions_core(measure, record_rate, mode):
    tables = anabasis_core.Tables(ANABASIS_CARDS.core_data(), mode)
    state = anabasis_core.CoreState.initial(tables)
    rate, _ = measure(lambda n: state.random_actions(n, 1), 2_000_000)
    record_rate(f"anabasis {mode} random actions core", rate)


@pytest.mark.parametrize("mode", ["standard", "expert"])
def test_anabasis_random_actions_oracle(measure, record_rate, mode):
    game = OracleGame(ANABASIS_CARDS, mode)
    rate, _ = measure(lambda n: oracle_random_actions(game.new_initial_state, n, 1), 20_000)
    record_rate(f"anabasis {mode} random actions oracle", rate)


def test_anabasis_apply_undo_core(measure, record_rate):
    tables = anabasis_core.Tables(ANABASIS_CARDS.core_data(), "standard")
    state = anabasis_core.CoreState.initial(tables)
    rate, _ = measure(lambda n: state.apply_undo_pairs(n, 1), 2_000_000)
    record_rate("anabasis standard apply+undo pairs core", rate)


def test_anabasis_apply_undo_oracle(measure, record_rate):
    game = OracleGame(ANABASIS_CARDS, "standard")
    rate, _ = measure(lambda n: oracle_apply_undo(game.new_initial_state, n, 1), 10_000)
    record_rate("anabasis standard apply+undo pairs oracle", rate)
