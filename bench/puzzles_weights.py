"""The puzzle suite with one evaluation weights file per game: the solved
counts of `bench/puzzles.py` at a level's budget, each game's search playing
with `eval=learned,weights=FILE` (a file belongs to one game, so the one
`--settings` of bench/puzzles.py cannot name them). `--iterations N` plays
a search of N iterations with no time cap instead of the level's (so a
loaded machine does not change the result).

    python bench/puzzles_weights.py --level strong \\
        --weights anabasis=bench/tune/anabasis-gen1e-weights.json \\
        --weights hero=bench/tune/hero-gen2e-weights.json
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import puzzles  # noqa: E402  (bench/puzzles.py, beside this file)


def is_solved(state, puzzle: dict, level: str, seed: int, settings: str, iterations: int | None):
    if iterations is None:
        return puzzles.solved(state, puzzle, level, seed, settings)
    move = puzzles.make_bot(f"ismcts:iterations={iterations},{settings}", seed).choose(state)
    values = puzzle["values"]
    return values[puzzle["best"]] - values[move.text] < puzzles.MARGIN


def measure(
    level: str, seed: int, weights: dict[str, str], held_out_only: bool, iterations: int | None
) -> None:
    budget = f"{iterations} iterations" if iterations else f"level {level}"
    print(f"{budget}: puzzles solved (a move within {puzzles.MARGIN:.0%} of the best)")
    for game_name, path in weights.items():
        settings = f"eval=learned,weights={path}"
        counts: Counter = Counter()
        for puzzle in puzzles.load(game_name):
            state = puzzles.position(puzzle)
            if state is None or (held_out_only and not puzzle["held_out"]):
                continue
            part = "held-out" if puzzle["held_out"] else "open"
            counts[(part, "all")] += 1
            counts[(part, "solved")] += is_solved(state, puzzle, level, seed, settings, iterations)
        for part in ("open", "held-out"):
            if counts[(part, "all")]:
                won, total = counts[(part, "solved")], counts[(part, "all")]
                print(f"  {game_name} {path} {part}: {won}/{total}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="strong")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, help="N iterations, no time cap, not the level")
    parser.add_argument("--held-out", action="store_true", help="the held-out half only")
    parser.add_argument("--weights", action="append", required=True, help="GAME=FILE (repeatable)")
    args = parser.parse_args()
    weights = {}
    for given in args.weights:
        game_name, _, path = given.partition("=")
        if game_name not in puzzles.GAMES or not path:
            parser.error(
                f"--weights {given!r}: expected GAME=FILE with GAME one of {puzzles.GAMES}"
            )
        weights[game_name] = path
    measure(args.level, args.seed, weights, args.held_out, args.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
