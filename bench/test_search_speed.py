"""Search speed on the fixed positions of src/data/bench_positions.json (opening,
midgame, endgame of each game): ISMCTS iterations per second on one core with
the games' own playout policies, bytes per node, and the speed-up of two
workers, measured in one run.

Run: pytest bench/test_search_speed.py --benchmark-only"""

import pytest

from xenophon.lab.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

POSITIONS = load_positions()
IDS = [f"{p['game']}-{p['stage']}" for p in POSITIONS]
ITERATIONS = 40_000


@pytest.mark.parametrize("entry", POSITIONS, ids=IDS)
def test_ismcts_one_core(benchmark, record_rate, entry):
    state = position_state(entry)
    results = []
    benchmark.pedantic(
        lambda: results.append(ISMCTSBot(iterations=ITERATIONS, seed=1).analyse(state)),
        rounds=3,
        iterations=1,
    )
    result = results[-1]
    name = f"{entry['game']} {entry['stage']}"
    record_rate(f"ismcts iterations, 1 worker, {name}", ITERATIONS / benchmark.stats.stats.min)
    benchmark.extra_info["bytes_per_node"] = round(result.bytes_per_node, 1)
    benchmark.extra_info["nodes"] = result.nodes
    print(f"\n{name}: {result.nodes} nodes, {result.bytes_per_node:.0f} bytes per node")


@pytest.mark.parametrize("entry", POSITIONS[1:2] + POSITIONS[4:5], ids=[IDS[1], IDS[4]])
def test_ismcts_two_workers(benchmark, record_rate, entry):
    state = position_state(entry)
    benchmark.pedantic(
        lambda: ISMCTSBot(iterations=2 * ITERATIONS, workers=2, seed=1).analyse(state),
        rounds=3,
        iterations=1,
    )
    record_rate(
        f"ismcts iterations, 2 workers, {entry['game']} {entry['stage']}",
        2 * ITERATIONS / benchmark.stats.stats.min,
    )
