"""Deck pairings used by the Hero tests: the two prebuilt decks, and decks
built for Night Queen and Sky Sage (docs/hero-engine.md §1.7: tests build one
of each)."""

from xenophon.hero.cards import build_deck, load_card_set, prebuilt_decks

CARDS = load_card_set()
DECKS = prebuilt_decks(CARDS)
NIGHT_QUEEN = build_deck(
    CARDS,
    "Night Queen",
    {
        "Skeleton Soldier": 4,
        "Shadow Assassin": 4,
        "Vampire Lord": 4,
        "Death Curse": 4,
        "Dark Pact": 4,
        "Grave Knight": 4,
        "Night Ambush": 4,
        "Mercenary": 4,
        "Hero's Crown": 4,
        "Storm Mage": 4,
    },
    name="Night Queen test",
)
SKY_SAGE = build_deck(
    CARDS,
    "Sky Sage",
    {
        "Sky Scout": 4,
        "Cloud Archer": 4,
        "Storm Mage": 4,
        "Leviathan": 4,
        "Tidal Return": 4,
        "Insight": 4,
        "Wind Ward": 4,
        "Mercenary": 4,
        "Hero's Crown": 2,
        "Goblin Raider": 2,
        "Giant Growth": 4,
    },
    name="Sky Sage test",
)
PAIRINGS = {
    "crimson-wild": (DECKS["crimson_conqueror"], DECKS["wild_grove"]),
    "wild-crimson": (DECKS["wild_grove"], DECKS["crimson_conqueror"]),
    "queen-sage": (NIGHT_QUEEN, SKY_SAGE),
    "sage-queen": (SKY_SAGE, NIGHT_QUEEN),
    "queen-crimson": (NIGHT_QUEEN, DECKS["crimson_conqueror"]),
}


def hand_written(
    decks, cards, seats, phase="action", active=0, turn=None, pending=None, attack=None
) -> dict:
    """A dict in the style of tests/test_hero_scenarios.py; each seat's parts as given,
    its deck the rest of its decklist (the C core keeps every card in one zone)."""
    players = []
    for deck, parts in zip(decks, seats):
        p = {
            "avatar": deck.avatar.name,
            "hand": {},
            "known": {},
            "graveyard": {},
            "exile": {},
            "front": [],
            "back": [],
        }
        p.update(parts)
        rest = deck.cards(cards)
        taken = (
            list(p["hand"].items())
            + list(p["graveyard"].items())
            + [(u["card"], 1) for u in p["front"] + p["back"] if u["card"] != "Retainer"]
        )
        for name, n in taken:
            rest[name] -= n
            assert rest[name] >= 0, name
        p["deck"] = {name: n for name, n in rest.items() if n}
        players.append(p)
    return {
        "turn": turn if turn is not None else 3 + active,
        "active": active,
        "phase": phase,
        "result": None,
        "pending": pending,
        "attack": attack,
        "players": players,
    }
