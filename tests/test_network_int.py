"""The network's value in integers (src/engine_c/network_int.h): within 0.002
of the float reference's win probability (xenophon.lab.network) on 10,000
positions of each game's random games, the same bits on every SIMD path this
machine runs, and the path picked by XENOPHON_NET_PATH (a bad one refused in
one line)."""

import random

import numpy as np
import pytest

from test_network import random_network, written
from test_search import GAMES
from xenophon.kernel.evaluation import (
    NETWORK_PATH_VARIABLE,
    WeightsError,
    read_network,
    shipped_network_file,
    tables_for,
)
from xenophon.lab import network as net

PATHS = ("portable", "avx2", "avx512")
SEATS = 10_000


def seats_of_random_games(game_name, count, seed=1):
    """`count` (state, seat) of random games (chance with true odds): both
    seats of every state reached, as the C core's bytes and the raw inputs."""
    rng = random.Random(seed)
    rows = []
    while len(rows) < count:
        state = GAMES[game_name](rng.randrange(10**6)).new_initial_state()
        while not state.is_terminal() and len(rows) < count:
            if state.is_chance():
                state.apply_code(state.sample_chance(rng).code)
                continue
            b, data = state.backend, state.to_bytes()
            inputs = (b.net_inputs(0), b.net_inputs(1))
            for seat in (0, 1):
                rows.append(
                    (data, seat, inputs[seat], inputs[1 - seat], b.features(seat), b.turn())
                )
            state.apply_code(rng.choice(state.legal_actions()))
    return rows[:count]


def network_of(game_name):
    """Hero's shipped network; for Anabasis, which ships none, one drawn at
    random in Hero's shape (32 hidden units, output weights too)."""
    if game_name == "hero":
        return read_network(shipped_network_file("hero"), "hero")
    return random_network(GAMES[game_name](1), hidden=32, scale=0.1)


@pytest.fixture(scope="module", params=["hero", "anabasis"])
def case(request):
    game_name = request.param
    game = GAMES[game_name](1)
    network = network_of(game_name)
    return game, network, seats_of_random_games(game_name, SEATS)


def values(game, tables, rows):
    state = game._core().CoreState
    return np.asarray([state.from_bytes(tables, r[0]).evaluate_net(r[1]) for r in rows])


def runnable_paths(game, network):
    paths = []
    for path in PATHS:
        try:
            game.tables.with_network(**network.table_arguments(), path=path)
        except ValueError as error:
            assert "cannot run" in str(error)
            continue
        paths.append(path)
    return paths


def test_the_integer_value_is_the_float_reference_within_0_002(case):
    game, network, rows = case
    own, enemy, x, turn = (np.asarray([r[i] for r in rows], dtype=np.float64) for i in (2, 3, 4, 5))
    reference = net.network_batch(network, own, enemy, x, turn)
    c = values(game, game.tables.with_network(**network.table_arguments()), rows)
    win_probability_error = np.abs(c - reference) / 2
    assert win_probability_error.max() <= 0.002
    assert win_probability_error.max() > 0, "the quantised value should not be the float one"
    assert reference.std() > 0.3, "the network should tell the positions apart"


@pytest.mark.parametrize("hidden", [5, 33, 64])
def test_every_width_of_the_hidden_layer_pads_alike(hidden):
    """Widths that are not whole blocks of lanes, and the largest (two blocks)."""
    game = GAMES["hero"](1)
    network = random_network(game, hidden=hidden, scale=0.05)
    rows = seats_of_random_games("hero", 400, seed=2)
    own, enemy, x, turn = (np.asarray([r[i] for r in rows], dtype=np.float64) for i in (2, 3, 4, 5))
    reference = net.network_batch(network, own, enemy, x, turn)
    by_path = [
        values(game, game.tables.with_network(**network.table_arguments(), path=path), rows)
        for path in runnable_paths(game, network)
    ]
    assert np.abs(by_path[0] - reference).max() / 2 <= 0.002
    assert all(np.array_equal(other, by_path[0]) for other in by_path)


def test_every_path_gives_the_same_bits(case):
    game, network, rows = case
    paths = runnable_paths(game, network)
    assert "portable" in paths
    by_path = {}
    for path in paths:
        tables = game.tables.with_network(**network.table_arguments(), path=path)
        assert tables.network_path == path
        by_path[path] = values(game, tables, rows)
    for path in paths:
        assert np.array_equal(by_path[path], by_path["portable"]), path


def test_the_value_is_exactly_antisymmetric(case):
    game, network, rows = case
    tables = game.tables.with_network(**network.table_arguments())
    state = game._core().CoreState
    for data, *_ in rows[:2000:2]:
        on_net = state.from_bytes(tables, data)
        assert on_net.evaluate_net(0) == -on_net.evaluate_net(1)


def test_the_environment_picks_the_path_and_a_bad_one_is_one_line(tmp_path, monkeypatch):
    game = GAMES["hero"](1)
    path = str(written(tmp_path, random_network(game)))
    assert tables_for(game, "net", path).network_path in PATHS
    monkeypatch.setenv(NETWORK_PATH_VARIABLE, "portable")
    assert tables_for(game, "net", path).network_path == "portable"
    monkeypatch.setenv(NETWORK_PATH_VARIABLE, "sse9")
    with pytest.raises(WeightsError, match=f"^{NETWORK_PATH_VARIABLE}: no network path 'sse9'"):
        tables_for(game, "net", path)


def test_tables_without_a_network_have_no_path():
    assert GAMES["hero"](1).tables.network_path is None
