"""Anabasis taught in the program (`xenophon rules anabasis`): how to win, a
turn step by step in the moves' notation, and every card of the reference set
as `card NAME` shows it. From the game's specification
(docs/anabasis-engine.md) and its card file."""

from __future__ import annotations

from typing import Any

from xenophon.anabasis.describe import FIELD_TEXT, AnabasisCards
from xenophon.anabasis.render import CEMETERY_LIMITS

WIN = (
    "How to win: take the enemy castle (bring its HP to 0) by attacking it with your "
    "characters, or send enough enemy characters and territories to their cemetery "
    "({limits})."
)
BOARD = [
    "The board: 7 files a-g and 6 ranks 1-6; you place cards in your home zone "
    "(ranks 1-2 for seat 0, 5-6 for seat 1). The castles stand on d1 and d6.",
    "Each card has HP; a character also has ATK, HIT and CRIT percentages and a move "
    "and an attack pattern (`card NAME` draws them).",
    "The market, shared by both players: the characters lie in three face-down piles "
    "by cost, A (3 or less), B (4 to 6) and C (7 or more), the top card of each face "
    "up; the events and territories lie in one face-down pile whose top 5 cards are "
    "laid face up, the row. Only face-up cards are bought; a bought card is replaced "
    "from the top of its own pile (an empty pile leaves its place empty).",
    "Ready and exhausted: a character is ready when placed and again at each of your "
    "Standby 1. Attacking exhausts it (even when the attack is evaded); an exhausted "
    "character neither moves nor attacks until your next Standby 1, unless you 'ready' "
    "it for 1 AP.",
]
TURN = [
    "1. Standby 1: your characters heal and become ready; AP is set to 3 plus your "
    "territories' income, funds grow by 2 plus theirs. Then, in any order:",
    "   buy CARD            buy a market card with funds (it goes to your discard, the FLOW)",
    "   buy CARD SQUARE     buy a territory and place it at once face down (1 AP)",
    "   place CARD SQUARE   place a character or territory from your hand (1 AP)",
    "   set CARD            set an event face down in your lowest empty slot (free)",
    "   end                 on to the Field phase",
    "2. Field: with your ready characters:",
    "   move a1-a2          move along the card's move pattern (1 AP each time)",
    "   attack a1xa2        strike an enemy card or castle in its attack pattern (free "
    "after a move, else 1 AP); a character struck back from range counter-strikes",
    "   ready a1            make an exhausted character ready again (1 AP)",
    "   event N [...]       activate an own-turn event of slot N",
    "   end                 on to Standby 2",
    "3. Standby 2: buy, place and set again; 'end' ends your turn. Your hand, deck and "
    "FLOW are shuffled into a new deck and you draw 3 cards.",
    "In the opponent's turn you may answer: a face-down response event when your card is "
    "attacked ('event N' or 'pass'), a Nullify when an event is activated.",
]


#: what each decision asks, said the first time it comes in a guided game (`xenophon learn`)
LESSONS = {
    "standby1": "This is your Standby 1: your characters have healed and are ready, and AP "
    "and funds have come in. Buy from the market ('buy CARD': it goes to your FLOW, drawn "
    "in a later turn), place a character or territory from your hand in your home zone "
    "('place CARD SQUARE', 1 AP), set an event face down ('set CARD'). Then 'end': on to "
    "the Field phase.",
    "field": "This is your Field phase: move your ready characters ('move a1-a2', 1 AP) and "
    "attack ('attack a1xa2': free after a move, else 1 AP) along the patterns 'card SQUARE' "
    "draws; the enemy castle is the target. 'end' goes to Standby 2.",
    "standby2": "This is your Standby 2: buy, place and set again. 'end' ends your turn: "
    "your hand, deck and FLOW are shuffled into a new deck and you draw 3 cards.",
    "response": "The opponent attacks your card: you may answer with a face-down response "
    "event ('event N'), or 'pass'.",
    "nullify": "An event was activated: a Nullify set face down cancels it ('event N'); "
    "without one, or to let it happen, 'pass'.",
    "evade": "Your character evades the attack: choose the square it goes to.",
}


def intro_lines(game: Any) -> list[str]:
    """How to win, the board and a turn step by step (the opening of the rules)."""
    limits = ", ".join(f"{n} in {mode}" for mode, n in CEMETERY_LIMITS.items())
    return [WIN.format(limits=limits), "", *BOARD, "", "A turn, step by step:", *TURN]


def rules_lines(game: Any) -> list[str]:
    """The rules of `game` (its mode's cemetery limit, its card set) as lines."""
    lines = intro_lines(game)
    cards = AnabasisCards(game.new_initial_state(), 0)
    lines += ["", "The cards:"]
    for card in game.cards.cards:
        lines += cards.stats(card, diagram=False)
    if game.cards.fields:
        lines += ["", "The field cards (expert mode):"]
        for field in game.cards.fields:
            text = FIELD_TEXT[field.effect].format(n=field.amount)
            lines.append(f"{field.name} ({field.duration} turns): {text}")
    return lines
