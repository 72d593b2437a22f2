"""The Hero card file and deck files: the reference set (docs/hero-engine.md
§1.7; its fields mean what §1.5 says) loads with the values pinned here, the
prebuilt decks are legal, and broken files fail with one clear
message naming the file and the card."""

import hashlib
from pathlib import Path

import pytest

from xenophon.hero.cards import (
    Condition,
    Effect,
    build_deck,
    default_card_path,
    default_deck_dir,
    load_card_set,
    load_deck,
    prebuilt_decks,
)
from xenophon.kernel.errors import CardFileError

CARDS = load_card_set()
B13_ORDER = [
    "Goblin Raider",
    "Flame Lancer",
    "Berserker",
    "Fire Drake",
    "Fireball",
    "War Cry",
    "Scorching Strike",
    "Skeleton Soldier",
    "Shadow Assassin",
    "Vampire Lord",
    "Death Curse",
    "Dark Pact",
    "Grave Knight",
    "Night Ambush",
    "Sky Scout",
    "Cloud Archer",
    "Storm Mage",
    "Leviathan",
    "Tidal Return",
    "Insight",
    "Wind Ward",
    "Wolf Pack",
    "Forest Guardian",
    "Great Bear",
    "Ancient Wyrm",
    "Giant Growth",
    "Nature's Blessing",
    "Elven Ranger",
    "Mercenary",
    "Hero's Crown",
]


# --------------------------------------------------------------------------- reference set


def test_reference_set_ids_follow_the_file():
    assert [c.name for c in CARDS.cards] == B13_ORDER
    assert [c.id for c in CARDS.cards] == list(range(30))
    assert [a.name for a in CARDS.avatars] == [
        "Flame Warlord",
        "Night Queen",
        "Sky Sage",
        "Beast King",
    ]
    assert [a.id for a in CARDS.avatars] == [0, 1, 2, 3]


def test_reference_avatars_match_b13():
    rows = {a.name: (a.faction, a.hp, a.hand, a.charisma, a.race) for a in CARDS.avatars}
    assert rows == {
        "Flame Warlord": ("R", 20, 5, 5, "Human"),
        "Night Queen": ("K", 18, 6, 5, "Vampire"),
        "Sky Sage": ("U", 20, 5, 6, "Elf"),
        "Beast King": ("G", 22, 5, 5, "Beast"),
    }
    warlord = CARDS.avatar_by_name("flame warlord").ability
    assert (warlord.kind, warlord.target, warlord.effects) == (
        "activated",
        "own_unit",
        (Effect("pump", (500, 0)),),
    )
    queen = CARDS.avatar_by_name("Night Queen").ability
    assert (queen.kind, queen.effects) == ("on_enemy_destroyed", (Effect("heal_avatar", (1,)),))
    king = CARDS.avatar_by_name("Beast King").ability
    assert (king.kind, king.race, king.power, king.attack) == ("race_bonus", "Beast", 500, 0)
    assert CARDS.avatar_by_name("Sky Sage").ability.kind == "none"
    assert CARDS.avatar_by_name("Night Queen").japanese == "夜の女王"


def test_reference_units_match_b13():
    def row(name):
        c = CARDS.by_name(name)
        return (c.kind, c.cost, c.condition.text, c.faction, c.race, c.power, c.attack, c.keywords)

    assert row("Goblin Raider") == ("unit", 1, "", "R", "Goblin", 1000, 1, {"BLITZ", "HORDE"})
    assert row("Fire Drake") == ("unit", 5, "(R)(R)(1)", "R", "Dragon", 5000, 3, {"FLYING"})
    assert row("Grave Knight") == ("unit", 2, "(K)", "K", "Undead", 2500, 1, {"PROTECTION"})
    assert row("Leviathan") == ("unit", 5, "(U)(U)(2)", "U", "Serpent", 6000, 3, set())
    assert row("Wolf Pack") == ("unit", 1, "", "G", "Beast", 1000, 1, {"HORDE"})
    assert row("Great Bear") == ("unit", 3, "(G)(1)", "G", "Beast", 3000, 2, set())
    assert row("Ancient Wyrm") == ("unit", 5, "(G)(G)(2)", "G", "Dragon", 4500, 3, {"FIRST_STRIKE"})
    assert row("Forest Guardian")[5:7] == (2500, 0)
    assert row("Mercenary") == ("unit", 2, "(1)", "N", "Human", 2000, 1, set())
    assassin = CARDS.by_name("Shadow Assassin")
    assert (assassin.trigger, assassin.target, [e.text for e in assassin.effects]) == (
        "on_deploy",
        "enemy_unit",
        ["damage_unit(1000)"],
    )
    mage = CARDS.by_name("Storm Mage")
    assert (mage.trigger, mage.target, [e.text for e in mage.effects]) == (
        "on_deploy",
        "none",
        ["draw(1)"],
    )
    assert CARDS.by_name("Cloud Archer").keyword_bits == 1  # RANGED
    assert CARDS.by_name("Goblin Raider").keyword_bits == 2 | 32  # BLITZ, HORDE


