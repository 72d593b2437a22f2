"""The registry of games, their options, and the short spec strings naming
games and bots on the command line and in tournaments ('GAME:key=value,...',
'ismcts:iterations=2000'). The games are plugins (xenophon.kernel.plugin):
what each takes and checks is its own."""

from __future__ import annotations

import os
from typing import Any

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.game import Game
from xenophon.kernel.plugin import GamePlugin, find_plugin, game_names, plugins


def __getattr__(name: str) -> Any:
    """GAMES (the installed games' names, in order) and GAME_OPTIONS (each
    game's options with the text each takes when unset), read from the
    plugins when first asked for (a game's plugin imports this module)."""
    if name == "GAMES":
        return game_names()
    if name == "GAME_OPTIONS":
        return {plugin.name: dict(plugin.options) for plugin in plugins()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class SpecError(XenophonError, ValueError):
    """A game or bot spec, or a game option, that cannot be used as written."""


def list_options() -> tuple[str, ...]:
    """The options of a game spec that hold a list (any game's): after
    'OPTION=A', a bare ',B' is the list's next item."""
    return tuple(dict.fromkeys(option for plugin in plugins() for option in plugin.list_options))


def game_plugin(name: str) -> GamePlugin:
    """The plugin of the game called `name` (SpecError naming the games if none)."""
    plugin = find_plugin(name)
    if plugin is None:
        raise SpecError(f"unknown game '{shown(name)}' ({' or '.join(game_names())})")
    return plugin


def parse_spec(
    text: str, what: str, hint: str = "", list_options: tuple[str, ...] = ()
) -> tuple[str, dict[str, str]]:
    """'name:key=value,key=value' -> (name, {key: value}), the values as
    written (each consumer converts its own); a key given twice is refused.
    An item without '=' right after an option of `list_options` continues
    its value ('decks=A,B' -> {'decks': 'A,B'}). `hint` ends the message of
    an option that is not key=value."""
    name, _, rest = text.partition(":")
    options: dict[str, str] = {}
    last_key: str | None = None
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq and last_key is not None and last_key in list_options:
            options[last_key] += "," + item
            continue
        if not eq or not key:
            raise SpecError(
                f"{what} '{shown(text)}': option '{shown(item)}' must look like key=value{hint}"
            )
        if key in options:
            raise SpecError(f"{what} '{shown(text)}': option '{shown(key)}' is given twice")
        options[key] = value.strip()
        last_key = key
    return name.strip(), options


def game_options_from_text(name: str, texts: dict[str, str]) -> dict[str, Any]:
    """Options written as text (a spec, command-line flags, OpenSpiel
    parameters) as make_game takes them: each converted as its game says
    (a list split at its separators), an empty text left unset."""
    options: dict[str, Any] = {key: text for key, text in texts.items() if text != ""}
    plugin = find_plugin(name)
    for key, convert in (plugin.option_from_text if plugin else {}).items():
        if isinstance(options.get(key), str):
            options[key] = convert(options[key])
    return options


def game_options_as_text(game: Game) -> dict[str, str]:
    """A game's options as text, the inverse of game_options_from_text."""
    as_text = game_plugin(game.name).option_as_text
    return {
        key: as_text[key](value) if key in as_text else str(value)
        for key, value in game.options().items()
    }


def game_from_texts(name: str, texts: dict[str, str], seed: int | None = None) -> Game:
    """The game named with its options as text."""
    game_plugin(name)
    return game_with_options(name, game_options_from_text(name, texts), seed=seed)


def game_from_spec(spec: str, seed: int | None = None, engine: str = "c") -> Game:
    """The game a spec names, e.g. 'GAME' or 'GAME:key=value,key=value'."""
    hint = "".join(plugin.spec_hint for plugin in plugins())
    name, texts = parse_spec(spec, "game", hint, list_options())
    return game_with_options(name, game_options_from_text(name, texts), seed=seed, engine=engine)


def check_file_name(path: Any, what: str) -> None:
    """A name the system can open: no NUL character, no text that has no
    bytes (a lone surrogate from a JSON escape); os.open raises ValueError
    on those, which the file readers do not expect."""
    try:
        name = os.fsencode(path)
    except UnicodeEncodeError:
        raise SpecError(
            f"{what} {shown(repr(str(path)))}: not a file name the system can use"
        ) from None
    if b"\0" in name:
        raise SpecError(f"{what} {shown(repr(str(path)))}: a file name holds no NUL character")


def spec_files(spec: str) -> list[str]:
    """The files a game spec reads (its card file, and the items of its
    list options that are files, such as deck files): inputs an output of
    the same command must never replace."""
    name, texts = parse_spec(spec, "game", list_options=list_options())
    options = game_options_from_text(name, texts)
    plugin = find_plugin(name)
    named = [options["cards"]] if "cards" in options else []
    listed = [
        item for key in (plugin.list_options if plugin else ()) for item in options.get(key, ())
    ]
    return named + [item for item in listed if os.path.isfile(item)]


def is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def is_other_data(value: Any) -> bool:
    """A value a spec, a query or a record can hold that names no file (a
    caller in Python may also give a loaded card set or deck)."""
    return isinstance(value, (bool, int, float, list, tuple, dict)) or value is None


def check_cards(name: str, cards: Any) -> None:
    """The option every game's card set is chosen by: a card file's name."""
    if cards is None:
        return  # the reference set
    if is_path(cards):
        check_file_name(cards, "card file")  # the card reader checks the file itself
    elif is_other_data(cards):
        raise SpecError(f"{name} option 'cards' must be the name of a card file")


def check_game_options(name: str, options: dict[str, Any]) -> None:
    """Each option is one the game takes, with a value of the right kind (the
    values themselves, such as a mode's name, are checked by the game)."""
    plugin = game_plugin(name)
    known = tuple(plugin.options)
    for key in options:
        if key not in known:
            raise SpecError(
                f"{name} has no option '{shown(key)}' (its options: {', '.join(known)})"
            )
    for key, check in plugin.option_checks.items():
        if key in options:
            check(name, options[key])


def make_game(name: str, seed: int | None = None, engine: str = "c", **options: Any) -> Game:
    """A game by name, with the options its plugin lists."""
    return game_with_options(name, options, seed=seed, engine=engine)


def game_with_options(
    name: str, options: dict[str, Any], seed: int | None = None, engine: str = "c"
) -> Game:
    """A game by name with its options as a mapping (from a spec, a query or
    a record): every option checked before the game is made."""
    plugin = game_plugin(name)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise SpecError(f"a game's seed must be a whole number (got {shown(repr(seed))})")
    check_game_options(name, options)
    return plugin.factory(seed=seed, engine=engine, **options)
