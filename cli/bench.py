"""`xenophon bench`: speed and strength against the oracle and OpenSpiel."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from xenophon.cli.common import (
    UsageError,
    add_cluster_arguments,
    add_force_argument,
    parse_sprt,
    real_number,
    whole_number,
)
from xenophon.kernel.files import check_output, write_atomic
from xenophon.kernel.registry import GAMES
from xenophon.lab import benchmarks
from xenophon.lab.benchmarks import PARTS, POSITIONS_FILE, QUICK, Settings
from xenophon.lab.jobs import LOCAL
from xenophon.lab.tournament import MAX_GAMES
from xenophon.search.bots import MAX_ITERATIONS, MAX_SECONDS

MAX_ROUNDS = 99


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "bench",
        help="measure speed and strength against the oracle and OpenSpiel",
        description="Measure, in one run on the positions of src/data/bench_positions.json: the C "
        "core against the Python oracle (actions/s), xenophon's ISMCTS against "
        "OpenSpiel's C++ and Python ISMCTS (iterations/s, bytes/node), and "
        "matches against OpenSpiel's C++ ISMCTS at equal iterations and at equal "
        "time. One table per game. The OpenSpiel parts need "
        "pip install 'xenophon[openspiel]', g++ and a source checkout; without "
        "them they are skipped with the reason.",
    )
    parser.add_argument(
        "--game",
        choices=GAMES,
        action="append",
        help="a game to measure (repeat for both; default both)",
    )
    parser.add_argument(
        "--only",
        choices=PARTS,
        action="append",
        help="run only this part (repeatable; default all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny budgets: checks that everything runs, not the speed",
    )
    iterations = whole_number(1, MAX_ITERATIONS)
    parser.add_argument(
        "--iterations",
        type=iterations,
        metavar="N",
        help=f"search iterations per position for the speed figures (1 to {MAX_ITERATIONS:,})",
    )
    parser.add_argument(
        "--rounds",
        type=whole_number(1, MAX_ROUNDS),
        metavar="N",
        help="times each C++ search of the speed figures runs, ours and "
        "OpenSpiel's taking turns; the medians are compared (1 to "
        f"{MAX_ROUNDS}; default 1)",
    )
    parser.add_argument(
        "--games",
        type=whole_number(2, MAX_GAMES),
        metavar="N",
        help=f"games per match (2 to {MAX_GAMES:,}; default 200)",
    )
    parser.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        type=parse_sprt,
        help="stop a match early on an SPRT decision between two Elo "
        "differences, ELO0 below ELO1 (alpha = beta = 0.05)",
    )
    parser.add_argument(
        "--match-iterations",
        type=iterations,
        metavar="N",
        help=f"iterations per move in the equal-iterations match (1 to {MAX_ITERATIONS:,})",
    )
    parser.add_argument(
        "--move-time",
        type=real_number(0, MAX_SECONDS, above=True),
        metavar="SECONDS",
        help=f"seconds per move in the equal-time match (above 0, at most {MAX_SECONDS:g})",
    )
    add_cluster_arguments(parser)
    parser.add_argument("--seed", type=int, help="seed of the searches and matches (default 1)")
    parser.add_argument(
        "--positions", metavar="FILE", help="positions instead of src/data/bench_positions.json"
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write the results as JSON (checked before the run)"
    )
    add_force_argument(parser)
    parser.set_defaults(run=run)


def settings_from(args: argparse.Namespace) -> Any:
    overrides: dict[str, Any] = {
        "search_iterations": args.iterations,
        "rounds": args.rounds,
        "match_games": args.games,
        "match_iterations": args.match_iterations,
        "move_time": args.move_time,
        "processes": args.processes,
        "seed": args.seed,
        "sprt": args.sprt,
        "cluster": None if args.cluster == LOCAL else args.cluster,
    }
    if overrides["cluster"] and args.processes is not None:
        raise UsageError("--processes is for --cluster local (a Ray cluster has its own)")
    base = QUICK if args.quick else Settings()
    return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})


def run(args: argparse.Namespace) -> int:
    if args.json:
        check_output(
            args.json, force=args.force, inputs=[args.positions or POSITIONS_FILE], what="results"
        )
    settings = settings_from(args)
    games = tuple(dict.fromkeys(args.game or GAMES))
    parts = tuple(dict.fromkeys(args.only or PARTS))
    results = benchmarks.run(
        games,
        settings,
        parts,
        positions=args.positions,
        command=" ".join(["xenophon", *sys.argv[1:]]),
    )
    print(benchmarks.format_tables(results), end="")
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=1) + "\n")
        print(f"written to {args.json}")
    return 0
