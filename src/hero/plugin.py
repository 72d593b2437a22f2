"""What A Hero incarnation contributes to the shared floors
(xenophon.kernel.plugin), registered in pyproject.toml under the entry
points "xenophon.games"."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xenophon.hero import catalogue
from xenophon.hero.cards import default_deck_dir
from xenophon.hero.describe import HeroNarrator
from xenophon.hero.game import DEFAULT_DECKS, Game
from xenophon.hero.names import UnitNames
from xenophon.hero.rules import LESSONS, intro_lines, rules_lines
from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.plugin import BalanceSides, CliFlag, GamePlugin, OpenSpielNames, PageControl
from xenophon.kernel.registry import (
    SpecError,
    check_cards,
    check_file_name,
    is_other_data,
    is_path,
    make_game,
)

NAME = "hero"
#: joins the two decks in a game spec (',' separates a spec's options);
#: the --decks flag and OpenSpiel's parameter also take ','
DECK_SEPARATOR = "+"


def prebuilt_deck_names() -> tuple[str, ...]:
    return tuple(sorted(path.stem for path in default_deck_dir().glob("*.toml")))


def decks_spec(first: str, second: str) -> str:
    return f"{NAME}:decks={first}{DECK_SEPARATOR}{second}"


def decks_from_text(text: str) -> tuple[str, ...]:
    """'A+B' (or 'A,B') -> ('A', 'B')."""
    separator = DECK_SEPARATOR if DECK_SEPARATOR in text else ","
    return tuple(deck.strip() for deck in text.split(separator))


def decks_as_text(decks: Any) -> str:
    return DECK_SEPARATOR.join(decks)


def _check_deck_file(deck: Any) -> None:
    """A deck that is not prebuilt names a file. The game only asks whether
    it exists (then its reader checks it), so a name the system refuses to
    look up (too long, a loop, a folder without permission) is one line here."""
    check_file_name(deck, "deck file")
    try:
        os.stat(deck)
    except (FileNotFoundError, NotADirectoryError):
        pass  # the game reports an unknown deck
    except OSError as error:
        raise SpecError(f"deck file {shown(deck)}: cannot read it ({error.strerror})") from None


def check_decks(name: str, decks: Any) -> None:
    if isinstance(decks, (str, bytes)) or not isinstance(decks, (list, tuple)) or len(decks) != 2:
        raise SpecError(
            f"{name} option 'decks' takes two decks, for seat 0 and seat 1 (in a "
            f"spec joined by '{DECK_SEPARATOR}': "
            f"{decks_spec('DECK0', 'DECK1')})"
        )
    prebuilt = set(prebuilt_deck_names())
    for deck in decks:
        if is_path(deck):
            if not str(deck):
                raise SpecError(f"{name} option 'decks': a deck name is empty")
            if str(deck) not in prebuilt:
                _check_deck_file(deck)
        elif is_other_data(deck):
            raise SpecError(
                f"{name} option 'decks' takes deck names (prebuilt: "
                f"{', '.join(sorted(prebuilt))}) or deck files"
            )


def check_decks_flag(text: str) -> None:
    if len(re.split(r"[+,]", text)) != 2:
        raise ValueError("--decks takes two decks separated by a comma")


def check_deck_file(path: str, prebuilt: tuple[str, ...]) -> None:
    """A deck file a balance study adds: a name a spec can hold, a file
    that loads as a deck (one clear line otherwise)."""
    if DECK_SEPARATOR in path or "," in path:
        raise SpecError(
            f"deck file {shown(path)}: a name with '{DECK_SEPARATOR}' or ',' cannot "
            "be given to a game (rename the file)"
        )
    if not path.endswith(".toml") or not Path(path).is_file():
        raise SpecError(f"deck file {shown(path)}: not found (a deck file ends in .toml)")
    make_game(NAME, decks=(path, prebuilt[0]))


def benchmark_spec(options: Mapping[str, Any]) -> str:
    """A benchmark position's game as a tournament spec (matches play the default decks)."""
    if tuple(options.get("decks", DEFAULT_DECKS)) != DEFAULT_DECKS:
        raise XenophonError(f"{NAME} matches play the default decks")
    return NAME


PLUGIN = GamePlugin(
    name=NAME,
    title="A Hero incarnation",
    factory=Game,
    options={"decks": decks_as_text(DEFAULT_DECKS), "cards": ""},
    option_checks={"cards": check_cards, "decks": check_decks},
    narrator=HeroNarrator,
    catalogue=catalogue.card_data,
    anchors=catalogue.anchors,
    mirrored_notation=True,  # a move's slots are the mover's
    page_controls=lambda: (
        PageControl(
            "decks",
            "Decks",
            defaults=tuple(DEFAULT_DECKS),
            suggestions=prebuilt_deck_names(),
            separator=DECK_SEPARATOR,
            sizes=(16, 12),
        ),
    ),
    page_code=lambda: packaged_data(NAME, "web"),
    rules=rules_lines,
    intro=intro_lines,
    lessons=LESSONS,
    piece_names=UnitNames,  # the units' letters (xenophon.hero.names)
    balance=BalanceSides(
        compares="decks",
        meaning="the row deck's score against the column deck",
        default_sides=prebuilt_deck_names,
        matchups=True,
        spec=decks_spec,
        extra_sides="deck files to add to the prebuilt decks",
        check_extra_side=check_deck_file,
    ),
    openspiel=OpenSpielNames(python="python_xenophon_hero", native="xenophon_hero"),
    default_evaluation="learned",  # it won its match against the hand-set one
    cutoff_turns={"hand": 4, "learned": 0, "net": 0},  # the learned ones score the leaf itself
    engines={"oracle": "xenophon.hero.oracle"},
    reference_features="xenophon.hero.oracle_features",
    benchmark_spec=benchmark_spec,
    best_at_equal_time={},
    # the defender's guards are found where its nodes are keyed by the
    # searcher's information (issue 47, docs/search.md "Hero's guard puzzles")
    tree_defaults={"opponent_nodes": "fused"},
    spec_forms=(NAME, f"{NAME} with two decks joined by '{DECK_SEPARATOR}'"),
    spec_example=decks_spec(*DEFAULT_DECKS),
    spec_example_note="prebuilt names or deck files",
    spec_hint=(
        f" (the two Hero decks are joined by '{DECK_SEPARATOR}' or ',': "
        f"{decks_spec('DECK0', 'DECK1')})"
    ),
    list_options=("decks",),
    option_from_text={"decks": decks_from_text},
    option_as_text={"decks": decks_as_text},
    cli_flags=(
        CliFlag(
            "decks",
            "Hero decks for seat 0 and seat 1: prebuilt names "
            f"({', '.join(DEFAULT_DECKS)}) or deck files",
            metavar="DECK0,DECK1",
            check=check_decks_flag,
        ),
    ),
)
