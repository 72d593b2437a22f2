"""The puzzle suite of issue 47: positions where the exact solver
(`xenophon.search.solver`) proves one move at least 10 points better, in win
probability over the rest of the turn, than a move a search played.

    python bench/puzzles.py harvest GAME --games N --seed S   # append to bench/puzzles/GAME.jsonl
    python bench/puzzles.py --level strong                    # solved counts per game and pattern

A puzzle is one JSON line: the position (its state dict, the truth the
search resamples from the seat's information), the seat, every move's value
from the solver, the move the search played and its budget, the pattern,
and `held_out` (every second puzzle of a file: never used for tuning). A
level solves a puzzle when the move it chooses is less than `MARGIN` below
the best move's value.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.registry import GAMES, make_game
from xenophon.play.levels import bot_for_level
from xenophon.search.bots import ISMCTSBot
from xenophon.search.solver import Budget, solve

FOLDER = Path(__file__).parent / "puzzles"
#: how much better the solver's best move must be than the search's
MARGIN = 0.10
#: the budget of each solve while harvesting (a position it does not finish is skipped)
HARVEST_BUDGET = Budget(seconds=2.0, nodes=40_000)
#: the iterations of the search whose moves are harvested
HARVEST_ITERATIONS = 100
WORLDS = 4


def puzzle_of(state, seat: int, played: str, source: str) -> dict | None:
    """The puzzle of a position, or None when the solver does not finish it
    or the played move is within MARGIN of the best."""
    result = solve(state, seat, worlds=WORLDS, budget=HARVEST_BUDGET)
    if result.exhausted or any(value.win is None for value in result.moves):
        return None
    values = {value.move.text: value.win for value in result.moves}
    best = result.best
    if best.win - values[played] < MARGIN:  # type: ignore[operator]
        return None
    return {
        "game": state.game.name,
        "state": state.to_dict(),
        "seat": seat,
        "turn": state.to_dict()["turn"],
        "values": {text: round(win, 6) for text, win in values.items()},
        "best": best.move.text,
        "exact": best.exact,
        "worlds": result.worlds,
        "played": played,
        "played_by": f"ismcts:iterations={HARVEST_ITERATIONS}",
        "pattern": "harvested",
        "source": source,
    }


def harvest_game(game_name: str, seed: int) -> list[dict]:
    """The puzzles of one self-play game between two small searches."""
    state = make_game(game_name, seed=seed).new_initial_state()
    bots = [ISMCTSBot(iterations=HARVEST_ITERATIONS, seed=seed * 2 + seat) for seat in (0, 1)]
    found = []
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        seat = state.current_player
        move = bots[seat].choose(state)
        if len(state.legal_actions()) > 1:
            puzzle = puzzle_of(state, seat, move.text, f"self-play seed {seed}")
            if puzzle:
                found.append(puzzle)
        state.apply(move)
    return found


def harvest(game_name: str, games: int, seed: int) -> None:
    """Appends the puzzles of `games` self-play games to the game's file,
    game by game (numbered on; every second one held out)."""
    path = FOLDER / f"{game_name}.jsonl"
    FOLDER.mkdir(exist_ok=True)
    count = len(load(game_name))
    for game_seed in range(seed, seed + games):
        lines = []
        for puzzle in harvest_game(game_name, game_seed):
            puzzle["id"] = f"{game_name}-{count + 1}"
            puzzle["held_out"] = count % 2 == 1
            count += 1
            lines.append(json.dumps(puzzle, sort_keys=True) + "\n")
        with path.open("a") as out:
            out.writelines(lines)
        print(f"{game_name} seed {game_seed}: {count} puzzles", file=sys.stderr, flush=True)


def load(game_name: str) -> list[dict]:
    path = FOLDER / f"{game_name}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def position(puzzle: dict):
    """The puzzle's position, or None when the core's state reader does not
    take its dict (a position inside a battle's windows)."""
    try:
        return make_game(puzzle["game"]).state_from_dict(puzzle["state"])
    except XenophonError:
        return None


def solved(state, puzzle: dict, level: str, seed: int) -> bool:
    move = bot_for_level(level, seed).choose(state)
    values = puzzle["values"]
    return values[puzzle["best"]] - values[move.text] < MARGIN


def measure(level: str, seed: int, held_out_only: bool) -> None:
    print(f"level {level}: puzzles solved (a move within {MARGIN:.0%} of the best)")
    for game_name in GAMES:
        counts: Counter = Counter()
        for puzzle in load(game_name):
            if held_out_only and not puzzle["held_out"]:
                continue
            state = position(puzzle)
            if state is None:
                counts["unreadable"] += 1
                continue
            part = "held-out" if puzzle["held_out"] else "open"
            counts[(puzzle["pattern"], part, "all")] += 1
            if solved(state, puzzle, level, seed):
                counts[(puzzle["pattern"], part, "solved")] += 1
        unreadable = counts.pop("unreadable", 0)
        if unreadable:
            print(f"  {game_name}: {unreadable} puzzles whose position the state reader refuses")
        patterns = sorted({pattern for pattern, _, _ in counts})
        if not patterns:
            print(f"  {game_name}: no puzzles")
        for pattern in patterns:
            for part in ("held-out",) if held_out_only else ("open", "held-out"):
                total = counts[(pattern, part, "all")]
                print(
                    f"  {game_name} {pattern} {part}: {counts[(pattern, part, 'solved')]}/{total}"
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", choices=("harvest",), help="harvest puzzles")
    parser.add_argument("game", nargs="?", choices=GAMES)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", default="strong", help="the level measured (default strong)")
    parser.add_argument("--held-out", action="store_true", help="measure the held-out half only")
    args = parser.parse_args()
    if args.command == "harvest":
        if args.game is None:
            parser.error("harvest needs a game")
        harvest(args.game, args.games, args.seed)
        return 0
    measure(args.level, args.seed, args.held_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
