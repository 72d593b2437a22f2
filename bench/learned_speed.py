"""Search speed with the learned evaluation against the hand-set one: ISMCTS
iterations per second on the fixed positions of src/data/bench_positions.json,
one worker, the two evaluations interleaved round by round so that the
machine's load falls on both alike; the best round of each is kept.

Run: python bench/learned_speed.py [--iterations 40000] [--rounds 3] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import time

from xenophon.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

EVALUATIONS = ("hand", "learned")


def rate(state, evaluation: str, iterations: int) -> float:
    bot = ISMCTSBot(iterations=iterations, seed=1, evaluation=evaluation)
    start = time.perf_counter()
    bot.analyse(state)
    return iterations / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=40_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    rows = []
    for entry in load_positions():
        state = position_state(entry)
        best = dict.fromkeys(EVALUATIONS, 0.0)
        for _ in range(args.rounds):
            for evaluation in EVALUATIONS:
                best[evaluation] = max(best[evaluation], rate(state, evaluation, args.iterations))
        row = {"position": f"{entry['game']} {entry['stage']}",
               **{f"{e}_it_per_s": round(best[e]) for e in EVALUATIONS},
               "ratio": round(best["learned"] / best["hand"], 3)}
        rows.append(row)
        print(f"{row['position']:<20} hand {row['hand_it_per_s']:>9,} it/s   learned "
              f"{row['learned_it_per_s']:>9,} it/s   ratio {row['ratio']:.3f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"command": "python bench/learned_speed.py "
                                  f"--iterations {args.iterations} --rounds {args.rounds}",
                       "rows": rows}, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
