"""`xenophon balance`: the win-rate matrix of a game's sides (its decks, or
its seats and modes: what its plugin's balance compares), as a table, JSON
and a heatmap (SVG and PNG)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from xenophon.cli.common import (
    add_cluster_arguments,
    add_force_argument,
    backend_from,
    whole_number,
)
from xenophon.kernel.files import check_output, write_atomic
from xenophon.kernel.plugin import plugins
from xenophon.kernel.registry import GAMES
from xenophon.lab.balance import make_study, matrix, picture, table
from xenophon.lab.jobs import finished_jobs, run_jobs
from xenophon.play.players import make_bot

MAX_DEALS = 100_000
OUTPUTS = {"results": ".jsonl", "matrix": ".json", "svg": ".svg", "png": ".png"}


def _compared() -> str:
    """What each game's matrix compares, the games whose sides meet each
    other first ('decks (GAME) or of seats and modes (GAME)')."""
    ordered = sorted(plugins(), key=lambda plugin: not plugin.balance.matchups)
    return " or of ".join(f"{plugin.balance.compares} ({plugin.name})" for plugin in ordered)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "balance",
        help=f"win-rate matrix of {_compared()}",
        description="Play every pair of sides on the same deals, each deal from both seats, "
        "with one bot for both; write the win-rate matrix with paired-deal 95% "
        "intervals as a table, PREFIX.json, and a heatmap PREFIX.svg and "
        "PREFIX.png; every game goes to PREFIX.jsonl as it finishes (--resume "
        "continues it).",
    )
    parser.add_argument("game", choices=GAMES, help="which game")
    parser.add_argument(
        "--decks",
        metavar="FILE[,FILE...]",
        help="; ".join(
            f"{plugin.name}: {plugin.balance.extra_sides}"
            for plugin in plugins()
            if plugin.balance.extra_sides
        ),
    )
    parser.add_argument(
        "--bot",
        default="ismcts:iterations=200",
        help="the bot playing both sides (default ismcts:iterations=200)",
    )
    parser.add_argument(
        "--deals",
        type=whole_number(1, MAX_DEALS),
        default=50,
        help=f"deals a cell, each played from both seats (1 to {MAX_DEALS:,}; default 50)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first deal (default 1)")
    parser.add_argument(
        "--out",
        metavar="PREFIX",
        help="where the files go (default balance-GAME: balance-GAME.json, .svg, .png, .jsonl)",
    )
    add_cluster_arguments(parser)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run of PREFIX.jsonl: play only the games it lacks",
    )
    add_force_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    make_bot(args.bot, 0)
    decks = [d.strip() for d in args.decks.split(",")] if args.decks else []
    study = make_study(args.game, decks, args.bot, args.deals, args.seed)
    prefix = args.out or f"balance-{args.game}"
    paths = {name: prefix + suffix for name, suffix in OUTPUTS.items()}
    jobs = study.jobs()
    # the pictures of a run this command is resuming are its own to replace
    resumed = args.resume and bool(finished_jobs(paths["results"], "balance", study.config(), jobs))
    for name in ("matrix", "svg", "png"):
        check_output(paths[name], force=args.force or resumed, inputs=decks, what=name)
    backend = backend_from(args)
    run_ = run_jobs(
        jobs,
        paths["results"],
        command="balance",
        config=study.config(),
        backend=backend,
        resume=args.resume,
        force=args.force,
        inputs=decks,
        unit="deal",
    )
    result = matrix(study, jobs, run_)
    print(table(result), end="")
    drawn = picture(result)
    write_atomic(paths["matrix"], json.dumps(result, indent=1) + "\n")
    write_atomic(paths["svg"], drawn.svg())
    write_atomic(paths["png"], drawn.png())
    print("written: " + ", ".join(paths[name] for name in ("matrix", "svg", "png", "results")))
    return 0
