"""The strength ladder of docs/lab/strength-log.md: ISMCTS at 2,000 iterations a
decision against random, greedy, PIMC (equal iterations), itself at 4x, and
the cheating reference, for each game; seats alternated, 200 games a pairing.

    python bench/strength.py [--games 200] [--game anabasis] [--out results.json]
"""

import argparse
import json
import time

from xenophon.lab.tournament import play_match

ISMCTS = "ismcts:iterations=2000"
PAIRINGS = [
    (ISMCTS, "random"),
    (ISMCTS, "greedy"),
    (ISMCTS, "pimc:iterations=2000,worlds=8"),
    ("ismcts:iterations=8000", ISMCTS),
    (ISMCTS, "cheat:iterations=2000"),
]
GAMES = ("anabasis", "hero")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--game", choices=GAMES, action="append")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="strength.json")
    args = parser.parse_args()
    rows = []
    for game in args.game or GAMES:
        for bot_a, bot_b in PAIRINGS:
            start = time.time()
            report = play_match(game, bot_a, bot_b, games=args.games, seed=args.seed)
            rows.append({**report.summary(), "seconds": round(time.time() - start)})
            print(report.text(), flush=True)
            with open(args.out, "w", encoding="utf-8") as handle:
                json.dump(rows, handle, indent=1)
    print("\n| game | pairing | games | score | 95% interval | Elo |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['game']} | {r['bot_a']} vs {r['bot_b']} | {r['games']} | {r['score']:.1%} "
            f"| {r['interval95'][0]:.1%} – {r['interval95'][1]:.1%} | {r['elo']:+.0f} |"
        )


if __name__ == "__main__":
    main()
