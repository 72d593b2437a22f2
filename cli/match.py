"""`xenophon match`: a tournament between two bots."""
from __future__ import annotations

import argparse
from typing import Any

from xenophon.cli.common import parse_sprt
from xenophon.search.tournament import play_match


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "match", help="play two bots against each other",
        description="Play N games between two bots, seats alternated, on all cores; report "
                    "score, Wilson 95% interval and Elo difference.")
    parser.add_argument("bot_a", help="e.g. ismcts:iterations=2000, pimc:worlds=8, greedy, random")
    parser.add_argument("bot_b")
    parser.add_argument("--game", default="anabasis",
                        help="anabasis, anabasis:mode=expert, hero, hero:decks=... ")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=None, help="default: all cores")
    parser.add_argument("--sprt", metavar="ELO0,ELO1", help="stop early on an SPRT decision "
                        "(alpha = beta = 0.05)")
    parser.add_argument("--json", metavar="FILE", help="write the games and summary as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    sprt = (*parse_sprt(args.sprt), 0.05, 0.05) if args.sprt else None
    report = play_match(args.game, args.bot_a, args.bot_b, games=args.games, seed=args.seed,
                        processes=args.processes, sprt=sprt)
    print(report.text())
    if args.json:
        report.write_json(args.json)
        print(f"written to {args.json}")
    return 0
