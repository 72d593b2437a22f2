"""Rules-core speed: random actions and apply+undo pairs per second, C core and
oracle on the same seeded games, with their ratio (printed at the end).

Run: pytest bench --benchmark-only  (add -k anabasis or -k hero)."""
import random
import time

import pytest

from xenophon._core import anabasis as anabasis_core
from xenophon.anabasis.cards import load_card_set
from xenophon.reference.anabasis import OracleGame

ANABASIS_CARDS = load_card_set()


def oracle_random_actions(new_state, n_actions: int, seed: int) -> int:
    rng = random.Random(seed)
    state, done = new_state(), 0
    while done < n_actions:
        if state.is_terminal():
            state = new_state()
        if state.is_chance():
            outcomes = state.chance_outcomes()
            code = rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
        else:
            code = rng.choice(state.legal_actions())
        state.apply(code)
        done += 1
    return done


def oracle_apply_undo(new_state, n_pairs: int, seed: int) -> int:
    rng = random.Random(seed)
    state, done = new_state(), 0
    while done < n_pairs:
        if state.is_terminal():
            state = new_state()
        codes = state.legal_actions()
        state.apply(rng.choice(codes))
        state.undo()
        done += 1
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state.apply(rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0])
        else:
            state.apply(rng.choice(codes))
    return done


def measure(benchmark, run, amount):
    """Runs `run(amount)` under pytest-benchmark and returns units per second."""
    done = []
    benchmark.pedantic(lambda: done.append(run(amount)), rounds=3, iterations=1)
    return done[-1] / benchmark.stats.stats.min


@pytest.mark.parametrize("mode", ["standard", "expert"])
def test_anabasis_random_actions_core(benchmark, record_rate, mode):
    tables = anabasis_core.Tables(ANABASIS_CARDS, mode)
    state = anabasis_core.CoreState.initial(tables)
    rate = measure(benchmark, lambda n: state.random_actions(n, 1), 2_000_000)
    record_rate(f"anabasis {mode} random actions core", rate)


@pytest.mark.parametrize("mode", ["standard", "expert"])
def test_anabasis_random_actions_oracle(benchmark, record_rate, mode):
    game = OracleGame(ANABASIS_CARDS, mode)
    rate = measure(benchmark, lambda n: oracle_random_actions(game.new_initial_state, n, 1), 20_000)
    record_rate(f"anabasis {mode} random actions oracle", rate)


def test_anabasis_apply_undo_core(benchmark, record_rate):
    tables = anabasis_core.Tables(ANABASIS_CARDS, "standard")
    state = anabasis_core.CoreState.initial(tables)
    rate = measure(benchmark, lambda n: state.apply_undo_pairs(n, 1), 2_000_000)
    record_rate("anabasis standard apply+undo pairs core", rate)


def test_anabasis_apply_undo_oracle(benchmark, record_rate):
    game = OracleGame(ANABASIS_CARDS, "standard")
    rate = measure(benchmark, lambda n: oracle_apply_undo(game.new_initial_state, n, 1), 10_000)
    record_rate("anabasis standard apply+undo pairs oracle", rate)
