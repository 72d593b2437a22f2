"""The Anabasis card file: the reference set loads, and broken files fail clearly."""

import hashlib
from pathlib import Path

import pytest

from xenophon.anabasis.cards import default_card_path, load_card_set
from xenophon.kernel.errors import CardFileError


def test_reference_set_matches_rules_a12():
    cards = load_card_set()
    assert [c.name for c in cards.of_kind("character")] == [
        "Militia",
        "Spearman",
        "Scout",
        "Archer",
        "Shieldbearer",
        "Swordsman",
        "Pikeman",
        "Cavalry",
        "Crossbowman",
        "Catapult",
        "Knight",
        "Siege Tower",
        "Sorcerer",
        "General",
        "Dragon",
    ]
    assert [c.name for c in cards.of_kind("territory")] == [
        "Village",
        "Farm",
        "Fort",
        "Town",
        "Mine",
    ]
    assert len(cards.of_kind("event")) == 9 and len(cards.fields) == 6
    assert [c.id for c in cards.cards] == list(range(29))
    knight = cards.by_name("knight")
    assert (knight.cost, knight.hp, knight.atk, knight.hit, knight.crit) == (7, 7, 4, 80, 10)
    assert knight.keywords == {"CHARGE"} and knight.pile == "C"
    assert set(knight.move.offsets) == {
        (-1, 2),
        (1, 2),
        (-2, 1),
        (2, 1),
        (-2, -1),
        (2, -1),
        (-1, -2),
        (1, -2),
    }
    assert set(cards.by_name("Catapult").attack.offsets) == {
        (-1, 3),
        (0, 3),
        (1, 3),
        (0, 2),
        (0, 1),
    }
    assert cards.by_name("Siege Tower").keywords == {"SIEGE", "ARMORED"}
    assert cards.by_name("Militia").start_copies == 6
    assert cards.by_name("Village").start_copies == 1 and cards.by_name("Village").copies == 3
    assert cards.by_name("Nullify").timing == "response"
    assert cards.by_name("Rally").timing == "own-turn" and cards.by_name("Rally").amount == 2
    assert cards.field_by_name("storm").amount == 2
    assert len(cards.digest) == 64


def test_piles_follow_costs():
    for card in load_card_set().of_kind("character"):
        if card.pile:
            assert card.pile == ("A" if card.cost <= 3 else "B" if card.cost <= 6 else "C")


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = default_card_path().read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "old,new,message",
    [
        (
            'keywords = ["CHARGE"]',
            'keywords = ["FLYING"]',
            "character 'Cavalry': unknown keyword 'FLYING'",
        ),
        (
            "hp = 4\natk = 2\nhit = 75",
            "hp = -4\natk = 2\nhit = 75",
            "character 'Spearman': field 'hp' is negative",
        ),
        (
            'name = "Scout"\njapanese = "斥候"\npile = "A"\ncost = 2\n',
            'name = "Scout"\njapanese = "斥候"\npile = "A"\n',
            "character 'Scout': missing field 'cost'",
        ),
        ('name = "Archer"', 'name = "Spearman"', "card 'Spearman': duplicate name"),
        (
            ".....\n..x..\n.xCx.\n..x..\n.....",
            ".....\n..x..\n.xxx.\n..x..\n.....",
            "pattern 'ORTH1': must hold exactly one 'C'",
        ),
        (
            ".....\n.xxx.\n..C..\n.....\n.....",
            "....\n.xx.\n..C.\n....",
            "pattern 'FRONT3': must be an odd square",
        ),
        (
            "..x..\n..x..\n..C..",
            "..x..\n..C..\n..x..",
            "pattern 'SPEAR': must hold exactly one 'C', at its centre",
        ),
        ('effect = "windfall"', 'effect = "jackpot"', "event 'Windfall': unknown effect 'jackpot'"),
        ('move = "ORTH1"', 'move = "ORTH9"', "character 'Militia': unknown pattern 'ORTH9'"),
        ("hit = 90", "hit = 190", "character 'Sorcerer': field 'hit' must be between 0 and 100"),
        (
            "duration = 3",
            'duration = "three"',
            "field 'Clear Skies': field 'duration' must be a whole number",
        ),
        (
            'effect = "move_cost"\namount = 2',
            'effect = "move_cost"\namount = -2',
            "field 'Storm': field 'amount' must be between 0 and 100",
        ),
        (
            "funds_income = 2\ncopies = 3",
            "funds_income = 2\ncopies = 3\nstart_copies = 1",
            "territory 'Farm': only one territory can start",
        ),
        (
            'effect = "rally"\namount = 2\ncopies = 2',
            'effect = "rally"\namount = 2\ncopies = 2\nstart_copies = 1',
            "event 'Rally': at most three events start",
        ),
        (
            'japanese = "斥候"',
            "japanese = 3",
            "character 'Scout': field 'japanese' must be a string",
        ),
        ('name = "Scout"', 'nom = "Scout"', "character without a name: missing field 'name'"),
        (
            'pile = "A"\ncost = 2',
            'pile = "D"\ncost = 2',
            "character 'Spearman': unknown pile 'D' (one of A, B, C, start)",
        ),
        (
            "[[territory]]",
            "[[territories]]",
            "section 'territories': unknown section ([patterns], [[character]], "
            "[[territory]], [[event]] and [[field]] only)",
        ),
    ],
)
def test_broken_card_file_names_file_and_card(tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    with pytest.raises(CardFileError) as caught:
        load_card_set(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_digest_is_sha256_of_the_file():
    assert load_card_set().digest == hashlib.sha256(default_card_path().read_bytes()).hexdigest()


@pytest.mark.parametrize(
    "text,message",
    [
        ("patterns = 3\n", "section 'patterns': must be a table ([patterns])"),
        ("character = 3\n", "section 'character': must be a list of tables ([[character]])"),
        ("[patterns]\n", "characters: the file defines no character"),
    ],
)
def test_sections_of_the_wrong_kind(tmp_path, text, message):
    path = tmp_path / "cards.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardFileError) as caught:
        load_card_set(path)
    assert str(caught.value) == f"{path}: {message}"


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(CardFileError, match="cannot read"):
        load_card_set(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[character]\nname=", encoding="utf-8")
    with pytest.raises(CardFileError, match="not a valid TOML"):
        load_card_set(bad)


def test_changed_card_needs_no_rebuild(tmp_path):
    """A card file with different numbers loads and drives the same code."""
    path = _broken(
        tmp_path,
        'name = "Dragon"\njapanese = "竜"\npile = "C"\ncost = 10',
        'name = "Dragon"\njapanese = "竜"\npile = "C"\ncost = 9',
    )
    assert load_card_set(path).by_name("Dragon").cost == 9
