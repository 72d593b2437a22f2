"""What the web page needs of an Anabasis game (xenophon.web.catalogue): the
public card data and the *anchors* of a move, the things on the board its
text names (a square, a card in the hand or the market, an event slot, a
rank), in the order a player clicks them."""

from __future__ import annotations

import re
from typing import Any

from xenophon.anabasis.describe import AnabasisCards, pattern_squares
from xenophon.anabasis.notation import parse_square, square_name

#: card names hold no digit, so every letter a-g followed by a digit 1-6 is a square
SQUARE = re.compile(r"[a-g][1-6]")
#: the zone the card named after each verb is taken from
ZONES = {"buy": "market", "place": "hand", "set": "hand"}
#: words that end a card's name in a move
AFTER_NAME = ("on", "front", "back")


def _offsets(pattern: Any) -> list[list[int]]:
    return [list(offset) for offset in pattern.offsets] if pattern else []


def card_data(game: Any) -> dict[str, Any]:
    """The public card data of `game`, for the page's card details: its
    numbers, and its `text` in players' words (`card NAME`'s lines)."""
    state = game.new_initial_state()
    words = AnabasisCards(state, 0)
    cards = {}
    for card in game.cards.cards:
        cards[card.name] = {
            "text": [line.strip() for line in words.stats(card, diagram=False)],
            "kind": card.kind,
            "cost": card.cost,
            "pile": card.pile,
            "hp": card.hp,
            "atk": card.atk,
            "hit": card.hit,
            "crit": card.crit,
            "move": _offsets(card.move),
            "attack": _offsets(card.attack),
            "move_name": card.move.name if card.move else None,
            "attack_name": card.attack.name if card.attack else None,
            "keywords": sorted(card.keywords),
            "ap_income": card.ap_income,
            "funds_income": card.funds_income,
            "effect": card.effect,
            "amount": card.amount,
            "timing": card.timing,
        }
    fields = {
        field.name: {
            "kind": "field",
            "text": [line.strip() for line in words.lines(state, field.name)],
            "duration": field.duration,
            "effect": field.effect,
            "amount": field.amount,
        }
        for field in game.cards.fields
    }
    return {"cards": cards, "fields": fields}


def reach(game: Any, view: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Where each character on the grid of `view` can move and attack (the
    squares' anchors), by its square's anchor: its patterns laid on the
    board from its square, turned for its owner, as `card SQUARE` marks them
    (what is legal now is the engine's: an occupied square, AP or a phase
    are not weighed here)."""
    found = {}
    for name, entry in view["grid"].items():
        card = game.cards.by_name(entry["card"])
        if card.kind != "character":
            continue
        square = parse_square(name)
        found[f"sq:{name}"] = {
            kind: sorted(
                f"sq:{square_name(q)}" for q in pattern_squares(pattern, square, entry["owner"])
            )
            for kind, pattern in (("move", card.move), ("attack", card.attack))
        }
    return found


def _named_card(words: list[str]) -> str:
    """The card name in a move's words after its verb (up to a square or 'on')."""
    name = []
    for word in words:
        if SQUARE.fullmatch(word) or word in AFTER_NAME:
            break
        name.append(word)
    return " ".join(name)


def anchors(text: str) -> list[str]:
    """'place Militia c2' -> ['hand:Militia', 'sq:c2']; 'event 1 rank 3' ->
    ['slot:1', 'rank:3']; 'attack c3xd4' -> ['sq:c3', 'sq:d4']."""
    verb, *words = text.split()
    found = []
    if verb in ZONES:
        found.append(f"{ZONES[verb]}:{_named_card(words)}")
    elif verb == "event":
        found.append(f"slot:{words[0]}")
        if "rank" in words:
            return found + [f"rank:{words[-1]}"]
    return found + [f"sq:{square}" for square in SQUARE.findall(" ".join(words))]
