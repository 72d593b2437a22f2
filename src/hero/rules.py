"""A Hero incarnation taught in the program (`xenophon rules hero`): how to
win, a turn step by step in the moves' notation, and every avatar and card of
the reference set as `card NAME` shows them. From the game's specification
(docs/hero-engine.md) and its card file."""

from __future__ import annotations

from typing import Any

from xenophon.hero.describe import CONDITION_NOTE, HeroCards

WIN = (
    "How to win: bring the enemy avatar's HP to 0 by attacking it with your units "
    "(or win at once with Hero's Crown); a player whose deck runs out loses at once."
)
BOARD = [
    "Each player is an avatar with HP, a hand size and a charisma budget a turn, leading "
    "units in two rows, front and back. Each unit has a letter that stays with it while it "
    "is on the field (a, b, ...; the opponent's op.a, ...): moves, boards and saved games "
    "name units by it. A row's places left to right, F1-F5 and B1-B5 (op.F1 ... op.B5), "
    "are read too, but a place is not a unit: the units after one that moves or leaves shift.",
    "A unit has power (the damage it deals to a unit and the damage it takes before it "
    "dies) and attack (the damage it deals to an avatar). A card costs charisma and needs "
    "its colours among your avatar and units (`card NAME` shows each).",
]
TURN = [
    "1. Draw: you draw 1 card and your used units become standby.",
    "2. Action: in any order:",
    "   deploy CARD back    deploy a unit (in the front row too with BLITZ)",
    "   play CARD [on UNIT] use an operation, on a target when it has one",
    "   move b              move a unit to the other row (once a turn)",
    "   ability [on UNIT]   use your avatar's ability",
    "   retainer discard CARD  discard a card for a Retainer token (a unit gone at the "
    "end of the turn): whenever you could use a fast operation",
    "   end                 on to the Battle phase (the opponent may first use fast "
    "operations: their window)",
    "3. Battle: attack one unit at a time, then 'end':",
    "   attack a > avatar   a standby front-row unit attacks the avatar (its attack value)",
    "   attack a > op.b     or a used enemy unit (both deal their power to each other)",
    "   The defender may first use fast operations and guard with a standby unit:",
    "   guard c             that unit takes the target's place",
    "4. End: damage on units is removed, tokens vanish, the turn passes.",
]


#: what each decision asks, said the first time it comes in a guided game (`xenophon learn`)
LESSONS = {
    "action": "This is your Action phase: you build your army. 'deploy CARD back' puts a "
    "unit from your hand in your back row (the front row too with BLITZ); a card costs "
    "charisma from your budget a turn and needs its colours among your avatar and units "
    "('card NAME' shows both). 'play CARD' uses an operation, 'move b' takes a unit to the "
    "other row (once a turn). 'end' when you are done: on to your Battle phase.",
    "window": "The opponent has ended its Action phase: before its battle you may use a fast "
    "operation ('play CARD') or the Retainer ('retainer discard CARD': a token unit in your "
    "back row until the end of the turn). Most of the time, 'pass'.",
    "battle": "This is your Battle phase: a standby front-row unit attacks the enemy avatar "
    "('attack a > avatar': it loses the unit's attack in HP) or a used enemy unit ('attack "
    "a > op.b': both deal their power). The opponent may guard with a standby unit. One "
    "attack at a time; 'end' ends your turn.",
    "defend": "The opponent attacks. You may guard with a standby unit of yours ('guard c': "
    "it takes the target's place and fights), use a fast operation or the Retainer, or "
    "'pass' and let the attack through.",
}


def intro_lines(game: Any) -> list[str]:
    """How to win, the board and a turn step by step (the opening of the rules)."""
    return [WIN, "", *BOARD, "", "A turn, step by step:", *TURN]


def rules_lines(game: Any) -> list[str]:
    """The rules of `game` (its card set) as lines."""
    lines = intro_lines(game)
    cards = HeroCards(game.new_initial_state(), 0)
    lines += ["", "The avatars:"]
    for avatar in game.cards.avatars:
        lines += cards.avatar(avatar)
    lines += ["", "The cards:", f"A card's condition, as (R)(1): {CONDITION_NOTE}."]
    for card in game.cards.cards:
        lines += cards.stats(card, with_note=False)
    return lines
