"""The registry of games, and the short spec strings naming games and bots
on the command line and in tournaments ('anabasis:mode=expert',
'ismcts:iterations=2000')."""
from __future__ import annotations

from typing import Any

from xenophon.errors import XenophonError
from xenophon.game import Game

GAMES = ("anabasis", "hero")


def parse_spec(text: str, what: str) -> tuple[str, dict[str, Any]]:
    """'name:key=value,key=value' -> (name, {key: value}), numbers converted."""
    name, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise XenophonError(f"{what} option '{item}' must look like key=value")
        options[key.strip()] = _number(value.strip())
    return name.strip(), options


def _number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def make_game(name: str, **options: Any) -> Game:
    """A game by name: 'anabasis' (mode, cards) or 'hero' (decks, cards)."""
    if name == "anabasis":
        from xenophon.anabasis import Game as AnabasisGame
        factory: Any = AnabasisGame
    elif name == "hero":
        from xenophon.hero import Game as HeroGame
        factory = HeroGame
    else:
        raise XenophonError(f"unknown game '{name}' ({' or '.join(GAMES)})")
    try:
        return factory(**options)
    except TypeError as error:
        raise XenophonError(f"bad option for {name}: {error}") from None
