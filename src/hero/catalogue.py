"""What the web page needs of a Hero game (xenophon.web.catalogue): the
public card data and the *anchors* of a move, the things on the board its
text names (a card in the hand, a unit's slot, a row, an avatar), in the
order a player clicks them. Moves are written from the mover's side (its F1
is its opponent's op.F1)."""

from __future__ import annotations

import re
from typing import Any

from xenophon.hero.describe import HeroCards
from xenophon.hero.render import PHASE_WORDS

SLOT = re.compile(r"(?<![\w.])(op\.)?([FB][1-5])\b", re.IGNORECASE)
#: the zone the card named after each verb is taken from
ZONES = {"deploy": "hand", "play": "hand", "retainer": "hand"}
#: words that end a card's name in a move
AFTER_NAME = ("on", "front", "back")


def _effects(effects: Any) -> list[str]:
    return [effect.text for effect in effects]


def card_data(game: Any) -> dict[str, Any]:
    """The public card and avatar data of `game`, for the page's card details:
    their numbers, and their `text` in players' words (`card NAME`'s lines)."""
    words = HeroCards(game.new_initial_state(), 0)
    cards = {}
    for card in game.cards.cards:
        cards[card.name] = {
            "text": [line.strip() for line in words.stats(card)],
            "kind": card.kind,
            "faction": card.faction,
            "cost": card.cost,
            "condition": card.condition.text,
            "race": card.race,
            "power": card.power,
            "attack": card.attack,
            "keywords": sorted(card.keywords),
            "timing": card.timing,
            "trigger": card.trigger,
            "target": card.target,
            "effects": _effects(card.effects),
        }
    avatars = {}
    for avatar in game.cards.avatars:
        ability = avatar.ability
        avatars[avatar.name] = {
            "text": [line.strip() for line in words.avatar(avatar)],
            "faction": avatar.faction,
            "hp": avatar.hp,
            "hand": avatar.hand,
            "charisma": avatar.charisma,
            "race": avatar.race,
            "ability": {
                "kind": ability.kind,
                "effects": _effects(ability.effects),
                "target": ability.target,
                "race": ability.race,
                "power": ability.power,
                "attack": ability.attack,
            },
        }
    return {"cards": cards, "avatars": avatars, "phases": PHASE_WORDS}


def _named_card(words: list[str]) -> str:
    """The card name in a move's words after its verb (up to a slot, 'on', or a row)."""
    name = []
    for word in words:
        if word in AFTER_NAME or SLOT.fullmatch(word):
            break
        name.append(word)
    return " ".join(name)


def _slot(prefix: str | None, slot: str) -> str:
    return f"unit:{'op' if prefix else 'me'}:{slot.upper()}"


def anchors(text: str) -> list[str]:
    """'deploy Berserker front' -> ['hand:Berserker', 'row:me:front'];
    'attack F2 > avatar' -> ['unit:me:F2', 'avatar:op']; 'ability on F1' ->
    ['avatar:me', 'unit:me:F1']."""
    verb, *words = text.split()
    found = []
    if verb in ZONES:
        rest = words[1:] if verb == "retainer" else words
        found.append(f"hand:{_named_card(rest)}")
    elif verb == "ability":
        found.append("avatar:me")
    found += [_slot(prefix, slot) for prefix, slot in SLOT.findall(text)]
    if verb == "deploy":
        found.append(f"row:me:{words[-1]}")
    elif verb == "attack" and words[-1] == "avatar":
        found.append("avatar:op")
    return found
