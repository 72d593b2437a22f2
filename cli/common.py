"""Pieces every command shares: game options, AI levels, output helpers."""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.registry import GAME_OPTIONS, GAMES, game_from_texts
from xenophon.kernel.game import Game
from xenophon.search.bots import MAX_WORKERS
from xenophon.lab.tournament import MAX_PROCESSES, check_sprt



class UsageError(XenophonError):
    """A command line that cannot be carried out as written."""


def whole_number(least: int, most: int | None = None):
    """An argparse type: a whole number from `least` to `most` (one clear line
    from the parser otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if value < least or (most is not None and value > most):
            span = f"from {least:,} to {most:,}" if most is not None else f"at least {least:,}"
            raise argparse.ArgumentTypeError(f"{value:,} is out of range (must be {span})")
        return value
    return parse


def real_number(least: float, most: float | None = None, *, above: bool = False):
    """An argparse type: a finite number at least (or, with `above`, above)
    `least` and at most `most`."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        low_ok = value > least if above else value >= least
        if value != value or not low_ok or (most is not None and value > most) \
                or value in (float("inf"), float("-inf")):
            low = f"above {least:g}" if above else f"at least {least:g}"
            span = f"{low} and at most {most:g}" if most is not None else low
            raise argparse.ArgumentTypeError(f"{text} is out of range (must be {span})")
        return value
    return parse


def add_game_arguments(parser: argparse.ArgumentParser, game_positional: bool = True) -> None:
    if game_positional:
        parser.add_argument("game", choices=GAMES, help="which game")
    parser.add_argument("--mode", choices=("standard", "expert"),
                        help="Anabasis mode (default standard)")
    parser.add_argument("--cards", metavar="FILE", help="a card file instead of the reference set")
    parser.add_argument("--decks", metavar="DECK0,DECK1",
                        help="Hero decks for seat 0 and seat 1: prebuilt names "
                             "(crimson_conqueror, wild_grove) or deck files")
    parser.add_argument("--seed", type=int, help="seed of the game's chance (default: random)")


def game_from_arguments(args: argparse.Namespace, seed: int | None) -> Game:
    """The game the command line names, with --mode, --decks and --cards
    (each refused for a game that has no such option)."""
    flags = {"mode": args.mode, "decks": args.decks, "cards": args.cards}
    given = {option: text for option, text in flags.items() if text is not None}
    for option in given:
        if option not in GAME_OPTIONS[args.game]:
            owner = next(name for name in GAMES if option in GAME_OPTIONS[name])
            raise UsageError(f"--{option} is for {owner}")
    if "decks" in given and len(re.split(r"[+,]", given["decks"])) != 2:
        raise UsageError("--decks takes two decks separated by a comma")
    return game_from_texts(args.game, given, seed=seed)


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=1,
                        help=f"search threads (1 to {MAX_WORKERS}; default 1)")


def parse_sprt(text: str) -> tuple[float, float]:
    """The argparse type of --sprt: 'ELO0,ELO1' -> (elo0, elo1), finite, each
    within the cap and elo0 below elo1."""
    try:
        elo0, elo1 = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': give two Elo values, e.g. 0,20") from None
    try:
        check_sprt(elo0, elo1)
    except XenophonError as error:
        raise argparse.ArgumentTypeError(f"'{text}': {error}") from None
    return elo0, elo1


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a bulk command plays its games (`xenophon.lab.jobs`)."""
    parser.add_argument("--cluster", metavar="WHERE", default="local",
                        help="local (a process pool on this machine, the default), ray (the "
                             "Ray cluster this machine is part of, or a new local one), or a "
                             "Ray address such as 10.0.0.5:6379; Ray needs "
                             "pip install 'xenophon[cluster]'")
    parser.add_argument("--processes", type=whole_number(1, MAX_PROCESSES), metavar="N",
                        help=f"local processes playing games (1 to {MAX_PROCESSES}; default: "
                             "all cores)")


def add_results_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", metavar="FILE",
                        help="append every finished game to this JSON Lines file as it "
                             "arrives (rewritten in order at the end)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run of --results FILE: play only the games it "
                             "lacks (the same command and options as the run that made it)")


def backend_from(args: argparse.Namespace) -> Any:
    """The job runner's backend the command line names."""
    from xenophon.lab.jobs import LOCAL, make_backend
    if args.cluster != LOCAL and args.processes is not None:
        raise UsageError("--processes is for --cluster local (a Ray cluster has its own)")
    return make_backend(args.cluster, args.processes)


def check_resume(args: argparse.Namespace) -> None:
    if args.resume and not args.results:
        raise UsageError("--resume continues a --results FILE; give it")


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="replace an output file that exists already (the command's "
                             "own input is never replaced)")


def use_color(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def percent(probability: float) -> str:
    return f"{probability * 100:.0f}%"
