"""Root-parallel speed-up: ISMCTS iterations/s with one worker and with two
(40,000 iterations a worker, best of 3) on each position of
src/data/bench_positions.json, measured in one run; meant for an idle
machine (the load average is written with the figures).

    python bench/worker_speedup.py bench/results/workers-idle-DATE.json
"""
import json
import os
import sys
import time

from xenophon.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

ITERATIONS_A_WORKER = 40_000
ROUNDS = 3


def best_rate(state, workers: int) -> float:
    """Iterations/s of the fastest of ROUNDS searches with `workers` workers."""
    iterations = ITERATIONS_A_WORKER * workers
    fastest = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        ISMCTSBot(iterations=iterations, workers=workers, seed=1).analyse(state)
        fastest = min(fastest, time.perf_counter() - start)
    return iterations / fastest


def main(out: str) -> None:
    load_before = os.getloadavg()
    rows = []
    for entry in load_positions():
        state = position_state(entry)
        one, two = best_rate(state, 1), best_rate(state, 2)
        rows.append({"game": entry["game"], "stage": entry["stage"], "ips_1": round(one),
                     "ips_2": round(two), "speedup": round(two / one, 3),
                     "load_after": os.getloadavg()})
        print(rows[-1], flush=True)
    with open(out, "w") as handle:
        json.dump({"command": f"python bench/worker_speedup.py {out}",
                   "load_before": load_before, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
