"""Search speed with the learned evaluation against the hand-set one: ISMCTS
iterations per second on the fixed positions of src/data/bench_positions.json,
one worker, the evaluations interleaved round by round so that the machine's
load falls on all alike; the best round of each is kept. With --network
GAME=FILE, a third column: the learned evaluation with that weights file (a
network, xenophon tune --model mlp), its ratio to the shipped weights'.
With --net GAME=FILE, a column for the sparse-input network of that network
file (eval=net, docs/learning.md) and its ratio to the shipped weights';
with --net-priors W too, a column for that network with its policy head as
the priors (priors=net, prior_weight=W) and its ratio to the plain net column.

Run: python bench/learned_speed.py [--iterations 40000] [--rounds 3]
         [--network anabasis=FILE] [--network hero=FILE] [--net hero=FILE]
         [--net-priors W] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time

from xenophon.lab.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot

#: column name -> (evaluation, weights file or None, other settings); "network",
#: "net" and "net_priors" are added per game
EVALUATIONS: dict[str, tuple[str, str | None, dict]] = {
    "hand": ("hand", None, {}),
    "learned": ("learned", None, {}),
}
#: the columns given as a ratio, and the column each is divided by
RATIOS = {"network": "learned", "net": "learned", "net_priors": "net"}


def rate(state, evaluation: str, weights: str | None, iterations: int, settings: dict) -> float:
    bot = ISMCTSBot(
        iterations=iterations, seed=1, evaluation=evaluation, weights=weights, **settings
    )
    start = time.perf_counter()
    bot.analyse(state)
    return iterations / (time.perf_counter() - start)


def network_files(pairs: list[str]) -> dict[str, str]:
    files = {}
    for pair in pairs:
        game, _, path = pair.partition("=")
        if not path:
            raise SystemExit(f"--network takes GAME=FILE, not '{pair}'")
        files[game] = path
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=40_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--network", action="append", default=[], metavar="GAME=FILE")
    parser.add_argument("--net", action="append", default=[], metavar="GAME=FILE")
    parser.add_argument("--net-priors", type=float, metavar="W")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    networks = network_files(args.network)
    nets = network_files(args.net)
    rows = []
    for entry in load_positions():
        state = position_state(entry)
        columns = dict(EVALUATIONS)
        if entry["game"] in networks:
            columns["network"] = ("learned", networks[entry["game"]], {})
        if entry["game"] in nets:
            columns["net"] = ("net", nets[entry["game"]], {})
            if args.net_priors:
                priors = {"priors": "net", "prior_weight": args.net_priors}
                columns["net_priors"] = ("net", nets[entry["game"]], priors)
        best = dict.fromkeys(columns, 0.0)
        for _ in range(args.rounds):
            for name, (evaluation, weights, settings) in columns.items():
                speed = rate(state, evaluation, weights, args.iterations, settings)
                best[name] = max(best[name], speed)
        row = {
            "position": f"{entry['game']} {entry['stage']}",
            **{f"{name}_it_per_s": round(best[name]) for name in columns},
            "ratio": round(best["learned"] / best["hand"], 3),
        }
        for name, base in RATIOS.items():
            if name in columns:
                row[f"{name}_ratio"] = round(best[name] / best[base], 3)
        rows.append(row)
        print(
            f"{row['position']:<20} "
            + "   ".join(f"{name} {row[name + '_it_per_s']:>9,} it/s" for name in columns)
            + f"   learned/hand {row['ratio']:.3f}"
            + "".join(
                f"   {name}/{base} {row[name + '_ratio']:.3f}"
                for name, base in RATIOS.items()
                if name in columns
            )
        )
    if args.json:
        command = (
            f"python bench/learned_speed.py --iterations {args.iterations} --rounds {args.rounds}"
        )
        command += "".join(f" --network {game}={path}" for game, path in networks.items())
        command += "".join(f" --net {game}={path}" for game, path in nets.items())
        command += f" --net-priors {args.net_priors:g}" if args.net_priors else ""
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"command": command, "rows": rows}, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
