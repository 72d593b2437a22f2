"""A Hero incarnation action codes and their one text notation (docs/hero-engine.md §8).

A code is ``encode(kind, x, y)`` (xenophon.kernel.codes). Codes and texts are both relative to
the acting player (slot codes 0..9 are "mine", 10..19 the opponent's), so
formatting and parsing need only the card set, never a state. Chance outcomes
(``draw NAME``) have no acting player and name only a card.

>>> from xenophon.hero.cards import load_card_set
>>> cards = load_card_set()
>>> parse_action("play Fireball on op.F2", cards)
16651
>>> format_action(32852, cards)
'attack F2 > avatar'
>>> format_action(parse_action("ATTACK b1>OP.f3", cards), cards)
'attack B1 > op.F3'
"""

from __future__ import annotations

import re

from xenophon._core import hero as _core
from xenophon.hero.cards import HeroCard, HeroCardSet
from xenophon.kernel.codes import core_kinds, decode, encode
from xenophon.kernel.errors import NotationError, did_you_mean, shown

__all__ = [
    "END",
    "PASS",
    "MOVE",
    "DEPLOY",
    "PLAY",
    "RETAINER",
    "ABILITY",
    "TARGET",
    "ATTACK",
    "GUARD",
    "DRAW",
    "KIND_NAMES",
    "DECISION_KINDS",
    "CHANCE_KINDS",
    "FRONT",
    "BACK",
    "AVATAR",
    "NONE",
    "ROW_SIZE",
    "MY_SLOTS",
    "ALL_SLOTS",
    "encode",
    "decode",
    "slot_name",
    "parse_slot",
    "format_action",
    "parse_action",
]

# ---------------------------------------------------------------------------
# Kinds (spec §8)

_NAMES = (
    "END",
    "PASS",
    "MOVE",
    "DEPLOY",
    "PLAY",
    "RETAINER",
    "ABILITY",
    "TARGET",
    "ATTACK",
    "GUARD",
    "DRAW",
)
#: the kinds' numbers are the C core's (DRAW, the only chance kind, is 15)
END, PASS, MOVE, DEPLOY, PLAY, RETAINER, ABILITY, TARGET, ATTACK, GUARD, DRAW = core_kinds(
    _core, _NAMES
)
KIND_NAMES = dict(
    zip((END, PASS, MOVE, DEPLOY, PLAY, RETAINER, ABILITY, TARGET, ATTACK, GUARD, DRAW), _NAMES)
)
CHANCE_KINDS = frozenset({DRAW})
DECISION_KINDS = frozenset(KIND_NAMES) - CHANCE_KINDS

# ---------------------------------------------------------------------------
# Slots (spec §8): 0..4 my F1..F5, 5..9 my B1..B5, 10..19 the same of the
# opponent, 20 the enemy avatar (an attack target), 63 no target.

FRONT, BACK = 0, 1  # the y of a DEPLOY; also the row index of a slot
ROW_SIZE = 5
MY_SLOTS = range(0, 10)
ALL_SLOTS = range(0, 20)
AVATAR = 20
NONE = 63

USAGE = (
    "end | pass | move F1 | deploy CARD front|back | play CARD [on SLOT] | "
    "retainer discard CARD | ability [on SLOT] | target SLOT | "
    "attack F1 > op.F2|avatar | guard B1 | draw CARD"
)
#: the first words of the moves, for a mistyped one's "did you mean"
MOVE_WORDS = (
    "end",
    "pass",
    "move",
    "deploy",
    "play",
    "retainer",
    "ability",
    "target",
    "attack",
    "guard",
    "draw",
)
SLOT_HELP = "a slot is F1-F5 or B1-B5 (yours) or op.F1-op.B5 (the opponent's)"
_SLOT = re.compile(r"(op\.)?([fb])([1-5])", re.IGNORECASE)


def slot_name(slot: int) -> str:
    """0 -> 'F1', 9 -> 'B5', 10 -> 'op.F1', 19 -> 'op.B5', 20 -> 'avatar'."""
    if slot == AVATAR:
        return "avatar"
    if not 0 <= slot < 20:
        raise NotationError(f"{slot} is not a slot code")
    prefix = "op." if slot >= 10 else ""
    row, index = divmod(slot % 10, ROW_SIZE)
    return f"{prefix}{'FB'[row]}{index + 1}"


def parse_slot(word: str, *, mine: bool = True, theirs: bool = True, avatar: bool = False) -> int:
    """The slot code of a slot token (case ignored); NotationError if malformed or
    of a side that is not allowed here."""
    if avatar and word.lower() == "avatar":
        return AVATAR
    match = _SLOT.fullmatch(word)
    if match is None:
        extra = " or 'avatar'" if avatar else ""
        raise NotationError(f"'{shown(word)}' is not a slot: {SLOT_HELP}{extra}")
    is_theirs = match.group(1) is not None
    if is_theirs and not theirs:
        raise NotationError(f"'{word}' is the opponent's slot; write one of yours (F1-F5, B1-B5)")
    if not is_theirs and not mine:
        extra = " or 'avatar'" if avatar else ""
        raise NotationError(f"'{word}' is your own slot; write the opponent's (op.F1-op.B5){extra}")
    row = 0 if match.group(2).lower() == "f" else 1
    return (10 if is_theirs else 0) + row * ROW_SIZE + int(match.group(3)) - 1


# ---------------------------------------------------------------------------
# Formatting


