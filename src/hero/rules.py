"""A Hero incarnation taught in the program (`xenophon rules hero`): how to
win, a turn step by step in the moves' notation, and every avatar and card of
the reference set as `card NAME` shows them. From the game's specification
(docs/hero-engine.md) and its card file."""

from __future__ import annotations

from typing import Any

from xenophon.hero.describe import HeroCards

WIN = (
    "How to win: bring the enemy avatar's HP to 0 by attacking it with your units "
    "(or win at once with Hero's Crown); a player whose deck runs out loses at once."
)
BOARD = [
    "Each player is an avatar with HP, a hand size and a charisma budget a turn, leading "
    "units in two rows, front (F1-F5) and back (B1-B5); the opponent's are op.F1 ... op.B5.",
    "A unit has power (the damage it deals to a unit and the damage it takes before it "
    "dies) and attack (the damage it deals to an avatar). A card costs charisma and needs "
    "its colours among your avatar and units (`card NAME` shows each).",
]
TURN = [
    "1. Draw: you draw 1 card and your used units become standby.",
    "2. Action: in any order:",
    "   deploy CARD back    deploy a unit (in the front row too with BLITZ)",
    "   play CARD [on SLOT] use an operation, on a target when it has one",
    "   move F1             move a unit to the other row (once a turn)",
    "   ability [on SLOT]   use your avatar's ability",
    "   retainer discard CARD  discard a card for a Retainer token (a unit gone at the "
    "end of the turn): whenever you could use a fast operation",
    "   end                 on to the Battle phase (the opponent may first use fast "
    "operations: their window)",
    "3. Battle: attack one unit at a time, then 'end':",
    "   attack F1 > avatar  a standby front-row unit attacks the avatar (its attack value)",
    "   attack F1 > op.F2   or a used enemy unit (both deal their power to each other)",
    "   The defender may first use fast operations and guard with a standby unit:",
    "   guard B1            that unit takes the target's place",
    "4. End: damage on units is removed, tokens vanish, the turn passes.",
]


def rules_lines(game: Any) -> list[str]:
    """The rules of `game` (its card set) as lines."""
    lines = [WIN, "", *BOARD, "", "A turn, step by step:", *TURN]
    cards = HeroCards(game.new_initial_state(), 0)
    lines += ["", "The avatars:"]
    for avatar in game.cards.avatars:
        lines += cards.avatar(avatar)
    lines += ["", "The cards:"]
    for card in game.cards.cards:
        lines += cards.stats(card)
    return lines