def test_reference_operations_match_b13():
    def row(name):
        c = CARDS.by_name(name)
        return (c.kind, c.cost, c.condition.text, c.timing, c.target, [e.text for e in c.effects])

    assert row("Fireball") == ("operation", 2, "(R)", "fast", "unit", ["damage_unit(2000)"])
    assert row("War Cry") == ("operation", 1, "(R)", "fast", "own_unit", ["pump(1000, 1)"])
    assert row("Scorching Strike") == (
        "operation",
        3,
        "(R)(R)",
        "normal",
        "none",
        ["damage_avatar(2)"],
    )
    assert row("Death Curse") == (
        "operation",
        3,
        "(K)(K)",
        "normal",
        "unit",
        ["destroy_unit(3000)"],
    )
    assert row("Dark Pact") == ("operation", 1, "(K)", "normal", "none", ["draw(2)", "lose_hp(2)"])
    assert row("Night Ambush") == ("operation", 2, "(K)(1)", "fast", "enemy_unit", ["tap"])
    assert row("Tidal Return") == ("operation", 2, "(U)", "fast", "unit", ["bounce"])
    assert row("Insight") == ("operation", 2, "(U)", "normal", "none", ["draw(2)"])
    assert row("Wind Ward") == (
        "operation",
        1,
        "(U)",
        "fast",
        "own_unit",
        ["untap", "pump(500, 0)"],
    )
    assert row("Giant Growth") == ("operation", 1, "(G)", "fast", "unit", ["pump(2000, 0)"])
    assert row("Nature's Blessing") == (
        "operation",
        2,
        "(G)(1)",
        "normal",
        "none",
        ["heal_avatar(4)"],
    )
    assert row("Hero's Crown") == ("operation", 4, "(3)", "normal", "none", ["win_if_units(8)"])
    assert all(c.cost >= 1 for c in CARDS.cards)
    assert all(c.japanese for c in CARDS.cards)


def test_conditions():
    condition = Condition.parse("(R)(K)(1)")
    assert condition.colours == (1, 0, 0, 1) and condition.generic == 1
    assert condition.total == 3 and condition.text == "(R)(K)(1)"
    assert condition.is_met({"R": 1, "K": 1, "N": 1})
    assert not condition.is_met({"R": 2, "N": 1})
    assert not condition.is_met({"R": 1, "K": 1})
    assert Condition.parse("").total == 0 and Condition.parse("").is_met({"G": 1})
    assert Condition.parse("(U)(U)(2)").colours == (0, 2, 0, 0)
    for bad in ("(X)", "(1)(R)", "R", "(R) (K)", "(1)(2)", "—"):
        with pytest.raises(ValueError):
            Condition.parse(bad)


def test_digest_is_sha256_of_the_file():
    expected = hashlib.sha256(default_card_path().read_bytes()).hexdigest()
    assert CARDS.digest == expected
    assert load_card_set(default_card_path()).digest == expected


# --------------------------------------------------------------------------- decks


