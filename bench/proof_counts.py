"""How often a search proves its move (issue 47): self-play games between two
copies of a bot, counting the decisions whose move was proven by the exact
solver at the root (`root_solver`) or in the tree (`solver`).

    python bench/proof_counts.py anabasis --games 6 \
        --bot "ismcts:iterations=2000,solver=true,root_solver=true"
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from xenophon.kernel.registry import GAMES, make_game
from xenophon.play.players import make_bot


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--bot", default="ismcts:iterations=2000,solver=true,root_solver=true")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    counts = count(args.game, args.bot, args.games, args.seed)
    print(f"{args.game} {args.bot}: {dict(counts)} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
