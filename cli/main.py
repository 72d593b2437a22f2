"""Entry point of the `xenophon` command."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xenophon import __version__
from xenophon.cli import (
    analyse,
    balance,
    bench,
    engine,
    match,
    play,
    records_cmd,
    rules,
    serve,
    train,
    tune,
)
from xenophon.cli import solve as solve_cmd
from xenophon.kernel.errors import XenophonError, one_line
from xenophon.kernel.plugin import game_titles, plugins


class OneLineParser(argparse.ArgumentParser):
    """Reports a bad command line in one line (and the way to get help), and
    takes options only as spelled in full: an abbreviation can stand for an
    option the user did not mean (`selfplay --game GAME` was read as
    `--games GAME`)."""

    #: the subcommands (set by build_parser), to find a command's own parser
    commands: Any

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see '{self.prog} --help')\n")


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="xenophon",
        description=f"AI opponent, move adviser and benchmark tool for {game_titles('and')}.",
    )
    parser.add_argument("--version", action="version", version=f"xenophon {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = commands
    play.add_parser(commands)
    play.add_learn_parser(commands)
    rules.add_parser(commands)
    analyse.add_parsers(commands)
    solve_cmd.add_parser(commands)
    records_cmd.add_parsers(commands)
    match.add_parser(commands)
    balance.add_parser(commands)
    engine.add_parser(commands)
    bench.add_parser(commands)
    tune.add_parser(commands)
    train.add_parser(commands)
    serve.add_parser(commands)
    return parser


def parser_of(parser: OneLineParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of `command` (the whole command line's parser without one)."""
    return parser.commands.choices.get(command, parser) if command else parser


def main(argv: list[str] | None = None) -> int:
    # a file name from the system may hold undecodable bytes (surrogate escapes):
    # printed escaped rather than ending in UnicodeEncodeError
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        # reported by the command's own parser, so the line names the command
        # and its help
        command_parser = parser_of(parser, args.command)
        command_parser.error(f"unrecognized arguments: {' '.join(extras)}")
    if args.command is None:
        parser.error(
            f"name a command, e.g. 'xenophon learn {plugins()[0].name}' for a guided first game"
        )
    try:
        return args.run(args)
    except XenophonError as error:
        # the one place errors are printed: one line, nothing raw for the terminal
        print(f"xenophon: {one_line(error)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
