"""`xenophon rules GAME`: how to win, a turn step by step and the cards,
from the game's own plugin (each game's text lives in its folder)."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from xenophon.kernel.plugin import find_plugin, game_titles
from xenophon.kernel.registry import GAMES, make_game

WIDTH = 79


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "rules",
        help="the rules of a game: how to win, a turn step by step, the cards",
        description=f"The rules of {game_titles('or')} as a player needs them: how to win, "
        "a turn step by step with the moves as you type them, and every card.",
    )
    parser.add_argument("game", choices=GAMES, help="which game")
    parser.set_defaults(run=run)


def wrapped(line: str) -> list[str]:
    """A line folded at WIDTH columns, its continuation indented under its text."""
    if len(line) <= WIDTH:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent)


def run(args: argparse.Namespace) -> int:
    plugin = find_plugin(args.game)
    assert plugin is not None  # the parser's choices are the registered games
    for line in plugin.rules(make_game(args.game)):
        print("\n".join(wrapped(line)) if line else "")
    return 0
