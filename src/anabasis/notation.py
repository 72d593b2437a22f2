"""Anabasis action codes and their one text notation (docs/anabasis-engine.md §7).

A code is ``encode(kind, x, y)`` (xenophon.kernel.codes). Parsing needs only the card set;
formatting an EVENT also needs the effect of the event in the slot, because
``event 1 rank 1`` (flood) and ``event 1`` (windfall) share their code
layout.

>>> from xenophon.anabasis.cards import load_card_set
>>> cards = load_card_set()
>>> code = parse_action("move c2-c3", cards)
>>> format_action(code, cards)
'move c2-c3'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xenophon._core import anabasis as _core
from xenophon.anabasis.cards import Card, CardSet
from xenophon.kernel.codes import core_kinds, decode, encode
from xenophon.kernel.errors import NotationError, did_you_mean, shown

#: the kinds, in the order of their names; their numbers are the C core's
KIND_NAMES = (
    "END",
    "PASS",
    "BUY",
    "BUY_PLACE",
    "PLACE",
    "SET",
    "MOVE",
    "ATTACK",
    "READY",
    "EVENT",
    "EVADE",
    "DEAL",
    "REVEAL",
    "FIELD",
    "DRAW",
    "STRIKE",
)
(
    END,
    PASS,
    BUY,
    BUY_PLACE,
    PLACE,
    SET,
    MOVE,
    ATTACK,
    READY,
    EVENT,
    EVADE,
    DEAL,
    REVEAL,
    FIELD,
    DRAW,
    STRIKE,
) = core_kinds(_core, KIND_NAMES)
CHANCE_KINDS = frozenset({DEAL, REVEAL, FIELD, DRAW, STRIKE})
STRIKE_RESULTS = ("miss", "hit", "crit")
FILES = "abcdefg"
SQUARE = re.compile(r"^([a-g])([1-6])$")

KIND_WORDS = {
    "end": END,
    "pass": PASS,
    "buy": BUY,
    "place": PLACE,
    "set": SET,
    "move": MOVE,
    "attack": ATTACK,
    "ready": READY,
    "event": EVENT,
    "evade": EVADE,
    "deal": DEAL,
    "reveal": REVEAL,
    "field": FIELD,
    "draw": DRAW,
    "strike": STRIKE,
}
USAGE = (
    "end | pass | buy CARD [SQUARE] | place CARD SQUARE | set CARD | move a1-a2 | "
    "attack a1xa2 | ready a1 | event SLOT [rank N | SQUARE] | evade a1"
)


def square_name(q: int) -> str:
    return f"{FILES[q % 7]}{q // 7 + 1}"


def parse_square(text: str) -> int:
    match = SQUARE.match(text.strip().lower())
    if not match:
        raise NotationError(f"'{shown(text)}' is not a square (a1 to g6)")
    return (int(match.group(2)) - 1) * 7 + FILES.index(match.group(1))


def format_action(
    code: int, cards: CardSet, slot_event: Callable[[int], Card | None] | None = None
) -> str:
    """The text of a code. `slot_event(slot)` gives the event in the acting
    player's slot, needed only for EVENT codes."""
    kind, x, y = decode(code)
    if kind == END:
        return "end"
    if kind == PASS:
        return "pass"
    if kind in (BUY, SET, DEAL, REVEAL, DRAW):
        word = {BUY: "buy", SET: "set", DEAL: "deal", REVEAL: "reveal", DRAW: "draw"}[kind]
        return f"{word} {cards.cards[x].name}"
    if kind == BUY_PLACE:
        return f"buy {cards.cards[x].name} {square_name(y)}"
    if kind == PLACE:
        return f"place {cards.cards[x].name} {square_name(y)}"
    if kind == MOVE:
        return f"move {square_name(x)}-{square_name(y)}"
    if kind == ATTACK:
        return f"attack {square_name(x)}x{square_name(y)}"
    if kind == READY:
        return f"ready {square_name(x)}"
    if kind == EVADE:
        return f"evade {square_name(x)}"
    if kind == FIELD:
        return f"field {cards.fields[x].name}"
    if kind == STRIKE:
        return f"strike {STRIKE_RESULTS[x]}"
    if kind == EVENT:
        event = slot_event(x) if slot_event else None
        effect = event.effect if event else None
        if effect == "flood":
            return f"event {x + 1} rank {y + 1}"
        if effect in ("rally", "sabotage"):
            return f"event {x + 1} {square_name(y)}"
        return f"event {x + 1}"
    raise NotationError(f"unknown action code {code}")


