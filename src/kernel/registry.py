"""The registry of games, their options, and the short spec strings naming
games and bots on the command line and in tournaments ('anabasis:mode=expert',
'hero:decks=crimson_conqueror+wild_grove', 'ismcts:iterations=2000')."""
from __future__ import annotations

import os
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game

GAMES = ("anabasis", "hero")
#: the options each game takes besides its seed and engine, and the text each
#: takes when unset (for OpenSpiel's parameters; "" is the reference card set)
GAME_OPTIONS = {"anabasis": {"mode": "standard", "cards": ""},
                "hero": {"decks": "crimson_conqueror+wild_grove", "cards": ""}}
#: joins the two Hero decks in a game spec (',' separates a spec's options);
#: the --decks flag and OpenSpiel's parameter also take ','
DECK_SEPARATOR = "+"


class SpecError(XenophonError, ValueError):
    """A game or bot spec, or a game option, that cannot be used as written."""


#: the options of a game spec that hold a list: after 'decks=A', a bare ',B'
#: is the list's next item ('hero:decks=A,B' as the --decks flag writes it)
LIST_OPTIONS = ("decks",)


def parse_spec(text: str, what: str, hint: str = "",
               list_options: tuple[str, ...] = ()) -> tuple[str, dict[str, str]]:
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
            raise SpecError(f"{what} '{text}': option '{item}' must look like key=value{hint}")
        if key in options:
            raise SpecError(f"{what} '{text}': option '{key}' is given twice")
        options[key] = value.strip()
        last_key = key
    return name.strip(), options


def game_options_from_text(name: str, texts: dict[str, str]) -> dict[str, Any]:
    """Options written as text (a spec, command-line flags, OpenSpiel
    parameters) as make_game takes them: the Hero decks split at '+' (or ','),
    an empty text left unset."""
    options: dict[str, Any] = {key: text for key, text in texts.items() if text != ""}
    if name == "hero" and isinstance(options.get("decks"), str):
        separator = DECK_SEPARATOR if DECK_SEPARATOR in options["decks"] else ","
        options["decks"] = tuple(deck.strip() for deck in options["decks"].split(separator))
    return options


def game_options_as_text(game: Game) -> dict[str, str]:
    """A game's options as text, the inverse of game_options_from_text."""
    texts = {key: str(value) for key, value in game.options().items()}
    if "decks" in texts:
        texts["decks"] = DECK_SEPARATOR.join(game.options()["decks"])
    return texts


def game_from_texts(name: str, texts: dict[str, str], seed: int | None = None) -> Game:
    """The game named with its options as text."""
    if name not in GAME_OPTIONS:
        raise SpecError(f"unknown game '{name}' ({' or '.join(GAMES)})")
    return game_with_options(name, game_options_from_text(name, texts), seed=seed)


def game_from_spec(spec: str, seed: int | None = None, engine: str = "c") -> Game:
    """The game a spec names, e.g. 'anabasis:mode=expert' or
    'hero:decks=crimson_conqueror+wild_grove'."""
    name, texts = parse_spec(spec, "game", f" (the two Hero decks are joined by "
                                           f"'{DECK_SEPARATOR}' or ',': hero:decks=DECK0"
                                           f"{DECK_SEPARATOR}DECK1)", LIST_OPTIONS)
    return game_with_options(name, game_options_from_text(name, texts), seed=seed, engine=engine)


def check_file_name(path: Any, what: str) -> None:
    """A name the system can open: no NUL character, no text that has no
    bytes (a lone surrogate from a JSON escape); os.open raises ValueError
    on those, which the file readers do not expect."""
    try:
        name = os.fsencode(path)
    except UnicodeEncodeError:
        raise SpecError(f"{what} {str(path)!r}: not a file name the system can use") from None
    if b"\0" in name:
        raise SpecError(f"{what} {str(path)!r}: a file name holds no NUL character")


