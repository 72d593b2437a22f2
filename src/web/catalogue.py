"""What the page needs to draw cards and to turn clicks into moves, for
each game: the public card data (stats, effects, patterns) and the *anchors*
of a move, the things on the board its text names (a square, a card in the
hand or the market, a unit, an event slot), in the order a player clicks
them. Anchors are read from the move's text in the game's notation; which
moves are legal, and what they do, stays the engine's."""
from __future__ import annotations

import re
from typing import Any

from xenophon.kernel.game import Game

#: card names hold no digit, so every letter a-g followed by a digit 1-6 is a square
ANABASIS_SQUARE = re.compile(r"[a-g][1-6]")
HERO_SLOT = re.compile(r"(?<![\w.])(op\.)?([FB][1-5])\b", re.IGNORECASE)
#: the zone the card named after each verb is taken from
ANABASIS_ZONES = {"buy": "market", "place": "hand", "set": "hand"}
HERO_ZONES = {"deploy": "hand", "play": "hand", "retainer": "hand"}


def _offsets(pattern: Any) -> list[list[int]]:
    return [list(offset) for offset in pattern.offsets] if pattern else []


def anabasis_cards(game: Game) -> dict[str, Any]:
    cards = {}
    for card in game.cards.cards:
        cards[card.name] = {
            "kind": card.kind, "cost": card.cost, "pile": card.pile, "hp": card.hp,
            "atk": card.atk, "hit": card.hit, "crit": card.crit,
            "move": _offsets(card.move), "attack": _offsets(card.attack),
            "move_name": card.move.name if card.move else None,
            "attack_name": card.attack.name if card.attack else None,
            "keywords": sorted(card.keywords), "ap_income": card.ap_income,
            "funds_income": card.funds_income, "effect": card.effect, "amount": card.amount,
            "timing": card.timing}
    fields = {field.name: {"kind": "field", "duration": field.duration, "effect": field.effect,
                           "amount": field.amount} for field in game.cards.fields}
    return {"cards": cards, "fields": fields}


def _effects(effects: Any) -> list[str]:
    return [effect.text for effect in effects]


def hero_cards(game: Game) -> dict[str, Any]:
    cards = {}
    for card in game.cards.cards:
        cards[card.name] = {
            "kind": card.kind, "faction": card.faction, "cost": card.cost,
            "condition": card.condition.text, "race": card.race, "power": card.power,
            "attack": card.attack, "keywords": sorted(card.keywords), "timing": card.timing,
            "trigger": card.trigger, "target": card.target, "effects": _effects(card.effects)}
    avatars = {}
    for avatar in game.cards.avatars:
        ability = avatar.ability
        avatars[avatar.name] = {
            "faction": avatar.faction, "hp": avatar.hp, "hand": avatar.hand,
            "charisma": avatar.charisma, "race": avatar.race,
            "ability": {"kind": ability.kind, "effects": _effects(ability.effects),
                        "target": ability.target, "race": ability.race,
                        "power": ability.power, "attack": ability.attack}}
    return {"cards": cards, "avatars": avatars}


def _named_card(words: list[str]) -> str:
    """The card name in a move's words after its verb (up to a square, a
    slot, 'on', or a row)."""
    name = []
    for word in words:
        if ANABASIS_SQUARE.fullmatch(word) or word in ("on", "front", "back") \
                or HERO_SLOT.fullmatch(word):
            break
        name.append(word)
    return " ".join(name)


def anabasis_anchors(text: str) -> list[str]:
    """'place Militia c2' -> ['hand:Militia', 'sq:c2']; 'event 1 rank 3' ->
    ['slot:1', 'rank:3']; 'attack c3xd4' -> ['sq:c3', 'sq:d4']."""
    verb, *words = text.split()
    anchors = []
    if verb in ANABASIS_ZONES:
        anchors.append(f"{ANABASIS_ZONES[verb]}:{_named_card(words)}")
    elif verb == "event":
        anchors.append(f"slot:{words[0]}")
        if "rank" in words:
            return anchors + [f"rank:{words[-1]}"]
    return anchors + [f"sq:{square}" for square in ANABASIS_SQUARE.findall(" ".join(words))]


def _hero_slot(prefix: str | None, slot: str) -> str:
    return f"unit:{'op' if prefix else 'me'}:{slot.upper()}"


def hero_anchors(text: str) -> list[str]:
    """'deploy Berserker front' -> ['hand:Berserker', 'row:me:front'];
    'attack F2 > avatar' -> ['unit:me:F2', 'avatar:op']; 'ability on F1' ->
    ['avatar:me', 'unit:me:F1']."""
    verb, *words = text.split()
    anchors = []
    if verb in HERO_ZONES:
        rest = words[1:] if verb == "retainer" else words
        anchors.append(f"hand:{_named_card(rest)}")
    elif verb == "ability":
        anchors.append("avatar:me")
    anchors += [_hero_slot(prefix, slot) for prefix, slot in HERO_SLOT.findall(text)]
    if verb == "deploy":
        anchors.append(f"row:me:{words[-1]}")
    elif verb == "attack" and words[-1] == "avatar":
        anchors.append("avatar:op")
    return anchors


CATALOGUES = {"anabasis": anabasis_cards, "hero": hero_cards}
ANCHORS = {"anabasis": anabasis_anchors, "hero": hero_anchors}


def catalogue(game: Game) -> dict[str, Any]:
    """The public card data of `game`, for the page's card details."""
    return CATALOGUES[game.name](game)


def moves_for_page(state: Any) -> list[dict[str, Any]]:
    """The legal moves with their anchors (the player to move's)."""
    anchors = ANCHORS[state.game.name]
    return [{"text": move.text, "anchors": anchors(move.text)} for move in state.legal_moves()]


def anchors_of(game_name: str, text: str) -> list[str]:
    return ANCHORS[game_name](text)


def _other_side(anchor: str) -> str:
    kind, _, rest = anchor.partition(":")
    side, _, place = rest.partition(":")
    flipped = {"me": "op", "op": "me"}.get(side, side)
    return f"{kind}:{flipped}" + (f":{place}" if place else "")


def opponent_anchors(game_name: str, text: str) -> list[str]:
    """The anchors of the opponent's move on the viewer's board: Hero's slots
    are written from the mover's side (its F1 is the viewer's op.F1);
    Anabasis squares are the same for both."""
    anchors = anchors_of(game_name, text)
    return [_other_side(a) for a in anchors] if game_name == "hero" else anchors
