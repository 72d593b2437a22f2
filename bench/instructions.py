"""Instructions per random action, per apply+undo pair and per search
iteration of the C cores and the search, counted by callgrind (repeatable on
a loaded machine, unlike times).

Runs each core's speed loop, and one search of one worker, under
`valgrind --tool=callgrind`, collecting only inside the loop's C function
(the worker's run for the search), from the benchmark positions (the speed
loops from the openings, the search from every stage). The searches: the
default bot's options, and from the midgames two with playouts: the
playout policy for 4 turns (Hero's default has none: its learned evaluation
has cut-off 0) and uniform rollouts to the end (the equal-leaf-work setting
of the comparison with OpenSpiel):

    python bench/instructions.py [--python PYTHON] [--actions N] [--iterations N]
    python bench/instructions.py --net hero=bench/learn/hero-g3-network.npz

PYTHON is an interpreter with xenophon installed (default: this one), so two
builds can be compared in one run. With `--net GAME=FILE` (repeatable) it
counts only the searches from every stage of that game with the learned
evaluation and with the network (`eval=net,weights=FILE`), and their ratio,
learned / net: the iterations a second the network keeps, as a machine's
load cannot move it (docs/lab/learning-log.md, "Speed of the network").

Prints one JSON object (the search's entries also give the tree's node
count, which shows that two builds searched the same tree).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# the probes run on the package as laid out before the renovation too (its
# modules then sat at the top of xenophon), so that two builds compare
IMPORT_BENCHMARKS = r"""
try:
    from xenophon.lab.benchmarks import load_positions, position_state, xenophon_search
except ImportError:
    from xenophon.benchmarks import load_positions, position_state, xenophon_search
"""
PROBE = (
    IMPORT_BENCHMARKS
    + r"""
import sys
game, loop, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
entry = next(e for e in load_positions() if e["game"] == game and e["stage"] == "opening")
getattr(position_state(entry).backend, loop)(n, 1)
"""
)

SEARCH_PROBE = (
    IMPORT_BENCHMARKS
    + r"""
import json, sys
game, stage, n, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
entry = next(e for e in load_positions() if e["game"] == game and e["stage"] == stage)
print(xenophon_search(position_state(entry), n, 1, **options).nodes)
"""
)
# a wildcard: Cython numbers the methods, and the number changes when one is added
SEARCH_RUN = "__pyx_pw_8xenophon_6search_6ismcts_6Worker_*run"
STAGES = ("opening", "midgame", "endgame")
# the searches with playouts, by the name their entries carry, from the midgames
PLAYOUT_SEARCHES = {
    "policy playouts": {"cutoff_turns": 4},
    "uniform rollouts": {
        "uniform_playouts": True,
        "cutoff_turns": -1,
        "max_playout_actions": 1_000_000,
    },
}

LOOPS = {
    ("anabasis", "random_actions"): "ana_random_actions",
    ("anabasis", "random_actions_unkeyed"): "ana_random_actions_unkeyed",
    ("anabasis", "apply_undo_pairs"): "ana_apply_undo_pairs",
    ("hero", "random_actions"): "hero_random_actions",
    ("hero", "random_actions_unkeyed"): "hero_random_actions_unkeyed",
    ("hero", "apply_undo_pairs"): "hero_apply_undo_pairs",
}


def callgrind(python: str, function: str, probe: str, *args: str) -> tuple[int, str]:
    """Instructions inside `function` while `probe` runs, and its output."""
    with tempfile.TemporaryDirectory() as work:
        out = Path(work, "callgrind.out")
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                f"--toggle-collect={function}",
                python,
                "-c",
                probe,
                *args,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
        return int(summary.group(1)), run.stdout


def instructions(python: str, game: str, loop: str, n: int) -> int | None:
    """None when the build has no such loop (random_actions_unkeyed is newer)."""
    try:
        return callgrind(python, LOOPS[game, loop], PROBE, game, loop, str(n))[0]
    except subprocess.CalledProcessError:
        return None


def search_instructions(
    python: str, game: str, stage: str, n: int, options: dict[str, object] | None = None
) -> dict[str, float]:
    count, nodes = callgrind(
        python, SEARCH_RUN, SEARCH_PROBE, game, stage, str(n), json.dumps(options or {})
    )
    return {"per iteration": count / n, "nodes": int(nodes)}


def network_ratios(python: str, nets: list[str], n: int) -> dict[str, object]:
    """Per game and stage: instructions an iteration with the learned
    evaluation and with the network, and learned / net."""
    result: dict[str, object] = {}
    for spec in nets:
        game, _, path = spec.partition("=")
        for stage in STAGES:
            learned = search_instructions(python, game, stage, n, {"evaluation": "learned"})
            net = search_instructions(
                python, game, stage, n, {"evaluation": "net", "weights": path}
            )
            result[f"{game} {stage}"] = {
                "learned": learned["per iteration"],
                "net": net["per iteration"],
                "learned / net": round(learned["per iteration"] / net["per iteration"], 3),
            }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--actions", type=int, default=200_000)
    parser.add_argument("--iterations", type=int, default=5_000)
    parser.add_argument("--net", action="append", metavar="GAME=FILE", default=[])
    args = parser.parse_args(argv)
    if args.net:
        print(json.dumps(network_ratios(args.python, args.net, args.iterations), indent=1))
        return 0
    result: dict[str, object] = {}
    for game, loop in LOOPS:
        count = instructions(args.python, game, loop, args.actions)
        result[f"{game} {loop}"] = None if count is None else count / args.actions
    for game in ("anabasis", "hero"):
        for stage in STAGES:
            result[f"{game} {stage} search"] = search_instructions(
                args.python, game, stage, args.iterations
            )
        for name, options in PLAYOUT_SEARCHES.items():
            result[f"{game} midgame search, {name}"] = search_instructions(
                args.python, game, "midgame", args.iterations, options
            )
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
