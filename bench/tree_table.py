"""The tables of docs/lab/strength-log.md "The tree" and "The root": one row per
match file bench/results/PREFIX*.json (written by `xenophon match --json`),
PREFIX `tree-` unless given.

    python bench/tree_table.py
    python bench/tree_table.py root-
"""

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def row(summary: dict) -> str:
    low, high = summary["paired_interval95"]
    elo_low, elo_high = summary["elo_interval95"]
    return (
        f"| {summary['game']} | `{summary['bot_a']}` | `{summary['bot_b']}` | "
        f"{summary['pairs']} | {summary['wins']}-{summary['draws']}-{summary['losses']} | "
        f"{summary['score']:.1%} | {low:.1%} – {high:.1%} | {summary['elo']:+.0f} "
        f"({elo_low:+.0f} to {elo_high:+.0f}) |"
    )


def main() -> None:
    prefix = sys.argv[1] if len(sys.argv) > 1 else "tree-"
    print("| game | bot A | bot B | deals | W-D-L | score | paired 95% interval | Elo (95%) |")
    print("|---|---|---|---|---|---|---|---|")
    for path in sorted(RESULTS.glob(f"{prefix}*.json")):
        print(row(json.loads(path.read_text())["summary"]))


if __name__ == "__main__":
    main()
