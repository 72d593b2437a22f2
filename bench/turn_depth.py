"""How deep the search's tree reaches in turns (issue 64: "a shallower own
turn"), on the positions of src/data/bench_positions.json (replayed from
their moves, so each keeps its history): per position, futile-move rule and
budget, the mean and the most turns a descent's last tree step lies past the
root's turn (`SearchResult.mean_turns`, `most_turns`; 0: the root's own
turn), and the tree's nodes. One worker, search seed 1; the counts do not
depend on the machine's speed.

    python bench/turn_depth.py --iterations 3000 20000 --out bench/results/issue64/turn-depth.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from xenophon.lab.benchmarks import load_positions, position_state
from xenophon.search.bots import ISMCTSBot
from xenophon.search.settings import FUTILE_RULES


def measure(state, futile: str, iterations: int) -> dict[str, float]:
    result = ISMCTSBot(iterations=iterations, seed=1, futile_moves=futile).analyse(state)
    return {
        "mean_turns": round(result.mean_turns, 4),
        "most_turns": result.most_turns,
        "nodes": result.nodes,
        "root_moves": len(result.moves),
    }


def position_rows(entry: dict, budgets: list[int]) -> list[dict]:
    """The rows of one bench position, each printed as it is measured."""
    state = position_state(entry)
    rows = []
    for iterations in budgets:
        for futile in FUTILE_RULES:
            row = {"game": entry["game"], "stage": entry["stage"], "futile_moves": futile}
            row |= {"iterations": iterations, **measure(state, futile, iterations)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, nargs="+", default=[3000])
    parser.add_argument("--out", help="a JSON file to write the rows to")
    args = parser.parse_args()
    if min(args.iterations) < 1:
        print("--iterations must be at least 1", file=sys.stderr)
        return 2
    rows = [row for entry in load_positions() for row in position_rows(entry, args.iterations)]
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
