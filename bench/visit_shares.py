"""Root visit shares of a search as its budget grows: does it keep exploring
the moves it is not playing, or lock in on the first that got ahead?

For each bot spec, 20 positions of each game (deal seeds 1 to 20, after 0 to
32 random decisions, fixed seeds) are searched at 500, 2,000, 8,000 and
32,000 iterations; the most visited move's share, the effective number of
moves (1 / the sum of squared shares) and the share of the other moves that
gained no visit between 8,000 and 32,000 iterations are written per position
and summed up. Then the Hero opening of deal 1 is searched with 20 search
seeds at 32,000 iterations: how often each move is chosen (a search that
locks in picks whichever move got ahead first).

    python bench/visit_shares.py --out bench/results/visit-shares.json \\
        "ismcts:preset=v1" "ismcts:transpositions=1"
    python bench/visit_shares.py --table bench/results/visit-shares.json
"""

import argparse
import json
import random
import statistics
import time
from collections import Counter

from xenophon.kernel.registry import make_game
from xenophon.play.players import make_bot

BUDGETS = (500, 2000, 8000, 32000)
POSITIONS = 20
SEEDS = 20
GAMES = ("anabasis", "hero")


def position(game_name: str, deal: int):
    """Deal `deal` of the game after (deal % 5) * 8 random decisions, chance
    drawn with its true odds (deal 1 after none: an opening)."""
    rng = random.Random(deal)
    state = make_game(game_name, seed=deal).new_initial_state()
    state.resolve_chance(rng)
    for _ in range(((deal - 1) % 5) * 8):
        if state.is_terminal():
            break
        state.apply_code(rng.choice(state.legal_moves()).code)
        state.resolve_chance(rng)
    return state


def root_visits(spec: str, state, iterations: int, seed: int) -> dict[str, int]:
    joiner = "," if ":" in spec else ":"
    bot = make_bot(f"{spec}{joiner}iterations={iterations}", seed=seed)
    return {m.move.text: m.visits for m in bot.analyse(state).moves}


def shares_summary(visits: dict[str, int]) -> tuple[float, float]:
    """The top move's share and the effective number of moves."""
    total = sum(visits.values())
    shares = [v / total for v in visits.values()]
    return max(shares), 1 / sum(s * s for s in shares)


def frozen_share(before: dict[str, int], after: dict[str, int]) -> float:
    """Of the moves other than the most visited, the share that gained no visit."""
    top = max(after, key=after.get)
    others = [move for move in after if move != top]
    return sum(after[m] == before.get(m, 0) for m in others) / len(others) if others else 0.0


def positions_of(spec: str, game_name: str) -> list[dict]:
    rows = []
    for deal in range(1, POSITIONS + 1):
        state = position(game_name, deal)
        if state.is_terminal() or len(state.legal_moves()) < 2:
            continue
        by_budget = {n: root_visits(spec, state, n, seed=deal) for n in BUDGETS}
        row = {"deal": deal, "moves": len(state.legal_moves()), "visits": by_budget}
        for n in BUDGETS:
            row[f"top_share_{n}"], row[f"effective_moves_{n}"] = shares_summary(by_budget[n])
        row["frozen_8000_32000"] = frozen_share(by_budget[8000], by_budget[32000])
        rows.append(row)
    return rows


def seed_choices(spec: str) -> dict[str, int]:
    state = position("hero", 1)
    choices = Counter()
    for seed in range(1, SEEDS + 1):
        visits = root_visits(spec, state, BUDGETS[-1], seed)
        choices[max(visits, key=visits.get)] += 1
    return dict(choices.most_common())


def summary(rows: list[dict]) -> dict:
    out = {}
    for n in BUDGETS:
        out[f"top_share_{n}"] = statistics.mean(r[f"top_share_{n}"] for r in rows)
        out[f"effective_moves_{n}"] = statistics.mean(r[f"effective_moves_{n}"] for r in rows)
    out["frozen_8000_32000"] = statistics.mean(r["frozen_8000_32000"] for r in rows)
    return out


def print_table(path: str) -> None:
    """The markdown table of docs/lab/strength-log.md from a results file."""
    with open(path, encoding="utf-8") as handle:
        results = json.load(handle)
    budgets = ", ".join(f"{n:,}" for n in BUDGETS)
    print(f"| search | game | top share / effective moves at {budgets} | frozen 8k→32k |")
    print("|---|---|---|---|")
    for run in results["runs"]:
        for game_name, data in run["games"].items():
            s = data["summary"]
            cells = ", ".join(
                f"{s[f'top_share_{n}']:.0%} / {s[f'effective_moves_{n}']:.1f}" for n in BUDGETS
            )
            print(f"| `{run['spec']}` | {game_name} | {cells} | {s['frozen_8000_32000']:.0%} |")
    print("\n| search | Hero opening (deal 1), chosen move in 20 seeds at 32,000 iterations |")
    print("|---|---|")
    for run in results["runs"]:
        opening = run["hero_opening_choices"]
        choices = ", ".join(f"{move} {count}" for move, count in opening.items())
        print(f"| `{run['spec']}` | {choices} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="bot specs without an iteration budget")
    parser.add_argument("--out", help="the results file to write")
    parser.add_argument("--table", metavar="FILE", help="print the table of a results file")
    args = parser.parse_args()
    if args.table:
        print_table(args.table)
        return
    if not args.specs or not args.out:
        parser.error("give bot specs and --out (or --table FILE)")
    results = {
        "command": "python bench/visit_shares.py " + " ".join(args.specs),
        "budgets": BUDGETS,
        "runs": [],
    }
    for spec in args.specs:
        start = time.time()
        run = {"spec": spec, "games": {}}
        for game_name in GAMES:
            rows = positions_of(spec, game_name)
            run["games"][game_name] = {"summary": summary(rows), "positions": rows}
            print(spec, game_name, json.dumps(run["games"][game_name]["summary"]), flush=True)
        run["hero_opening_choices"] = seed_choices(spec)
        run["seconds"] = round(time.time() - start)
        print(spec, "hero opening, chosen move by seed:", run["hero_opening_choices"], flush=True)
        results["runs"].append(run)
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
