"""Does every root move of a large search gain visits? Issue 47's target:
every root move of a 200,000-iteration search has more visits than at
20,000 (no move frozen), on the hand-built Catapult-and-Rally position and
the puzzles whose best move the solver separates from the second by 10
points or more (bench/puzzles/).

    python bench/root_growth.py "ismcts:root_policy=uct" "ismcts:root_policy=auto"

For each spec and position (seed 0): the moves that gained no visit from
the small budget to the large one, and the move chosen at each budget with
the solver's verdict (best, or within 10 points of it: "right").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from puzzles import GAMES, MARGIN, catapult_rally_position, load, position, separated  # noqa: E402
from xenophon.play.players import make_bot  # noqa: E402

SMALL, LARGE = 20_000, 200_000


def positions():
    """(name, state, solver values) of the measured positions."""
    for game_name in GAMES:
        for puzzle in load(game_name):
            state = position(puzzle)
            if state is not None and (
                separated(puzzle) or puzzle["source"] == catapult_rally_position.__name__
            ):
                yield puzzle["id"], state, puzzle["values"]


def root_visits(spec: str, state, iterations: int, seed: int):
    joiner = "," if ":" in spec else ":"
    result = make_bot(f"{spec}{joiner}iterations={iterations}", seed=seed).analyse(state)
    return {m.move.text: m.visits for m in result.moves}, result.best.move.text


def verdict(values: dict[str, float], text: str) -> str:
    """'right' when the move is within MARGIN of the solver's best, else 'wrong'."""
    return "right" if max(values.values()) - values[text] < MARGIN else "wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="bot specs, e.g. 'ismcts:root_policy=auto'")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for spec in args.specs:
        start = time.perf_counter()
        all_grew = 0
        measured = list(positions())
        for name, state, values in measured:
            small, chosen_small = root_visits(spec, state, SMALL, args.seed)
            large, chosen_large = root_visits(spec, state, LARGE, args.seed)
            frozen = [text for text in small if large[text] <= small[text]]
            all_grew += not frozen
            print(
                f"{spec} {name}: {len(frozen)}/{len(small)} moves frozen; "
                f"{SMALL:,}: {chosen_small} ({verdict(values, chosen_small)}), "
                f"{LARGE:,}: {chosen_large} ({verdict(values, chosen_large)})"
            )
        print(
            f"{spec}: every move gained visits in {all_grew}/{len(measured)} positions "
            f"({time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
