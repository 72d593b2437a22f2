"""Deck pairings used by the Hero tests: the two prebuilt decks, and decks
built for Night Queen and Sky Sage (RULES.md B13: tests build one of each)."""
from xenophon.hero.cards import build_deck, load_card_set, prebuilt_decks

CARDS = load_card_set()
DECKS = prebuilt_decks(CARDS)
NIGHT_QUEEN = build_deck(CARDS, "Night Queen", {
    "Skeleton Soldier": 4, "Shadow Assassin": 4, "Vampire Lord": 4, "Death Curse": 4,
    "Dark Pact": 4, "Grave Knight": 4, "Night Ambush": 4, "Mercenary": 4, "Hero's Crown": 4,
    "Storm Mage": 4}, name="Night Queen test")
SKY_SAGE = build_deck(CARDS, "Sky Sage", {
    "Sky Scout": 4, "Cloud Archer": 4, "Storm Mage": 4, "Leviathan": 4, "Tidal Return": 4,
    "Insight": 4, "Wind Ward": 4, "Mercenary": 4, "Hero's Crown": 2, "Goblin Raider": 2,
    "Giant Growth": 4}, name="Sky Sage test")
PAIRINGS = {
    "crimson-wild": (DECKS["crimson_conqueror"], DECKS["wild_grove"]),
    "wild-crimson": (DECKS["wild_grove"], DECKS["crimson_conqueror"]),
    "queen-sage": (NIGHT_QUEEN, SKY_SAGE),
    "sage-queen": (SKY_SAGE, NIGHT_QUEEN),
    "queen-crimson": (NIGHT_QUEEN, DECKS["crimson_conqueror"]),
}
