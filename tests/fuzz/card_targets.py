"""`anabasis_cards`, `hero_cards`, `hero_deck`: any text as a card or deck file.

The file goes through the public loaders; what they accept must make a game
the C core can play (a short random playout), and what they refuse they must
refuse with a CardFileError or another XenophonError whose message is one
printable line (`sample.check_message`).
"""

from __future__ import annotations

import functools
import random
import zlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from xenophon.anabasis import Game as AnabasisGame
from xenophon.anabasis.cards import load_card_set as load_anabasis_cards
from xenophon.hero import Game as HeroGame
from xenophon.hero.cards import (
    MAX_COPIES,
    MIN_DECK_SIZE,
    Deck,
    HeroCardSet,
    build_deck,
    load_deck,
    prebuilt_decks,
)
from xenophon.hero.cards import load_card_set as load_hero_cards
from xenophon.kernel.errors import CardFileError, XenophonError
from xenophon.kernel.game import Game

from . import sample

PLAYOUT_ACTIONS = 300
DATA = resources.files("xenophon") / "data"


def card_target(name: str, game_of: Callable[[Path, int], Game]) -> Callable[[bytes], None]:
    """A target writing the input to a file that `game_of(path, choice)` loads
    (`choice` is a number taken from the input, for the loader's own choices)."""

    def target(data: bytes) -> None:
        path = sample.scratch(f"{name}.toml")
        path.write_bytes(data)
        choice = zlib.crc32(data)
        try:
            game = game_of(path, choice)
        except XenophonError as error:
            sample.check_message(error)
            return
        sample.playout(game.new_initial_state(), random.Random(choice), PLAYOUT_ACTIONS)

    target.__name__ = name
    return target


def anabasis_game(path: Path, choice: int) -> Game:
    return AnabasisGame(mode=("standard", "expert")[choice % 2], cards=load_anabasis_cards(path))


def filled_deck(cards: HeroCardSet, avatar: int) -> Deck:
    """A legal deck of any card set with enough cards: as many copies of each
    card, in order, as a deck may hold, up to the minimum size."""
    counts: dict[str, int] = {}
    for card in cards.cards:
        left = MIN_DECK_SIZE - sum(counts.values())
        if left <= 0:
            break
        counts[card.name] = min(MAX_COPIES, left)
    return build_deck(cards, cards.avatars[avatar % len(cards.avatars)].name, counts)


def decks_for(cards: HeroCardSet, choice: int) -> tuple[Deck, Deck]:
    """The prebuilt decks when the card set still has their cards, else decks
    filled from the set."""
    try:
        decks = prebuilt_decks(cards)
        return decks["crimson_conqueror"], decks["wild_grove"]
    except (CardFileError, KeyError):
        return filled_deck(cards, choice), filled_deck(cards, choice // 7)


def hero_cards_game(path: Path, choice: int) -> Game:
    cards = load_hero_cards(path)
    return HeroGame(decks=decks_for(cards, choice), cards=cards)


@functools.cache
def reference_hero_set() -> tuple[HeroCardSet, dict[str, Deck]]:
    """The shipped Hero cards and decks, read once (they are immutable)."""
    cards = load_hero_cards()
    return cards, prebuilt_decks(cards)


def hero_deck_game(path: Path, choice: int) -> Game:
    cards, decks = reference_hero_set()
    other = decks[("wild_grove", "crimson_conqueror")[choice % 2]]
    return HeroGame(decks=(load_deck(path, cards), other), cards=cards)


def files(*parts: str) -> Callable[[], list[bytes]]:
    def seeds() -> list[bytes]:
        folder = DATA.joinpath(*parts[:-1])
        return [
            entry.read_bytes()
            for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(parts[-1])
        ]

    return seeds


TARGETS = {
    "anabasis_cards": card_target("anabasis_cards", anabasis_game),
    "hero_cards": card_target("hero_cards", hero_cards_game),
    "hero_deck": card_target("hero_deck", hero_deck_game),
}
SEEDS = {
    "anabasis_cards": files("anabasis", "cards.toml"),
    "hero_cards": files("hero", "cards.toml"),
    "hero_deck": files("hero", "decks", ".toml"),
}
