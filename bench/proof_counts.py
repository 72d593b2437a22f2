"""How often a search proves its move (issue 47): self-play games between two
copies of a bot, counting the decisions whose move was proven by the exact
solver at the root (`root_solver`) or in the tree (`solver`); or, with
`--puzzles N`, the puzzle suite's positions (bench/puzzles/) searched at N
iterations with neither setting, with each and with the root solver: the
moves chosen, whether they differ, and the puzzles solved; or, with
`--replay RESULTS`, the games of a match's results file (`xenophon match
--results`) played again as the match played them, counting the proofs of
each game and checking that it ends as it did.

    python bench/proof_counts.py anabasis --games 6 \
        --bot "ismcts:iterations=2000,solver=true,root_solver=true"
    python bench/proof_counts.py --puzzles 10000
    python bench/proof_counts.py --replay bench/results/issue47-root-solver-anabasis.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from puzzles import MARGIN, load, position  # noqa: E402
from xenophon.kernel.registry import GAMES, game_from_spec, make_game  # noqa: E402
from xenophon.lab.tournament import bot_seed, play_out  # noqa: E402
from xenophon.play.players import make_bot  # noqa: E402
from xenophon.search.bots import ISMCTSBot  # noqa: E402

#: the settings compared on the puzzles (--puzzles)
VARIANTS = {"default": {}, "solver": {"solver": True}, "root_solver": {"root_solver": True}}


def count(game_name: str, spec: str, games: int, seed: int) -> Counter:
    counts: Counter = Counter()
    for game in range(seed, seed + games):
        state = make_game(game_name, seed=game).new_initial_state()
        bots = [make_bot(spec, game * 2 + seat) for seat in (0, 1)]
        rng = random.Random(game)
        while not state.is_terminal():
            if state.is_chance():
                state.apply_code(state.sample_chance(rng).code)
                continue
            bot = bots[state.current_player]
            result = bot.analyse(state)
            counts["decisions"] += 1
            if result.proven:
                kind = "root solver" if result.iterations == 0 else "tree"
                counts[f"proven ({kind})"] += 1
            state.apply_code(bot.choose_from(result).code)
        counts["games"] += 1
    return counts


def compare_on_puzzles(iterations: int) -> None:
    """Each puzzle searched (seed 0) with each of VARIANTS at `iterations`."""
    for game_name in GAMES:
        counts: Counter = Counter()
        for puzzle in load(game_name):
            state = position(puzzle)
            if state is None:
                continue
            counts["puzzles"] += 1
            results = {
                name: ISMCTSBot(iterations=iterations, seed=0, **settings).analyse(state)
                for name, settings in VARIANTS.items()
            }
            chosen = {name: result.best.move.text for name, result in results.items()}
            counts["proven"] += sum(result.proven for result in results.values())
            if len(set(chosen.values())) > 1:
                print(f"  {puzzle['id']}: {chosen}")
            else:
                counts["same move"] += 1
            for name, text in chosen.items():
                values = puzzle["values"]
                counts[f"solved ({name})"] += values[puzzle["best"]] - values[text] < MARGIN
        print(f"{game_name}, {iterations:,} iterations: {dict(counts)}", flush=True)


def counted(bot, proofs: list) -> None:
    """Makes `bot` note each proven result of its searches in `proofs`."""
    analyse = bot.analyse

    def analyse_and_count(state, *args, **kwargs):
        result = analyse(state, *args, **kwargs)
        if result.proven:
            proofs.append(f"turn {state.to_dict()['turn']}: {result.best.move.text}")
        return result

    bot.analyse = analyse_and_count


def replay(path: str) -> None:
    """The games of a match's results file, each played again (bot A seeded
    as the match seeds it, chance from the deal's seed)."""
    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    config = lines[0]["config"]
    specs = (config["bot_a"], config["bot_b"])
    totals: Counter = Counter()
    for game in lines[1:]:
        seed, a_seat = game["seed"], game["first_seat_of_a"]
        proofs: list[str] = []
        players: list = [None, None]
        base = bot_seed(seed, config.get("salt", 0))
        players[a_seat] = make_bot(specs[0], base * 2 + 1)
        players[1 - a_seat] = make_bot(specs[1], base * 2 + 2)
        for player in players:
            if hasattr(player, "analyse"):
                counted(player, proofs)
        record = play_out(game_from_spec(config["game"], seed=seed), players, seed, a_seat)
        same = list(record.returns) == game["returns"]
        totals["games"] += 1
        totals["ended as in the match"] += same
        totals["games with a proof"] += bool(proofs)
        print(
            f"deal {seed}, bot A in seat {a_seat}: same result {same}, proofs {proofs}", flush=True
        )
    print(dict(totals))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", choices=GAMES)
    parser.add_argument("--bot", default="ismcts:iterations=2000,solver=true,root_solver=true")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--puzzles", type=int, metavar="N", help="compare on the puzzles at N")
    parser.add_argument("--replay", metavar="RESULTS", help="a match's results file to replay")
    args = parser.parse_args()
    if args.replay:
        replay(args.replay)
        return 0
    if args.puzzles:
        compare_on_puzzles(args.puzzles)
        return 0
    if args.game is None:
        parser.error("give a game, or --puzzles N")
    start = time.perf_counter()
    counts = count(args.game, args.bot, args.games, args.seed)
    print(f"{args.game} {args.bot}: {dict(counts)} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
