"""The Hero card set as plain data (HeroCardSet.core_data): its numbering is
the C core's, the tables built from it are those the binding built when it
read the card set's attributes itself, and the binding refuses malformed data
with a clear error."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from hero_decks import CARDS, DECKS
from hero_tables_fingerprints import DATA, fingerprints
from xenophon._core import hero as core
from xenophon.hero.cards import (
    ABILITY_KINDS,
    EFFECT_KINDS,
    FACTIONS,
    KEYWORDS,
    MAX_CARDS,
    MAX_DECK_SIZE,
    MAX_EFFECTS,
    MAX_NUMBER,
    TARGETS,
)

RECORDED = json.loads(DATA.read_text())
DECK0, DECK1 = DECKS["crimson_conqueror"], DECKS["wild_grove"]


def test_the_vocabulary_is_numbered_as_the_core_numbers_it():
    enums = core.ENUMS
    assert [enums[f"HERO_{f}"] for f in FACTIONS] == list(range(len(FACTIONS)))
    assert [enums[f"HERO_KW_{k}"] for k in KEYWORDS] == [1 << i for i in range(len(KEYWORDS))]
    assert [enums[f"HERO_TG_{t.upper()}"] for t in TARGETS] == list(range(len(TARGETS)))
    assert [enums[f"HERO_AB_{a.upper()}"] for a in ABILITY_KINDS] == list(range(len(ABILITY_KINDS)))
    assert {name: kind.opcode for name, kind in EFFECT_KINDS.items()} == {
        name: enums[f"HERO_FX_{name.upper()}"] for name in EFFECT_KINDS
    }
    # no word of the core's vocabulary is missing here
    words = {
        "HERO_KW_": KEYWORDS,
        "HERO_TG_": TARGETS,
        "HERO_AB_": ABILITY_KINDS,
        "HERO_FX_": EFFECT_KINDS,
    }
    for prefix, names in words.items():
        assert sorted(k for k in enums if k.startswith(prefix)) == sorted(
            prefix + name.upper() for name in names
        )
    limits = (MAX_CARDS, MAX_EFFECTS, MAX_DECK_SIZE, MAX_NUMBER)
    assert limits == (
        enums["HERO_MAX_CARDS"],
        enums["HERO_MAX_EFFECTS"],
        enums["HERO_MAX_DECK"],
        enums["HERO_MAX_NUMBER"],
    )


def test_core_data_numbers_races_by_first_appearance():
    """Avatars (a race, then its race bonus's), then units (docs/hero-engine.md §14)."""
    cards, seats = CARDS.core_data(DECK0, DECK1)
    races: list[str] = []
    for avatar in CARDS.avatars:
        bonus = [avatar.ability.race] if avatar.ability.kind == "race_bonus" else []
        for race in [avatar.race, *bonus]:
            if race not in races:
                races.append(race)
    for card in CARDS.cards:
        if card.is_unit and card.race not in races:
            races.append(card.race)
    for card, (name, numbers, effects) in zip(CARDS.cards, cards):
        assert name == card.name and len(numbers) == 14
        race, power, attack = numbers[8:11]
        if card.is_unit:
            assert (race, power, attack) == (races.index(card.race), card.power, card.attack)
        else:
            assert (race, power, attack) == (0, 0, 0)
        assert effects == [(e.opcode, *(e.args + (0, 0))[:2]) for e in card.effects]
    for deck, (deck_name, avatar_name, numbers, _, counts) in zip((DECK0, DECK1), seats):
        avatar = deck.avatar
        assert (deck_name, avatar_name, counts) == (deck.name, avatar.name, list(deck.counts))
        assert numbers[4] == races.index(avatar.race)
        if avatar.ability.kind == "race_bonus":
            assert numbers[7] == races.index(avatar.ability.race)


def test_core_data_checks_the_decks_against_the_card_set():
    with pytest.raises(ValueError, match=r"deck 1 \('Wild Grove'\) was built for another"):
        CARDS.core_data(DECK0, replace(DECK1, card_set_digest="other"))
    with pytest.raises(ValueError, match=r"deck 0 \('Crimson Conqueror'\): 29 card counts for"):
        CARDS.core_data(replace(DECK0, counts=DECK0.counts[:-1]), DECK1)
    stranger = replace(DECK1.avatar, name="Nobody")
    with pytest.raises(ValueError, match="avatar 'Nobody' is not in the card set"):
        CARDS.core_data(DECK0, replace(DECK1, avatar=stranger))
    faction = replace(CARDS, cards=(replace(CARDS.cards[0], faction="W"),) + CARDS.cards[1:])
    with pytest.raises(ValueError, match="card 'Goblin Raider': unknown faction 'W'"):
        faction.core_data(DECK0, DECK1)


# --------------------------------------------------------------------------- the tables


@pytest.fixture(scope="module")
def computed():
    return fingerprints()


def test_every_pairing_is_fingerprinted(computed):
    assert sorted(computed) == sorted(RECORDED)


@pytest.mark.parametrize("pairing", sorted(RECORDED))
def test_tables_are_those_built_before(computed, pairing):
    """States' bytes, hashes, information-set keys, evaluations, features and
    resampled worlds along random games, as recorded with the binding that read
    the card set's attributes (tests/hero_tables_fingerprints.py)."""
    assert computed[pairing] == RECORDED[pairing]


def test_tables_refuse_malformed_data():
    cards, seats = CARDS.core_data(DECK0, DECK1)
    core.Tables((cards, seats))
    with pytest.raises(ValueError, match="card 'Goblin Raider': a card's data holds 14 numbers"):
        core.Tables(([(cards[0][0], cards[0][1][:-1], cards[0][2])] + cards[1:], seats))
    name, numbers, effects = cards[4]
    with pytest.raises(ValueError, match=f"card '{name}': more than 4 effects"):
        core.Tables((cards[:4] + [(name, numbers, effects * 5)] + cards[5:], seats))
    with pytest.raises(ValueError, match="two seats"):
        core.Tables((cards, seats[:1]))
    deck, avatar, numbers, effects, counts = seats[1]
    with pytest.raises(ValueError, match=r"deck 1 \('Wild Grove'\): 31 card counts"):
        core.Tables((cards, [seats[0], (deck, avatar, numbers, effects, counts + [0])]))
    with pytest.raises(ValueError, match="avatar 'Beast King': an avatar's data holds 10"):
        core.Tables((cards, [seats[0], (deck, avatar, numbers[:-1], effects, counts)]))
    with pytest.raises(ValueError, match="at most 64"):
        core.Tables((cards * 3, seats))
    # the core's range checks name the card or the seat
    bad_cost = list(cards[0][1])
    bad_cost[2] = 0
    with pytest.raises(ValueError, match="C core: card 'Goblin Raider': cost outside 1..99"):
        core.Tables(([(cards[0][0], bad_cost, cards[0][2])] + cards[1:], seats))
    with pytest.raises(ValueError, match=r"C core: deck 1 \('Wild Grove', avatar 'Beast King'\)"):
        core.Tables((cards, [seats[0], (deck, avatar, (9, *numbers[1:]), effects, counts)]))