def parse_action(text: str, cards: CardSet) -> int:
    """The code of a move written in the notation (NotationError if malformed)."""
    words = text.strip().split()
    if not words:
        raise NotationError("empty move; expected " + USAGE)
    keyword, rest = words[0].lower(), words[1:]
    kind = KIND_WORDS.get(keyword)
    if kind is None:
        hint = did_you_mean(words[0], KIND_WORDS)
        raise NotationError(f"unknown move '{shown(words[0])}'{hint}; expected {USAGE}")
    if kind in (END, PASS):
        _expect_no_more(rest, keyword)
        return encode(kind)
    if kind == BUY:
        if len(rest) > 1 and _means_a_square(rest[-1]):
            card = _card(" ".join(rest[:-1]), cards)
            return encode(BUY_PLACE, card.id, parse_square(rest[-1]))
        return encode(BUY, _card(" ".join(rest), cards).id)
    if kind == PLACE:
        if len(rest) < 2:
            raise NotationError("place needs a card and a square, e.g. 'place Militia c2'")
        return encode(PLACE, _card(" ".join(rest[:-1]), cards).id, parse_square(rest[-1]))
    if kind in (SET, DEAL, REVEAL, DRAW):
        return encode(kind, _card(" ".join(rest), cards).id)
    if kind in (MOVE, ATTACK):
        separator = "-" if kind == MOVE else "x"
        joined = "".join(rest).lower()
        parts = joined.split(separator)
        if len(parts) != 2:
            raise NotationError(f"{keyword} is written like '{keyword} c2{separator}c3'")
        return encode(kind, parse_square(parts[0]), parse_square(parts[1]))
    if kind in (READY, EVADE):
        if len(rest) != 1:
            raise NotationError(f"{keyword} needs one square, e.g. '{keyword} c3'")
        return encode(kind, parse_square(rest[0]))
    if kind == FIELD:
        name = " ".join(rest)
        try:
            return encode(FIELD, cards.field_by_name(name).id)
        except KeyError:
            hint = did_you_mean(name, (field.name for field in cards.fields))
            raise NotationError(f"unknown field card '{shown(name)}'{hint}") from None
    if kind == STRIKE:
        if len(rest) != 1 or rest[0].lower() not in STRIKE_RESULTS:
            raise NotationError("strike is followed by miss, hit or crit")
        return encode(STRIKE, STRIKE_RESULTS.index(rest[0].lower()))
    return _parse_event(rest)


def _number(word: str, low: int, high: int) -> int | None:
    """The value of a word of ASCII digits from `low` to `high`, else None (int()
    also reads other scripts' digits, and fails on superscripts and on numbers
    of thousands of digits)."""
    if not (word.isascii() and word.isdigit()) or len(word) > 4:
        return None
    value = int(word)
    return value if low <= value <= high else None


def _parse_event(rest: list[str]) -> int:
    slot = _number(rest[0], 1, 3) if rest else None
    if slot is None:
        raise NotationError(
            "event needs a slot 1-3, e.g. 'event 2', 'event 1 rank 3', 'event 3 c4'"
        )
    target = rest[1:]
    if not target:
        return encode(EVENT, slot - 1, 0)
    if len(target) == 2 and target[0].lower() == "rank":
        rank = _number(target[1], 1, 6)
        if rank is None:
            raise NotationError("a rank is 1 to 6")
        return encode(EVENT, slot - 1, rank - 1)
    if len(target) == 1:
        return encode(EVENT, slot - 1, parse_square(target[0]))
    raise NotationError("an event target is 'rank N' or a square")


def _card(name: str, cards: CardSet) -> Card:
    if not name:
        raise NotationError("a card name is missing")
    try:
        return cards.by_name(name)
    except KeyError:
        hint = did_you_mean(name, (card.name for card in cards.cards))
        raise NotationError(f"unknown card '{shown(name)}'{hint}") from None


def _means_a_square(word: str) -> bool:
    """Whether a word is meant as a square: card names hold no digit, so a
    word with one is a square, a1 to g6 or not (parse_square says which)."""
    return any(ch.isdigit() for ch in word)


def _expect_no_more(rest: list[str], keyword: str) -> None:
    if rest:
        raise NotationError(f"'{keyword}' takes nothing after it")