def test_prebuilt_decks_match_b13():
    decks = prebuilt_decks(CARDS)
    assert set(decks) == {"crimson_conqueror", "wild_grove"}
    crimson, grove = decks["crimson_conqueror"], decks["wild_grove"]
    assert (crimson.name, crimson.avatar.name, crimson.size) == (
        "Crimson Conqueror",
        "Flame Warlord",
        40,
    )
    assert (grove.name, grove.avatar.name, grove.size) == ("Wild Grove", "Beast King", 40)
    assert crimson.cards(CARDS) == {
        "Goblin Raider": 6,
        "Flame Lancer": 4,
        "Berserker": 4,
        "Fire Drake": 2,
        "Fireball": 4,
        "War Cry": 3,
        "Scorching Strike": 2,
        "Skeleton Soldier": 4,
        "Shadow Assassin": 3,
        "Death Curse": 3,
        "Grave Knight": 3,
        "Mercenary": 2,
    }
    assert grove.cards(CARDS) == {
        "Wolf Pack": 6,
        "Forest Guardian": 4,
        "Great Bear": 4,
        "Ancient Wyrm": 2,
        "Giant Growth": 3,
        "Nature's Blessing": 2,
        "Elven Ranger": 3,
        "Sky Scout": 4,
        "Cloud Archer": 3,
        "Tidal Return": 3,
        "Insight": 2,
        "Hero's Crown": 2,
        "Mercenary": 2,
    }
    assert grove.multiset()[CARDS.card_id("Wolf Pack")] == 6
    assert len(grove.counts) == len(CARDS.cards)
    assert grove.card_set_digest == CARDS.digest
    path = default_deck_dir() / "wild_grove.toml"
    assert grove.digest == hashlib.sha256(path.read_bytes()).hexdigest()


def test_prebuilt_decks_default_card_set():
    assert prebuilt_decks()["wild_grove"].size == 40


def test_legal_decks_for_night_queen_and_sky_sage():
    queen = build_deck(
        CARDS,
        "Night Queen",
        {
            "Skeleton Soldier": 12,
            "Shadow Assassin": 4,
            "Vampire Lord": 4,
            "Death Curse": 4,
            "Dark Pact": 4,
            "Grave Knight": 4,
            "Night Ambush": 4,
            "Mercenary": 4,
        },
        name="Night",
    )
    assert queen.size == 40 and queen.avatar.name == "Night Queen"
    sage = build_deck(
        CARDS,
        "sky sage",
        {
            "Sky Scout": 4,
            "Cloud Archer": 4,
            "Storm Mage": 4,
            "Leviathan": 4,
            "Tidal Return": 4,
            "Insight": 4,
            "Wind Ward": 4,
            "Mercenary": 4,
            "Goblin Raider": 8,
        },
    )
    assert sage.size == 40 and sage.avatar.name == "Sky Sage"


def test_horde_cards_have_no_copy_limit():
    deck = build_deck(CARDS, "Beast King", {"Wolf Pack": 40})
    assert deck.cards(CARDS) == {"Wolf Pack": 40}


def _deck_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "deck.toml"
    path.write_text(text, encoding="utf-8")
    return path


GROVE = (default_deck_dir() / "wild_grove.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "old,new,message",
    [
        ('"Wolf Pack" = 6', '"Wolf Pack" = 5', "39 cards, a deck needs at least 40"),
        (
            '"Great Bear" = 4',
            '"Great Bear" = 5',
            "card 'Great Bear': 5 copies, at most 4 of a card without HORDE",
        ),
        ('"Insight" = 2', '"Foresight" = 2', "unknown card 'Foresight'"),
        ('avatar = "Beast King"', 'avatar = "Beast Queen"', "unknown avatar 'Beast Queen'"),
        ('avatar = "Beast King"\n', "", "deck 'Wild Grove': missing field 'avatar'"),
        ('"Insight" = 2', '"Insight" = 0', "card 'Insight': the count must be at least 1"),
        ('"Insight" = 2', '"Insight" = "two"', "card 'Insight': the count must be a whole number"),
        ('"Insight" = 2', '"Insight" = 1\n"insight" = 1', "card 'Insight': listed twice"),
        ('name = "Wild Grove"', 'name = "Wild Grove"\ncolour = "green"', "unknown field 'colour'"),
    ],
)
def test_broken_deck_names_file_and_card(tmp_path, old, new, message):
    assert old in GROVE, old
    path = _deck_file(tmp_path, GROVE.replace(old, new, 1))
    with pytest.raises(CardFileError) as caught:
        load_deck(path, CARDS)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_deck_name_defaults_to_file_name(tmp_path):
    path = tmp_path / "green_mob.toml"
    path.write_text('avatar = "Beast King"\n[cards]\n"Wolf Pack" = 40\n', encoding="utf-8")
    assert load_deck(path, CARDS).name == "green_mob"


def test_unreadable_and_invalid_deck_files(tmp_path):
    with pytest.raises(CardFileError, match="cannot read"):
        load_deck(tmp_path / "missing.toml", CARDS)
    with pytest.raises(CardFileError, match="not a valid TOML"):
        load_deck(_deck_file(tmp_path, "avatar = \n"), CARDS)


