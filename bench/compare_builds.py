"""Speed of two installed builds of xenophon, measured in one run.

Each build is a Python interpreter with xenophon installed (e.g. a venv made
from an earlier commit). The builds take turns, round after round, on the
same positions and seeds, so the load of a shared machine falls on both
alike; the figures are the medians over the rounds, with each build's
behaviour (the number of nodes of its search trees) printed to show that the
two did the same work.

    python bench/compare_builds.py --build before=/path/to/venv-a/bin/python \
        --build after=/path/to/venv-b/bin/python --rounds 5 --output FILE.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

# Run inside each build: rates of the benchmark positions (src/data/bench_positions.json).
PROBE = r"""
import json, sys
from xenophon.lab.benchmarks import load_positions, position_state, timed, xenophon_search
actions, iterations = int(sys.argv[1]), int(sys.argv[2])
out = {}
for entry in load_positions():
    name = f"{entry['game']} {entry['stage']}"
    core = position_state(entry).backend
    out[f"{name}: random actions/s"] = timed(actions, lambda: core.random_actions(actions, 1)).rate
    # Playouts apply without hash or key upkeep where the build has that mode;
    # in older builds a playout's action is the keyed one measured above.
    unkeyed = getattr(core, "random_actions_unkeyed", core.random_actions)
    out[f"{name}: playout random actions/s"] = timed(actions, lambda: unkeyed(actions, 1)).rate
    pairs = timed(actions, lambda: core.apply_undo_pairs(actions, 1))
    out[f"{name}: apply+undo pairs/s"] = pairs.rate
    search = xenophon_search(position_state(entry), iterations, 1)
    out[f"{name}: search iterations/s"] = search.rate
    out[f"{name}: search nodes"] = search.nodes
print(json.dumps(out))
"""


def measure(python: str, actions: int, iterations: int) -> dict[str, float]:
    result = subprocess.run(
        [python, "-c", PROBE, str(actions), str(iterations)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--build",
        action="append",
        required=True,
        metavar="NAME=PYTHON",
        help="a build to measure (give two or more)",
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--iterations", type=int, default=5_000)
    parser.add_argument("--output", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    builds = dict(item.split("=", 1) for item in args.build)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in builds}
    for _ in range(args.rounds):
        for name, python in builds.items():
            runs[name].append(measure(python, args.actions, args.iterations))
    medians = {
        name: {key: statistics.median(run[key] for run in rows) for key in rows[0]}
        for name, rows in runs.items()
    }
    names = list(builds)
    first = names[0]
    print(f"{'measure':52}" + "".join(f"{name:>14}" for name in names) + "     ratio")
    for key in medians[first]:
        values = [medians[name][key] for name in names]
        ratio = values[-1] / values[0] if values[0] else float("nan")
        print(f"{key:52}" + "".join(f"{value:14,.0f}" for value in values) + f"  {ratio:8.3f}")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "command": " ".join(sys.argv),
                    "rounds": args.rounds,
                    "actions": args.actions,
                    "iterations": args.iterations,
                    "medians": medians,
                    "runs": runs,
                },
                handle,
                indent=1,
            )
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
