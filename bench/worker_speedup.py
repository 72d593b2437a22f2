"""Parallel speed-up: ISMCTS iterations/s with one worker, with two root-
parallel workers (a tree each) and with two workers on one shared tree
(parallel=shared), on each position of src/data/bench_positions.json,
measured in one run; meant for an idle machine (the load average is written
with the figures).

They are timed in turns, one search with one worker and then one of each
kind with two, round after round; a speed-up is the median of the rounds'
ratios (so a slow stretch of the host falls on both sides of a pair), with
the lowest and highest ratio beside it.

Each round also runs the one-worker search in two processes at once (forked,
started together): their combined rate over the one-worker rate is what the
machine itself gives two independent searches ("machine"), the ceiling the
two-worker speed-up can be read against.

    python bench/worker_speedup.py bench/results/workers-idle-DATE.json \
        [ITERATIONS_A_WORKER [ROUNDS]]
"""

import json
import multiprocessing
import os
import statistics
import sys
import time

from xenophon.lab.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

ITERATIONS_A_WORKER = 40_000
ROUNDS = 5


def rate(state, workers: int, a_worker: int, parallel: str = "root") -> float:
    """Iterations/s of one search with `workers` workers."""
    iterations = a_worker * workers
    start = time.perf_counter()
    ISMCTSBot(iterations=iterations, workers=workers, parallel=parallel, seed=1).analyse(state)
    return iterations / (time.perf_counter() - start)


def spread(name: str, ratios: list[float]) -> dict:
    """The median of the rounds' ratios, with the lowest and the highest."""
    return {
        name: round(statistics.median(ratios), 3),
        f"{name}_low": round(min(ratios), 3),
        f"{name}_high": round(max(ratios), 3),
    }


def _timed_search(state, a_worker: int, start, seconds) -> None:
    start.wait()
    began = time.perf_counter()
    ISMCTSBot(iterations=a_worker, workers=1, seed=1).analyse(state)
    seconds.put(time.perf_counter() - began)


def two_process_rate(state, a_worker: int) -> float:
    """Iterations/s of two one-worker searches in two processes started at once."""
    context = multiprocessing.get_context("fork")
    start, seconds = context.Event(), context.Queue()
    processes = [
        context.Process(target=_timed_search, args=(state, a_worker, start, seconds))
        for _ in range(2)
    ]
    for process in processes:
        process.start()
    time.sleep(0.2)  # both forked and waiting
    start.set()
    slowest = max(seconds.get() for _ in processes)
    for process in processes:
        process.join()
    return 2 * a_worker / slowest


def position_row(entry: dict, a_worker: int, rounds: int) -> dict:
    state = position_state(entry)
    ones, twos, shareds, machines = [], [], [], []
    for _ in range(rounds):
        ones.append(rate(state, 1, a_worker))
        twos.append(rate(state, 2, a_worker))
        shareds.append(rate(state, 2, a_worker, "shared"))
        machines.append(two_process_rate(state, a_worker))
    return {
        "game": entry["game"],
        "stage": entry["stage"],
        "ips_1": round(statistics.median(ones)),
        "ips_2": round(statistics.median(twos)),
        "ips_2_shared": round(statistics.median(shareds)),
        **spread("speedup", [two / one for one, two in zip(ones, twos)]),
        **spread("speedup_shared", [two / one for one, two in zip(ones, shareds)]),
        **spread("machine", [both / one for one, both in zip(ones, machines)]),
        "load_after": os.getloadavg(),
    }


def main(out: str, a_worker: int = ITERATIONS_A_WORKER, rounds: int = ROUNDS) -> None:
    load_before = os.getloadavg()
    rows = []
    for entry in load_positions():
        rows.append(position_row(entry, a_worker, rounds))
        print(rows[-1], flush=True)
    with open(out, "w") as handle:
        json.dump(
            {
                "command": f"python bench/worker_speedup.py {out} {a_worker} {rounds}",
                "iterations_a_worker": a_worker,
                "rounds": rounds,
                "load_before": load_before,
                "rows": rows,
            },
            handle,
            indent=1,
        )


if __name__ == "__main__":
    main(sys.argv[1], *(int(arg) for arg in sys.argv[2:4]))