# --------------------------------------------------------------------------- broken card files


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = default_card_path().read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "old,new,message",
    [
        # the validation errors the brief lists
        (
            'keywords = ["FIRST_STRIKE"]',
            'keywords = ["FIRST-STRIKE"]',
            "card 'Flame Lancer': unknown keyword 'FIRST-STRIKE'",
        ),
        (
            'effects = ["heal_avatar(4)"]',
            'effects = ["heal(4)"]',
            "card 'Nature's Blessing': unknown effect 'heal'",
        ),
        (
            'target = "enemy_unit"\n\n[[card]]  # K3',
            'target = "foe"\n\n[[card]]  # K3',
            "card 'Shadow Assassin': unknown target kind 'foe'",
        ),
        (
            'race = "Dragon"\npower = 5000',
            "power = 5000",
            "card 'Fire Drake': missing field 'race'",
        ),
        ("power = 6000", "power = -6000", "card 'Leviathan': field 'power' is negative (-6000)"),
        (
            'attack = 3\nkeywords = ["FIRST_STRIKE"]',
            'attack = -3\nkeywords = ["FIRST_STRIKE"]',
            "card 'Ancient Wyrm': field 'attack' is negative",
        ),
        ('name = "Insight"', 'name = "Tidal Return"', "card 'Tidal Return': duplicate name"),
        ('name = "Insight"', 'name = "tidal return"', "card 'tidal return': duplicate name"),
        ('condition = "(U)(U)(2)"', 'condition = "(U)(2)(U)"', "card 'Leviathan': bad condition"),
        ('condition = "(G)(G)(2)"', 'condition = "GG2"', "card 'Ancient Wyrm': bad condition"),
        # missing fields and wrong types
        (
            'cost = 4\ncondition = "(K)(K)(1)"',
            'condition = "(K)(K)(1)"',
            "card 'Vampire Lord': missing field 'cost'",
        ),
        (
            'timing = "normal"\neffects = ["draw(2)"]',
            'effects = ["draw(2)"]',
            "card 'Insight': missing field 'timing'",
        ),
        (
            'condition = "(R)"\nrace = "Human"\npower = 2000',
            'race = "Human"\npower = 2000',
            "card 'Flame Lancer': missing field 'condition'",
        ),
        ('name = "Mercenary"', 'nom = "Mercenary"', "card #29: missing field 'name'"),
        ("hp = 18", 'hp = "eighteen"', "avatar 'Night Queen': field 'hp' must be a whole number"),
        ("charisma = 6", "charisma = -6", "avatar 'Sky Sage': field 'charisma' is negative"),
        ("hand = 6", "", "avatar 'Night Queen': missing field 'hand'"),
        # effects and targets
        (
            'effects = ["pump(1000, 1)"]',
            'effects = ["pump(1000)"]',
            "card 'War Cry': effect 'pump(1000)' must be written pump(power, attack)",
        ),
        (
            'effects = ["damage_unit(2000)"]',
            'effects = ["damage_unit(-2000)"]',
            "card 'Fireball': effect 'damage_unit(-2000)': x is negative",
        ),
        (
            'effects = ["tap"]\ntarget = "enemy_unit"',
            'effects = ["tap"]',
            "card 'Night Ambush': effect 'tap' needs a target",
        ),
        (
            'effects = ["damage_avatar(2)"]',
            'effects = ["damage_avatar(2)"]\ntarget = "unit"',
            "card 'Scorching Strike': target 'unit' given, but no effect uses a target",
        ),
        (
            'trigger = "on_deploy"\neffects = ["draw(1)"]',
            'effects = ["draw(1)"]',
            "card 'Storm Mage': missing field 'trigger'",
        ),
        (
            'trigger = "on_deploy"\neffects = ["draw(1)"]',
            'trigger = "on_attack"\neffects = ["draw(1)"]',
            "card 'Storm Mage': unknown trigger 'on_attack'",
        ),
        (
            'effects = ["win_if_units(8)"]',
            "effects = []",
            "card 'Hero's Crown': an operation needs at least one effect",
        ),
        (
            'effects = ["draw(2)", "lose_hp(2)"]',
            'effects = ["draw(1)", "draw(1)", "draw(1)", "draw(1)", "lose_hp(2)"]',
            "card 'Dark Pact': 5 effects, at most 4",
        ),
        # other rules of the format
        (
            'cost = 1\ncondition = "(G)"',
            'cost = 0\ncondition = "(G)"',
            "card 'Giant Growth': field 'cost' must be between 1 and 99 (0)",
        ),
        (
            'timing = "fast"\neffects = ["bounce"]',
            'timing = "fast"\nkeywords = ["FLYING"]\neffects = ["bounce"]',
            "card 'Tidal Return': keyword 'FLYING' has no meaning on an operation",
        ),
        (
            'timing = "fast"\neffects = ["bounce"]',
            'timing = "instant"\neffects = ["bounce"]',
            "card 'Tidal Return': unknown timing 'instant'",
        ),
        (
            'type = "unit"\nfaction = "N"',
            'type = "creature"\nfaction = "N"',
            "card 'Mercenary': unknown card type 'creature'",
        ),
        (
            'faction = "N"\ncost = 2',
            'faction = "W"\ncost = 2',
            "card 'Mercenary': unknown faction 'W'",
        ),
        (
            'name = "Mercenary"',
            'name = "Retainer"',
            "card 'Retainer': the name 'Retainer' is reserved",
        ),
        ('name = "Mercenary"', 'name = "Mercenary 2"', "card 'Mercenary 2': a name must"),
        ('name = "Mercenary"', 'name = "Merce  nary"', "card 'Merce  nary': a name must"),
        (
            'japanese = "傭兵"',
            "japanese = 3",
            "card 'Mercenary': field 'japanese' must be a string",
        ),
        (
            "power = 2000\nattack = 1\n\n[[card]]  # N2",
            "power = 2000\nattack = 1\nspeed = 3\n\n[[card]]  # N2",
            "card 'Mercenary': unknown field 'speed' for a unit",
        ),
        # avatar abilities
        (
            'ability = { kind = "race_bonus"',
            'ability = { kind = "aura"',
            "avatar 'Beast King': ability: unknown ability kind 'aura'",
        ),
        (
            'effects = ["heal_avatar(1)"]',
            'effects = ["draw(1)"]',
            "avatar 'Night Queen': ability: effect 'draw' cannot be used",
        ),
        (
            'effects = ["pump(500, 0)"], target = "own_unit"',
            'effects = ["pump(500, 0)"]',
            "avatar 'Flame Warlord': ability: effect 'pump' needs a target",
        ),
        (
            'race = "Beast", power = 500',
            "power = 500",
            "avatar 'Beast King': ability: missing field 'race'",
        ),
        (
            '[[avatar]]\nname = "Sky Sage"',
            '[[avatr]]\nname = "Sky Sage"',
            "section 'avatr': unknown section ([[avatar]] and [[card]] only)",
        ),
    ],
)
def test_broken_card_file_names_file_and_card(tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    with pytest.raises(CardFileError) as caught:
        load_card_set(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unreadable_and_invalid_card_files(tmp_path):
    with pytest.raises(CardFileError, match="cannot read"):
        load_card_set(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[card]\nname=", encoding="utf-8")
    with pytest.raises(CardFileError, match="not a valid TOML"):
        load_card_set(bad)


def test_small_card_file_and_limits(tmp_path):
    avatar = (
        '[[avatar]]\nname = "Hermit"\nfaction = "N"\nhp = 10\nhand = 3\ncharisma = 3\n'
        'race = "Human"\n'
    )
    unit = (
        '[[card]]\nname = "Pawn {n}"\ntype = "unit"\nfaction = "N"\ncost = 1\n'
        'condition = ""\nrace = "Human"\npower = 1000\nattack = 1\n'
    )
    path = tmp_path / "small.toml"
    path.write_text(avatar + unit.replace("{n}", "A"), encoding="utf-8")
    small = load_card_set(path)
    assert [c.name for c in small.cards] == ["Pawn A"] and small.cards[0].japanese == ""
    assert small.avatars[0].ability.kind == "none"
    letters = [a + b for a in "ABCDEFGHIJ" for b in "ABCDEFGHIJ"][:65]
    path.write_text(avatar + "".join(unit.replace("{n}", n) for n in letters), encoding="utf-8")
    with pytest.raises(CardFileError, match="65 cards, at most 64"):
        load_card_set(path)
    path.write_text(unit.replace("{n}", "A"), encoding="utf-8")
    with pytest.raises(CardFileError, match="defines no avatar"):
        load_card_set(path)


def test_changed_card_needs_no_rebuild(tmp_path):
    """A card file with different numbers loads and drives the same code."""
    path = _broken(tmp_path, "power = 4500", "power = 5000")
    assert load_card_set(path).by_name("Ancient Wyrm").power == 5000