def format_action(code: int, cards: HeroCardSet) -> str:
    """The text of a code (relative to the acting player); NotationError for a code
    that no node of the game can have."""
    kind, x, y = decode(code)

    def card(card_id: int) -> str:
        if card_id >= len(cards.cards):
            raise NotationError(f"action code {code}: no card has id {card_id}")
        return cards.cards[card_id].name

    def bad() -> NotationError:
        return NotationError(f"{code} is not an action code of A Hero incarnation")

    if kind in (END, PASS, MOVE, ABILITY, TARGET, GUARD) and x != 0:
        raise bad()
    if kind == END and y == 0:
        return "end"
    if kind == PASS and y == 0:
        return "pass"
    if kind == MOVE and y in MY_SLOTS:
        return f"move {slot_name(y)}"
    if kind == DEPLOY and y in (FRONT, BACK):
        return f"deploy {card(x)} {('front', 'back')[y]}"
    if kind == PLAY and y == NONE:
        return f"play {card(x)}"
    if kind == PLAY and y in ALL_SLOTS:
        return f"play {card(x)} on {slot_name(y)}"
    if kind == RETAINER and y == 0:
        return f"retainer discard {card(x)}"
    if kind == ABILITY and y == NONE:
        return "ability"
    if kind == ABILITY and y in ALL_SLOTS:
        return f"ability on {slot_name(y)}"
    if kind == TARGET and y in ALL_SLOTS:
        return f"target {slot_name(y)}"
    if kind == ATTACK and x in MY_SLOTS and 10 <= y <= AVATAR:
        return f"attack {slot_name(x)} > {slot_name(y)}"
    if kind == GUARD and y in MY_SLOTS:
        return f"guard {slot_name(y)}"
    if kind == DRAW and y == 0:
        return f"draw {card(x)}"
    raise bad()


# ---------------------------------------------------------------------------
# Parsing


def parse_action(text: str, cards: HeroCardSet) -> int:
    """The code of a move written in the notation; NotationError if malformed.

    Keywords, slots and card names are matched ignoring case; words are
    separated by spaces (around ``>`` they are optional). Whether the move is
    legal is the state's business, not the notation's.
    """
    words = text.split()
    if not words:
        raise NotationError("empty move; expected " + USAGE)
    keyword, rest = words[0].lower(), words[1:]
    if keyword in ("end", "pass"):
        if rest:
            raise NotationError(f"'{keyword}' takes nothing after it")
        return encode(END if keyword == "end" else PASS)
    if keyword in ("move", "guard"):
        if len(rest) != 1:
            raise NotationError(
                f"'{keyword}' needs one slot of yours, e.g. "
                f"'{keyword} {'F1' if keyword == 'move' else 'B1'}'"
            )
        return encode(MOVE if keyword == "move" else GUARD, 0, parse_slot(rest[0], theirs=False))
    if keyword == "deploy":
        if len(rest) < 2 or rest[-1].lower() not in ("front", "back"):
            raise NotationError("deploy is written 'deploy CARD front' or 'deploy CARD back'")
        row = FRONT if rest[-1].lower() == "front" else BACK
        return encode(DEPLOY, _card(rest[:-1], cards, "deploy").id, row)
    if keyword == "play":
        name, slot = _split_target(rest, "play CARD [on SLOT]")
        return encode(PLAY, _card(name, cards, "play").id, slot)
    if keyword == "retainer":
        if not rest or rest[0].lower() != "discard":
            raise NotationError("the Retainer is written 'retainer discard CARD'")
        return encode(RETAINER, _card(rest[1:], cards, "retainer discard").id, 0)
    if keyword == "ability":
        if not rest:
            return encode(ABILITY, 0, NONE)
        if len(rest) != 2 or rest[0].lower() != "on":
            raise NotationError("ability is written 'ability' or 'ability on SLOT'")
        return encode(ABILITY, 0, parse_slot(rest[1]))
    if keyword == "target":
        if len(rest) != 1:
            raise NotationError("target needs one slot, e.g. 'target op.F2'")
        return encode(TARGET, 0, parse_slot(rest[0]))
    if keyword == "attack":
        parts = " ".join(rest).split(">")
        if (
            len(parts) != 2
            or not parts[0].strip()
            or not parts[1].strip()
            or len(parts[0].split()) != 1
            or len(parts[1].split()) != 1
        ):
            raise NotationError("attack is written 'attack F1 > op.F2' or 'attack F1 > avatar'")
        attacker = parse_slot(parts[0].strip(), theirs=False)
        target = parse_slot(parts[1].strip(), mine=False, avatar=True)
        return encode(ATTACK, attacker, target)
    if keyword == "draw":
        return encode(DRAW, _card(rest, cards, "draw").id, 0)
    hint = did_you_mean(words[0], MOVE_WORDS)
    raise NotationError(f"unknown move '{shown(words[0])}'{hint}; expected {USAGE}")


def _split_target(rest: list[str], usage: str) -> tuple[list[str], int]:
    """Splits 'NAME [on SLOT]'. Names hold no digit, so a last word with a digit
    is always meant as a slot."""
    if rest and any(ch.isdigit() for ch in rest[-1]):
        if len(rest) < 3 or rest[-2].lower() != "on":
            raise NotationError(f"write the target after 'on': {usage}")
        return rest[:-2], parse_slot(rest[-1])
    return rest, NONE


def _card(words: list[str], cards: HeroCardSet, verb: str) -> HeroCard:
    name = " ".join(words)
    if not name:
        raise NotationError(f"'{verb}' needs a card name")
    try:
        return cards.by_name(name)
    except KeyError:
        pass
    if len(words) > 1 and words[-1].lower() == "on":
        raise NotationError(f"a slot is missing after 'on' ({SLOT_HELP})")
    hint = did_you_mean(name, (card.name for card in cards.cards))
    raise NotationError(f"unknown card '{shown(name)}'{hint}")
