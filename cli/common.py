"""Pieces every command shares: game options, AI levels, output helpers."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game
from xenophon.kernel.plugin import CliFlag, plugins
from xenophon.kernel.registry import GAME_OPTIONS, GAMES, game_from_texts
from xenophon.lab.jobs import LOCAL, make_backend
from xenophon.lab.tournament import MAX_PROCESSES, check_sprt
from xenophon.search.bots import MAX_WORKERS


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
        if (
            value != value
            or not low_ok
            or (most is not None and value > most)
            or value in (float("inf"), float("-inf"))
        ):
            low = f"above {least:g}" if above else f"at least {least:g}"
            span = f"{low} and at most {most:g}" if most is not None else low
            raise argparse.ArgumentTypeError(f"{text} is out of range (must be {span})")
        return value

    return parse


#: the flag of the option every game takes (a game's own flags are its plugin's)
CARDS_FLAG = CliFlag("cards", "a card file instead of the reference set", metavar="FILE")


def game_flags() -> list[CliFlag]:
    """The flag of every game option, in the order the games list them."""
    flags = {CARDS_FLAG.option: CARDS_FLAG}
    for plugin in plugins():
        flags.update({flag.option: flag for flag in plugin.cli_flags})
    options = dict.fromkeys(option for plugin in plugins() for option in plugin.options)
    return [flags[option] for option in options]


def add_game_arguments(parser: argparse.ArgumentParser, game_positional: bool = True) -> None:
    if game_positional:
        parser.add_argument("game", choices=GAMES, help="which game")
    for flag in game_flags():
        parser.add_argument(
            f"--{flag.option}", choices=flag.choices, metavar=flag.metavar, help=flag.help
        )
    parser.add_argument("--seed", type=int, help="seed of the game's chance (default: random)")


def game_from_arguments(args: argparse.Namespace, seed: int | None) -> Game:
    """The game the command line names, with the flags of its options (each
    refused for a game that has no such option)."""
    flags = game_flags()
    given = {
        flag.option: getattr(args, flag.option)
        for flag in flags
        if getattr(args, flag.option) is not None
    }
    for option in given:
        if option not in GAME_OPTIONS[args.game]:
            owner = next(name for name in GAMES if option in GAME_OPTIONS[name])
            raise UsageError(f"--{option} is for {owner}")
    for flag in flags:
        if flag.option in given and flag.check is not None:
            try:
                flag.check(given[flag.option])
            except ValueError as error:
                raise UsageError(str(error)) from None
    return game_from_texts(args.game, given, seed=seed)


def game_spec_help(default: str | None = None) -> str:
    """How a game spec is written, for a help text ('GAME, GAME:key=value,
    or ...'); with the default game, each game's example too."""
    forms = [form for plugin in plugins() for form in plugin.spec_forms]
    text = ", ".join(forms[:-1]) + ", or " + forms[-1] if len(forms) > 1 else forms[0]
    if default is None:
        return text
    examples = [plugin.spec_example for plugin in plugins() if plugin.spec_example]
    notes = [plugin.spec_example_note for plugin in plugins() if plugin.spec_example_note]
    return (
        text
        + (": " + ", ".join(examples) if examples else "")
        + f" ({'; '.join([*notes, f'default {default}'])})"
    )


def add_workers_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=whole_number(1, MAX_WORKERS),
        default=1,
        help=f"search threads (1 to {MAX_WORKERS}; default 1)",
    )


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
    parser.add_argument(
        "--cluster",
        metavar="WHERE",
        default="local",
        help="local (a process pool on this machine, the default), ray (the "
        "Ray cluster this machine is part of, or a new local one), or a "
        "Ray address such as 10.0.0.5:6379; Ray needs "
        "pip install 'xenophon[cluster]'",
    )
    parser.add_argument(
        "--processes",
        type=whole_number(1, MAX_PROCESSES),
        metavar="N",
        help=f"local processes playing games (1 to {MAX_PROCESSES}; default: all cores)",
    )


def add_results_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        metavar="FILE",
        help="append every finished game to this JSON Lines file as it "
        "arrives (rewritten in order at the end)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run of --results FILE: play only the games it "
        "lacks (the same command and options as the run that made it)",
    )


def backend_from(args: argparse.Namespace) -> Any:
    """The job runner's backend the command line names."""
    if args.cluster != LOCAL and args.processes is not None:
        raise UsageError("--processes is for --cluster local (a Ray cluster has its own)")
    return make_backend(args.cluster, args.processes)


def check_resume(args: argparse.Namespace) -> None:
    if args.resume and not args.results:
        raise UsageError("--resume continues a --results FILE; give it")


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace an output file that exists already (the command's "
        "own input is never replaced)",
    )


def use_color(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def percent(probability: float) -> str:
    return f"{probability * 100:.0f}%"


def percents_apart(probabilities: list[float], most: int = 2) -> list[str]:
    """The probabilities as percentages with as many decimals as tell them
    apart (at most `most`): 27% / 27% / 27% reads 27.4% / 27.1% / 26.9%."""
    for digits in range(most + 1):
        shown = [f"{p * 100:.{digits}f}%" for p in probabilities]
        if len(set(shown)) == len(shown) or digits == most:
            return shown
    raise AssertionError("unreachable")  # the loop returns at digits == most