def spec_files(spec: str) -> list[str]:
    """The files a game spec reads (its card and deck files): inputs an
    output of the same command must never replace."""
    name, texts = parse_spec(spec, "game", list_options=LIST_OPTIONS)
    options = game_options_from_text(name, texts)
    named = [options["cards"]] if "cards" in options else []
    return named + [deck for deck in options.get("decks", ()) if os.path.isfile(deck)]


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _is_other_data(value: Any) -> bool:
    """A value a spec, a query or a record can hold that names no file (a
    caller in Python may also give a loaded card set or deck)."""
    return isinstance(value, (bool, int, float, list, tuple, dict)) or value is None


def _check_cards(name: str, cards: Any) -> None:
    if cards is None:
        return                   # the reference set
    if _is_path(cards):
        check_file_name(cards, "card file")      # the card reader checks the file itself
    elif _is_other_data(cards):
        raise SpecError(f"{name} option 'cards' must be the name of a card file")


def _check_deck_file(deck: Any) -> None:
    """A deck that is not prebuilt names a file. The game only asks whether
    it exists (then its reader checks it), so a name the system refuses to
    look up (too long, a loop, a folder without permission) is one line here."""
    check_file_name(deck, "deck file")
    try:
        os.stat(deck)
    except (FileNotFoundError, NotADirectoryError):
        pass                     # the game reports an unknown deck
    except OSError as error:
        raise SpecError(f"deck file {str(deck)[:200]}: cannot read it ({error.strerror})") \
            from None


def _check_decks(decks: Any) -> None:
    from xenophon.hero.cards import default_deck_dir
    if isinstance(decks, (str, bytes)) or not isinstance(decks, (list, tuple)) \
            or len(decks) != 2:
        raise SpecError(f"hero option 'decks' takes two decks, for seat 0 and seat 1 (in a "
                        f"spec joined by '{DECK_SEPARATOR}': "
                        f"hero:decks=DECK0{DECK_SEPARATOR}DECK1)")
    prebuilt = {path.stem for path in default_deck_dir().glob("*.toml")}
    for deck in decks:
        if _is_path(deck):
            if not str(deck):
                raise SpecError("hero option 'decks': a deck name is empty")
            if str(deck) not in prebuilt:
                _check_deck_file(deck)
        elif _is_other_data(deck):
            raise SpecError("hero option 'decks' takes deck names (prebuilt: "
                            f"{', '.join(sorted(prebuilt))}) or deck files")


def check_game_options(name: str, options: dict[str, Any]) -> None:
    """Each option is one the game takes, with a value of the right kind (the
    values themselves, such as a mode's name, are checked by the game)."""
    known = tuple(GAME_OPTIONS[name])
    for key in options:
        if key not in known:
            raise SpecError(f"{name} has no option '{key}' (its options: {', '.join(known)})")
    if "mode" in options and not isinstance(options["mode"], str):
        raise SpecError(f"{name} option 'mode' must be standard or expert")
    if "cards" in options:
        _check_cards(name, options["cards"])
    if "decks" in options:
        _check_decks(options["decks"])


def make_game(name: str, seed: int | None = None, engine: str = "c", **options: Any) -> Game:
    """A game by name: 'anabasis' (mode, cards) or 'hero' (decks, cards)."""
    return game_with_options(name, options, seed=seed, engine=engine)


def game_with_options(name: str, options: dict[str, Any], seed: int | None = None,
                      engine: str = "c") -> Game:
    """A game by name with its options as a mapping (from a spec, a query or
    a record): every option checked before the game is made."""
    if name == "anabasis":
        from xenophon.anabasis import Game as AnabasisGame
        factory: Any = AnabasisGame
    elif name == "hero":
        from xenophon.hero import Game as HeroGame
        factory = HeroGame
    else:
        raise SpecError(f"unknown game '{name}' ({' or '.join(GAMES)})")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise SpecError(f"a game's seed must be a whole number (got {seed!r})")
    check_game_options(name, options)
    return factory(seed=seed, engine=engine, **options)
