"""`xenophon match`: a tournament between two bots."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xenophon.cli.common import (
    add_cluster_arguments,
    add_force_argument,
    add_results_arguments,
    backend_from,
    check_resume,
    game_spec_help,
    parse_sprt,
    whole_number,
)
from xenophon.kernel.files import check_output
from xenophon.kernel.registry import GAMES, SpecError, spec_files
from xenophon.lab.dealbook import read_book
from xenophon.lab.jobs import results_config
from xenophon.lab.tournament import (
    MAX_GAMES,
    SPRT_SCALES,
    joined_report,
    play_match,
    pooled_report,
)
from xenophon.play.external import is_external
from xenophon.play.referee import secret_deal_seed

BOT_HELP = (
    "a bot spec: random, greedy, ismcts:iterations=2000, ismcts:time=0.5 (a time alone: "
    "that time only), pimc:worlds=8,iterations=2000, cheat:iterations=2000; settings "
    "and their ranges in docs/search.md; or your own player: cmd:PROGRAM ARGS, "
    "python:MODULE:CLASS (docs/players.md)"
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "match",
        help="play two bots against each other",
        description="Play N games between two bots, each deal from both seats, on all "
        "cores or a Ray cluster; report score, Wilson and paired-deal 95% "
        "intervals, Elo difference and the Elo within a deal of the deal-effect fit.",
    )
    parser.add_argument("bot_a", help=BOT_HELP)
    parser.add_argument("bot_b", help="the other bot's spec")
    parser.add_argument("--game", default=GAMES[0], help=game_spec_help(default=GAMES[0]))
    parser.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES),
        default=200,
        help=f"games to play (1 to {MAX_GAMES:,}; default 200); with --sprt, the cap",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the first deal (default 1; with a player program, drawn from the "
        "operating system, so that the program cannot replay the deals)",
    )
    parser.add_argument(
        "--book",
        metavar="FILE",
        help="play the deals of a deal book (bench/deal_book.py makes one) in its "
        "order instead of --seed's, at most --games games",
    )
    parser.add_argument(
        "--bot-salt",
        type=whole_number(0, 2**31),
        default=0,
        help="seed the bots otherwise (default 0: from the deal's seed), e.g. for an "
        "A/A check on the book a bot screened",
    )
    add_cluster_arguments(parser)
    parser.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        type=parse_sprt,
        help="stop early (or at --games) on a decision of the generalized SPRT on "
        "the pentanomial counts (Fishtest's) between two Elo differences within a "
        "deal, ELO0 below ELO1 (alpha = beta = 0.05)",
    )
    parser.add_argument(
        "--sprt-scale",
        choices=SPRT_SCALES,
        default="deal",
        help="what --sprt's Elo are: within a deal (the deal-effect fit's, default) "
        "or logistic Elo of the mean score (Fishtest's)",
    )
    parser.add_argument(
        "--sprt-after",
        metavar="FILE",
        action="append",
        help="carry on the --sprt test of earlier runs of the same two bots on other "
        "deals (their --results files; repeat for several): their complete deals "
        "count first, so a test that reached its cap goes on deciding on new deals; "
        "the report adds a line of all the games",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the games and summary as JSON (checked before the first game)",
    )
    add_results_arguments(parser)
    add_force_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_resume(args)
    if args.json:
        check_output(
            args.json,
            force=args.force,
            inputs=[
                *spec_files(args.game),
                *([args.results] if args.results else []),
                *([args.book] if args.book else []),
                *(args.sprt_after or []),
            ],
            what="match report",
        )
    sprt = (*args.sprt, 0.05, 0.05) if args.sprt else None
    book = None
    if args.book:
        if args.seed is not None:
            raise SpecError("--seed and --book: the book gives the deals")
        book = read_book(args.book, args.game).deals
    secret = book is None and args.seed is None and plays_a_program(args)
    seed = secret_first_deal(args) if secret else 1 if args.seed is None else args.seed
    report = play_match(
        args.game,
        args.bot_a,
        args.bot_b,
        games=args.games,
        seed=seed,
        processes=args.processes,
        sprt=sprt,
        backend=backend_from(args),
        results=args.results,
        resume=args.resume,
        force=args.force,
        sprt_scale=args.sprt_scale,
        book=book,
        salt=args.bot_salt,
        sprt_after=args.sprt_after,
    )
    print(report.text())
    if secret:
        print(
            f"a player program played: the deals were drawn from the operating system, the "
            f"first is {seed} (--seed {seed} plays them again)"
        )
    if args.sprt_after:
        joined = joined_report(pooled_report(args.sprt_after), report)
        print("with the earlier runs: " + joined.text())
    if args.json:
        report.write_json(args.json)
        print(f"written to {args.json}")
    return 0


def plays_a_program(args: argparse.Namespace) -> bool:
    return any(is_external(spec) for spec in (args.bot_a, args.bot_b))


def secret_first_deal(args: argparse.Namespace) -> int:
    """The first deal of a match against a player program given no --seed: a
    secret from the operating system, so that the program cannot replay the
    deals; on --resume, the one its results file was started with."""
    if args.resume and Path(args.results).exists():
        seed = results_config(args.results, "match").get("seed")
        if isinstance(seed, int):
            return seed
    return secret_deal_seed()
