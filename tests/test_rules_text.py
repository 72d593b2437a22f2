"""`xenophon rules` says each note once and explains what a player looks up
(issue 66 item 8): Hero's condition note once, not under every card;
Anabasis's market piles A/B/C against the row, and what exhausts a
character."""

from xenophon.anabasis.rules import rules_lines as anabasis_rules
from xenophon.hero.describe import CONDITION_NOTE
from xenophon.hero.rules import rules_lines as hero_rules
from xenophon.kernel.registry import make_game


def test_hero_rules_say_the_condition_note_once():
    text = "\n".join(hero_rules(make_game("hero", seed=1)))
    assert text.count(CONDITION_NOTE) == 1
    assert "condition (R)(1)" in text  # each card still shows its own condition


def test_anabasis_rules_explain_the_piles_the_row_and_exhaustion():
    text = " ".join(anabasis_rules(make_game("anabasis", seed=1)))
    assert "A (3 or less), B (4 to 6) and C (7 or more)" in text
    assert "top 5 cards are laid face up, the row" in text
    assert "Attacking exhausts it" in text and "'ready' it for 1 AP" in text
