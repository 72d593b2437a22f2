"""xenophon against its peers on the positions of src/data/bench_positions.json:
ISMCTS iterations per second and bytes per node, xenophon vs OpenSpiel's C++
and Python ISMCTS, all with one uniformly random rollout to the end per
iteration (ratios printed at the end); then matches against OpenSpiel's C++
ISMCTS at equal iterations and at equal time per move.

Run: pytest bench/test_peers.py --benchmark-only
     (XENOPHON_BENCH_GAMES=N games per match, default 20; `xenophon bench`
     runs the same measurements with 200 games and prints the tables).
The OpenSpiel parts are skipped, with the reason, when OpenSpiel, g++ or the
source checkout is missing."""

import dataclasses
import os

import pytest

from xenophon.kernel.registry import GAMES
from xenophon.lab import benchmarks

POSITIONS = benchmarks.load_positions()
IDS = [f"{p['game']}-{p['stage']}" for p in POSITIONS]
SETTINGS = dataclasses.replace(
    benchmarks.Settings(),
    search_iterations=20_000,
    match_games=int(os.environ.get("XENOPHON_BENCH_GAMES", "20")),
)
REASON = benchmarks.peer_reason()
needs_openspiel = pytest.mark.skipif(REASON is not None, reason=str(REASON))
SEARCHES = {
    "xenophon": lambda state, n: benchmarks.xenophon_search(
        state, n, SETTINGS.seed, uniform_playouts=True, **benchmarks.TO_THE_END
    ),
    "openspiel-cc": lambda state, n: benchmarks.openspiel_search(state, n, SETTINGS.seed),
    "openspiel-py": lambda state, n: benchmarks.python_openspiel_search(
        state, n, SETTINGS.seed, memory=False
    ),
}
BUDGETS = {
    "xenophon": SETTINGS.search_iterations,
    "openspiel-cc": SETTINGS.search_iterations,
    "openspiel-py": SETTINGS.python_iterations,
}


@pytest.mark.parametrize(
    "searcher",
    [
        "xenophon",
        pytest.param("openspiel-cc", marks=needs_openspiel),
        pytest.param("openspiel-py", marks=needs_openspiel),
    ],
)
@pytest.mark.parametrize("entry", POSITIONS, ids=IDS)
def test_search_speed(measure, record_rate, benchmark, entry, searcher):
    state = benchmarks.position_state(entry)
    rounds = 1 if searcher == "openspiel-py" else 3
    rate, result = measure(lambda n: SEARCHES[searcher](state, n), BUDGETS[searcher], rounds)
    record_rate(f"{entry['game']} {entry['stage']} iterations {searcher}", rate)
    if result.bytes_per_node is not None:
        benchmark.extra_info["bytes_per_node"] = round(result.bytes_per_node, 1)
        record_rate(
            f"{entry['game']} {entry['stage']} bytes per node {searcher}", result.bytes_per_node
        )


@needs_openspiel
@pytest.mark.parametrize("match", list(benchmarks.match_specs(SETTINGS, GAMES[0])))
@pytest.mark.parametrize("game", GAMES)
def test_strength(benchmark, record_result, game, match):
    entry = next(e for e in POSITIONS if e["game"] == game)
    row = benchmark.pedantic(
        benchmarks.strength_row, (entry, SETTINGS, match, None, False), rounds=1, iterations=1
    )
    record_result(f"{game}, {match}: {row.xenophon} vs {row.peer}: {row.result}")
