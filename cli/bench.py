"""`xenophon bench`: speed and strength against the oracle and OpenSpiel."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

from xenophon.benchmarks import PARTS
from xenophon.cli.common import UsageError, parse_sprt
from xenophon.games import GAMES


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench", help="measure speed and strength against the oracle and OpenSpiel",
        description="Measure, in one run on the positions of src/data/bench_positions.json: the C "
                    "core against the Python oracle (actions/s), xenophon's ISMCTS against "
                    "OpenSpiel's C++ and Python ISMCTS (iterations/s, bytes/node), and "
                    "matches against OpenSpiel's C++ ISMCTS at equal iterations and at equal "
                    "time. One table per game. The OpenSpiel parts need "
                    "pip install 'xenophon[openspiel]', g++ and a source checkout; without "
                    "them they are skipped with the reason.")
    parser.add_argument("--game", choices=GAMES, action="append",
                        help="a game to measure (repeat for both; default both)")
    parser.add_argument("--only", choices=PARTS, action="append",
                        help="run only this part (repeatable; default all)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny budgets: checks that everything runs, not the speed")
    parser.add_argument("--iterations", type=int, metavar="N",
                        help="search iterations per position for the speed figures")
    parser.add_argument("--games", type=int, metavar="N", help="games per match (default 200)")
    parser.add_argument("--sprt", metavar="ELO0,ELO1",
                        help="stop a match early on an SPRT decision (alpha = beta = 0.05)")
    parser.add_argument("--match-iterations", type=int, metavar="N",
                        help="iterations per move in the equal-iterations match")
    parser.add_argument("--move-time", type=float, metavar="SECONDS",
                        help="seconds per move in the equal-time match")
    parser.add_argument("--processes", type=int, metavar="N",
                        help="processes playing matches (default: all cores)")
    parser.add_argument("--seed", type=int, help="seed of the searches and matches (default 1)")
    parser.add_argument("--positions", metavar="FILE", help="positions instead of "
                        "src/data/bench_positions.json")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.set_defaults(run=run)


def settings_from(args: argparse.Namespace) -> Any:
    from xenophon.benchmarks import QUICK, Settings
    overrides: dict[str, Any] = {
        "search_iterations": args.iterations, "match_games": args.games,
        "match_iterations": args.match_iterations, "move_time": args.move_time,
        "processes": args.processes, "seed": args.seed,
        "sprt": parse_sprt(args.sprt) if args.sprt else None,
    }
    for option, value, least in (("--iterations", args.iterations, 1), ("--games", args.games, 2),
                                 ("--match-iterations", args.match_iterations, 1),
                                 ("--processes", args.processes, 1)):
        if value is not None and value < least:
            raise UsageError(f"{option} must be at least {least}")
    if args.move_time is not None and args.move_time <= 0:
        raise UsageError("--move-time must be positive")
    base = QUICK if args.quick else Settings()
    return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})


def run(args: argparse.Namespace) -> int:
    from xenophon import benchmarks
    settings = settings_from(args)
    games = tuple(dict.fromkeys(args.game or GAMES))
    parts = tuple(dict.fromkeys(args.only or PARTS))
    results = benchmarks.run(games, settings, parts, positions=args.positions,
                             command=" ".join(["xenophon", *sys.argv[1:]]))
    print(benchmarks.format_tables(results), end="")
    if args.json:
        temporary = f"{args.json}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
        os.replace(temporary, args.json)
        print(f"written to {args.json}")
    return 0
