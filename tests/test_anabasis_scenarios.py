"""Scenario tests of the Anabasis rules, run on both backends: the pure-Python
oracle (src/anabasis/oracle.py) and the C core (xenophon._core.anabasis).

Each test builds a position (a canonical dict, spec §8, turned into a state),
plays action codes of spec §7 and checks the result against the rules of
docs/anabasis-engine.md (the project's rules authority). Probabilities are checked exactly: a strike's
probabilities are its integer weights over 10,000.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from harness import SwitchedBackend
from xenophon._core import anabasis as core
from xenophon.anabasis.cards import load_card_set
from xenophon.anabasis.oracle import (
    ATTACK,
    BUY,
    BUY_PLACE,
    CHANCE,
    CRIT,
    DEAL,
    DRAW,
    END,
    EVADE,
    EVENT,
    FIELD,
    HIT,
    MISS,
    MOVE,
    PASS,
    PLACE,
    READY,
    REVEAL,
    SET,
    STRIKE,
    TERMINAL,
    OracleGame,
    decode,
    encode,
    perft,
    square,
)

CARDS = load_card_set()


class Backend(SwitchedBackend):
    """An Anabasis game whose states come from the backend under test."""

    def __init__(self, cards, mode):
        super().__init__(
            OracleGame(cards, mode), core.CoreState, core.Tables(cards.core_data(), mode)
        )


@pytest.fixture(autouse=True, params=["oracle", "c"])
def backend(request):
    """Every scenario runs on the oracle and on the C core."""
    with SwitchedBackend.using(request.param):
        yield request.param


STANDARD = Backend(CARDS, "standard")
EXPERT = Backend(CARDS, "expert")


# ---------------------------------------------------------------------------
# Notation-independent helpers


def cid(name: str) -> int:
    return CARDS.by_name(name).id


def fid(name: str) -> int:
    return CARDS.field_by_name(name).id


def sq(name: str) -> int:
    return square(name)


def attack(a: str, b: str) -> int:
    return encode(ATTACK, sq(a), sq(b))


def move(a: str, b: str) -> int:
    return encode(MOVE, sq(a), sq(b))


def event(slot: int, arg: int = 0) -> int:
    """EVENT with a 0-based slot, as in the codes."""
    return encode(EVENT, slot, arg)


def strike(outcome: int) -> int:
    return encode(STRIKE, outcome)


def strike_odds(state) -> dict[str, float]:
    assert state.is_chance()
    names = {MISS: "miss", HIT: "hit", CRIT: "crit"}
    odds = {}
    for code, p in state.chance_outcomes():
        kind, x, _ = decode(code)
        assert kind == STRIKE
        odds[names[x]] = p
    return odds


def weights(miss: int, hit: int, crit: int) -> dict[str, float]:
    """Expected strike odds from weights over 10,000 (zero weights are not listed)."""
    odds = {"miss": miss / 10000, "hit": hit / 10000, "crit": crit / 10000}
    return {k: v for k, v in odds.items() if v}


def outcome_table(state) -> dict[int, float]:
    return dict(state.chance_outcomes())


# ---------------------------------------------------------------------------
# Position builder


def blank(
    phase: str = "field",
    active: int = 0,
    turn: int = 5,
    mode: str = "standard",
    field: dict | None = None,
) -> dict:
    hp = 10 if mode == "standard" else 15
    players = [
        {
            "castle_hp": hp,
            "ap": 3,
            "funds": 0,
            "hand": {},
            "deck": {},
            "flow": {},
            "cemetery": {},
            "slots": [None, None, None],
        }
        for _ in range(2)
    ]
    return {
        "turn": turn,
        "active": active,
        "current": active,
        "phase": phase,
        "result": None,
        "players": players,
        "grid": {},
        "market": {"tops": [None, None, None], "piles": [{}, {}, {}], "row": {}, "row_pile": {}},
        "field": field,
    }


def put(d: dict, where: str, name: str, owner: int, **changes) -> None:
    is_character = CARDS.by_name(name).kind == "character"
    piece = {
        "card": name,
        "owner": owner,
        "damage": 0,
        "ready": is_character,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }
    piece.update(changes)
    d["grid"][where] = piece


def slot(d: dict, seat: int, index: int, name: str, face_up: bool = False) -> None:
    d["players"][seat]["slots"][index] = {"card": name, "face_up": face_up}


def build(d: dict, game: Backend = STANDARD):
    state = game.state_from_dict(d)
    assert state.to_dict() == d, "the builder must round-trip"
    return state


def duel() -> dict:
    """Seat 0 Militia on c3 facing seat 1 Militia on c4, in each other's range."""
    d = blank()
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    return d


# ---------------------------------------------------------------------------
# Action codes (spec §7)


def test_action_codes():
    assert encode(END) == 0
    assert encode(PASS) == 1 << 12
    assert encode(ATTACK, sq("c3"), sq("d4")) == 7 << 12 | 16 << 6 | 24
    assert decode(encode(BUY_PLACE, 17, 9)) == (BUY_PLACE, 17, 9)
    assert (
        END,
        PASS,
        BUY,
        BUY_PLACE,
        PLACE,
        SET,
        MOVE,
        ATTACK,
        READY,
        EVENT,
        EVADE,
        DEAL,
        REVEAL,
        FIELD,
        DRAW,
        STRIKE,
    ) == tuple(range(16))
    assert (MISS, HIT, CRIT) == (0, 1, 2)
    assert (sq("a1"), sq("g1"), sq("a2"), sq("d1"), sq("d6"), sq("a6")) == (0, 6, 7, 3, 38, 35)
    with pytest.raises(ValueError):
        encode(16, 0, 0)


# ---------------------------------------------------------------------------
# Setup (spec §2)


def play_setup(state, picks: dict[int, list[str]] | None = None) -> list[int]:
    """Plays the setup chance nodes (the lowest outcome unless picked); returns their kinds."""
    kinds = []
    while state.is_chance():
        codes = state.legal_actions()
        kind = decode(codes[0])[0]
        kinds.append(kind)
        wanted = (picks or {}).get(kind)
        if wanted:
            name = wanted.pop(0)
            x = fid(name) if kind == FIELD else cid(name)
            state.apply(encode(kind, x))
        else:
            state.apply(codes[0])
    return kinds


def test_initial_state_before_setup():
    s = STANDARD.new_initial_state()
    d = s.to_dict()
    assert set(d) == {
        "turn",
        "active",
        "current",
        "phase",
        "result",
        "players",
        "grid",
        "market",
        "field",
    }
    assert (d["turn"], d["active"], d["current"], d["phase"], d["result"]) == (
        1,
        0,
        "chance",
        "chance",
        None,
    )
    assert s.current_player() == CHANCE and s.is_chance() and not s.is_terminal()
    for seat, funds in ((0, 0), (1, 1)):  # D-12
        p = d["players"][seat]
        assert p == {
            "castle_hp": 10,
            "ap": 0,
            "funds": funds,
            "hand": {},
            "deck": {"Militia": 6},
            "flow": {},
            "cemetery": {},
            "slots": [None, None, None],
        }
    assert d["grid"] == {
        "g1": {
            "card": "Village",
            "owner": 0,
            "damage": 0,
            "ready": False,
            "moved": False,
            "face_down": False,
            "atk_bonus": 0,
        },
        "a6": {
            "card": "Village",
            "owner": 1,
            "damage": 0,
            "ready": False,
            "moved": False,
            "face_down": False,
            "atk_bonus": 0,
        },
    }
    assert d["market"]["tops"] == [None, None, None]
    assert d["market"]["piles"][0] == {"Spearman": 3, "Scout": 2, "Archer": 3, "Shieldbearer": 2}
    assert d["market"]["piles"][2] == {
        "Knight": 2,
        "Siege Tower": 2,
        "Sorcerer": 2,
        "General": 1,
        "Dragon": 1,
    }
    assert d["market"]["row"] == {}
    assert sum(d["market"]["row_pile"].values()) == 24
    assert "Nullify" not in d["market"]["row_pile"]
    assert d["field"] is None
    # First node: deal one of the three starting events into seat 0's slot 1.
    assert s.chance_outcomes() == [
        (encode(DEAL, cid("Flood Disaster")), 1 / 3),
        (encode(DEAL, cid("Emergency Evasion")), 1 / 3),
        (encode(DEAL, cid("Nullify")), 1 / 3),
    ]


def test_setup_sequence_standard():
    s = STANDARD.new_initial_state()
    s.apply(encode(DEAL, cid("Nullify")))
    assert s.to_dict()["players"][0]["slots"][0] == {"card": "Nullify", "face_up": False}
    assert s.chance_outcomes() == [
        (encode(DEAL, cid("Flood Disaster")), 0.5),
        (encode(DEAL, cid("Emergency Evasion")), 0.5),
    ]
    s.apply(encode(DEAL, cid("Flood Disaster")))
    assert s.chance_outcomes() == [(encode(DEAL, cid("Emergency Evasion")), 1.0)]  # E-1
    s.apply(encode(DEAL, cid("Emergency Evasion")))
    for _ in range(3):  # seat 1's three deals
        assert decode(s.legal_actions()[0])[0] == DEAL
        s.apply(s.legal_actions()[0])
    # Pile A's top: 3 Spearman, 2 Scout, 3 Archer, 2 Shieldbearer.
    assert s.chance_outcomes() == [
        (encode(REVEAL, cid("Spearman")), 0.3),
        (encode(REVEAL, cid("Scout")), 0.2),
        (encode(REVEAL, cid("Archer")), 0.3),
        (encode(REVEAL, cid("Shieldbearer")), 0.2),
    ]
    s.apply(encode(REVEAL, cid("Archer")))
    assert outcome_table(s) == {
        encode(REVEAL, cid(n)): 0.2
        for n in ("Swordsman", "Pikeman", "Cavalry", "Crossbowman", "Catapult")
    }
    s.apply(encode(REVEAL, cid("Catapult")))
    assert outcome_table(s)[encode(REVEAL, cid("General"))] == 1 / 8
    s.apply(encode(REVEAL, cid("Dragon")))
    # Five cards of the row pile (24 cards: 3 Villages, 3 Farms, 2 of the others).
    assert outcome_table(s)[encode(REVEAL, cid("Village"))] == 3 / 24
    for name in ("Village", "Village", "Rally", "Mine", "Farm"):
        s.apply(encode(REVEAL, cid(name)))
    # Draws: seat 0 then seat 1, a single possible outcome each time.
    for _ in range(6):
        assert s.chance_outcomes() == [(encode(DRAW, cid("Militia")), 1.0)]
        s.apply(encode(DRAW, cid("Militia")))
    d = s.to_dict()
    assert (d["turn"], d["active"], d["current"], d["phase"]) == (1, 0, 0, "standby1")
    assert d["market"]["tops"] == ["Archer", "Catapult", "Dragon"]
    assert d["market"]["piles"][0] == {"Spearman": 3, "Scout": 2, "Archer": 2, "Shieldbearer": 2}
    assert d["market"]["row"] == {"Village": 2, "Farm": 1, "Mine": 1, "Rally": 1}
    assert sum(d["market"]["row_pile"].values()) == 19
    p0, p1 = d["players"]
    # Seat 0's Standby 1 has run: AP 3, funds 0 + 2 (castle) + 1 (Village).
    assert (p0["ap"], p0["funds"], p0["hand"], p0["deck"]) == (3, 3, {"Militia": 3}, {"Militia": 3})
    assert (p1["ap"], p1["funds"], p1["hand"], p1["deck"]) == (0, 1, {"Militia": 3}, {"Militia": 3})
    assert [x["card"] for x in p0["slots"]] == ["Nullify", "Flood Disaster", "Emergency Evasion"]
    assert all(not x["face_up"] for x in p0["slots"] + p1["slots"])
    assert d["field"] is None


def test_setup_sequence_expert():
    s = EXPERT.new_initial_state()
    assert s.to_dict()["players"][0]["castle_hp"] == 15
    kinds = []
    while s.is_chance():
        codes = s.legal_actions()
        kinds.append(decode(codes[0])[0])
        if kinds[-1] == FIELD:
            assert s.chance_outcomes() == [(encode(FIELD, f), 1 / 6) for f in range(6)]
            s.apply(encode(FIELD, fid("Clear Skies")))
        else:
            s.apply(codes[0])
    assert kinds == [DEAL] * 6 + [REVEAL] * 8 + [FIELD] + [DRAW] * 6
    d = s.to_dict()
    # Turn 1: the field card does not run down at the first Standby 1.
    assert d["field"] == {"active": "Clear Skies", "remaining": 3, "revealed": ["Clear Skies"]}
    assert d["phase"] == "standby1"


def test_setup_kinds_standard():
    kinds = play_setup(STANDARD.new_initial_state())
    assert kinds == [DEAL] * 6 + [REVEAL] * 3 + [REVEAL] * 5 + [DRAW] * 6


def test_setup_skips_empty_piles():
    """A card file with an empty pile B skips its reveal."""
    import dataclasses

    cards = dataclasses.replace(
        CARDS,
        cards=tuple(dataclasses.replace(c, copies=0) if c.pile == "B" else c for c in CARDS.cards),
    )
    kinds = play_setup(Backend(cards, "standard").new_initial_state())
    assert kinds == [DEAL] * 6 + [REVEAL] * 2 + [REVEAL] * 5 + [DRAW] * 6


# ---------------------------------------------------------------------------
# Standby 1 automatic steps, income, End and Draw phases (spec §3.2, §3.6)


def to_seat0_turn(d: dict, game: Backend = STANDARD, draws: list[str] | None = None):
    """From seat 1's standby2 (built from d), END and draw until seat 0's standby1."""
    s = build(d, game)
    s.apply(encode(END))
    for name in draws or []:
        s.apply(encode(DRAW, cid(name)))
    return s


def test_standby1_steps_and_income():
    d = blank(phase="standby2", active=1, turn=4)
    p0 = d["players"][0]
    p0.update(ap=1, funds=10)
    slot(d, 0, 0, "Rally", face_up=True)  # spent: goes to the cemetery
    slot(d, 0, 1, "Windfall")  # face down: stays
    put(d, "c3", "Militia", 0, damage=2, ready=False, moved=True)
    put(d, "g1", "Village", 0, damage=1)
    put(d, "b2", "Farm", 0, face_down=True)  # bought and placed last turn
    put(d, "e2", "Town", 0)
    put(d, "c4", "Militia", 1, damage=1, ready=False)
    s = to_seat0_turn(d)
    d = s.to_dict()
    assert (d["turn"], d["active"], d["phase"], d["current"]) == (5, 0, "standby1", 0)
    p0 = d["players"][0]
    assert p0["slots"] == [None, {"card": "Windfall", "face_up": False}, None]
    assert p0["cemetery"] == {"Rally": 1}
    assert d["grid"]["c3"] == {
        "card": "Militia",
        "owner": 0,
        "damage": 0,
        "ready": True,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }
    assert d["grid"]["g1"]["damage"] == 0
    assert d["grid"]["b2"]["face_down"] is False and d["grid"]["b2"]["ready"] is False
    assert d["grid"]["c4"]["damage"] == 1 and d["grid"]["c4"]["ready"] is False  # not seat 0's
    # AP set to 3 + 1 (Town); funds 10 + 2 + 1 (Village) + 2 (Farm, turned up first) + 1 (Town).
    assert (p0["ap"], p0["funds"]) == (4, 16)


def test_income_caps_funds_at_99():
    d = blank(phase="standby2", active=1, turn=4)
    d["players"][0]["funds"] = 97
    put(d, "g1", "Village", 0)
    s = to_seat0_turn(d)
    assert s.to_dict()["players"][0]["funds"] == 99


def test_face_down_territory_earns_nothing_before_turning_up():
    """BUY_PLACE puts a territory face down; it only counts from its owner's next Standby 1."""
    d = blank(phase="standby2", active=0, turn=4)
    d["players"][0].update(funds=6, ap=1)
    d["market"]["row"] = {"Mine": 1}
    s = build(d)
    s.apply(encode(BUY_PLACE, cid("Mine"), sq("c2")))
    assert s.to_dict()["grid"]["c2"]["face_down"] is True
    s.apply(encode(END))  # seat 0 ends; seat 1's turn (no cards to draw)
    assert s.to_dict()["players"][0]["funds"] == 0
    assert s.to_dict()["phase"] == "standby1" and s.to_dict()["active"] == 1
    assert s.to_dict()["grid"]["c2"]["face_down"] is True  # only its owner's Standby 1 turns it
    s.apply(encode(END))
    s.apply(encode(END))
    s.apply(encode(END))  # seat 1's turn ends; seat 0's Standby 1
    d = s.to_dict()
    assert d["grid"]["c2"]["face_down"] is False
    assert d["players"][0]["funds"] == 0 + 2 + 3


def test_end_phase_merges_and_draws_fewer_when_deck_runs_out():
    d = blank(phase="standby2", active=0, turn=7)
    p0 = d["players"][0]
    p0.update(hand={"Archer": 1}, flow={"Village": 1}, deck={})
    put(d, "c3", "Militia", 0, atk_bonus=2)
    put(d, "c5", "Militia", 1, atk_bonus=2)
    s = build(d)
    s.apply(encode(END))
    d = s.to_dict()
    assert d["grid"]["c3"]["atk_bonus"] == 0 and d["grid"]["c5"]["atk_bonus"] == 0
    assert d["players"][0]["deck"] == {"Archer": 1, "Village": 1}
    assert d["players"][0]["hand"] == {} and d["players"][0]["flow"] == {}
    assert (d["phase"], d["turn"], d["active"]) == ("chance", 7, 0)
    assert s.chance_outcomes() == [
        (encode(DRAW, cid("Archer")), 0.5),
        (encode(DRAW, cid("Village")), 0.5),
    ]
    s.apply(encode(DRAW, cid("Village")))
    assert s.chance_outcomes() == [(encode(DRAW, cid("Archer")), 1.0)]
    s.apply(encode(DRAW, cid("Archer")))
    # Only two cards: no third draw; the turn passes to seat 1.
    d = s.to_dict()
    assert (d["turn"], d["active"], d["phase"]) == (8, 1, "standby1")
    assert d["players"][0]["hand"] == {"Archer": 1, "Village": 1}


def test_turn_limit_is_a_draw():
    d = blank(phase="standby2", active=1, turn=200)
    d["players"][1]["hand"] = {"Militia": 2}
    d["players"][1]["deck"] = {"Militia": 3}
    s = build(d)
    s.apply(encode(END))
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.returns() == [0.0, 0.0]
    d = s.to_dict()
    assert (d["phase"], d["current"], d["result"]) == ("over", None, [0, 0])
    assert d["players"][1]["deck"] == {"Militia": 5} and d["players"][1]["hand"] == {}
    assert s.legal_actions() == [] and s.chance_outcomes() == []
    # One turn earlier the game goes on.
    d = blank(phase="standby2", active=1, turn=199)
    s = build(d)
    s.apply(encode(END))
    assert not s.is_terminal() and s.to_dict()["turn"] == 200


# ---------------------------------------------------------------------------
# Buying, placing, setting; market refill (spec §3)


def market_position() -> dict:
    d = blank(phase="standby1")
    d["players"][0].update(funds=5, ap=1, hand={"Militia": 1, "Village": 1, "Rally": 1})
    d["market"]["tops"] = ["Archer", "Cavalry", "Dragon"]
    d["market"]["piles"] = [{"Scout": 1, "Spearman": 2}, {}, {"Knight": 1}]
    d["market"]["row"] = {"Village": 2, "Mine": 1, "Windfall": 1}
    d["market"]["row_pile"] = {"Farm": 1, "Sabotage": 1}
    return d


def test_standby_legal_actions():
    s = build(market_position())
    legal = set(s.legal_actions())
    home = [q for q in range(14) if q != sq("d1")]
    assert encode(END) in legal
    assert {encode(BUY, cid(n)) for n in ("Archer", "Cavalry", "Village", "Windfall")} <= legal
    assert encode(BUY, cid("Dragon")) not in legal  # 10 > 5 funds
    assert encode(BUY, cid("Mine")) not in legal  # 6 > 5 funds
    # BUY_PLACE: territories of the row only, every free home square but the castle.
    assert {c for c in legal if decode(c)[0] == BUY_PLACE} == {
        encode(BUY_PLACE, cid("Village"), q) for q in home
    }
    assert {c for c in legal if decode(c)[0] == PLACE} == {
        encode(PLACE, cid(n), q) for n in ("Militia", "Village") for q in home
    }
    assert encode(SET, cid("Rally")) in legal
    assert s.legal_actions() == sorted(s.legal_actions())


def test_no_place_without_ap_and_no_set_without_empty_slot():
    d = market_position()
    d["players"][0]["ap"] = 0
    for i, name in enumerate(("Flood Disaster", "Nullify")):
        slot(d, 0, i, name, face_up=True)  # spent events still occupy their slot
    slot(d, 0, 2, "Ambush")
    s = build(d)
    kinds = {decode(c)[0] for c in s.legal_actions()}
    assert kinds == {END, BUY}


def test_buy_from_pile_and_refill():
    s = build(market_position())
    s.apply(encode(BUY, cid("Archer")))
    d = s.to_dict()
    assert d["players"][0]["funds"] == 2 and d["players"][0]["flow"] == {"Archer": 1}
    assert d["market"]["tops"] == [None, "Cavalry", "Dragon"] and d["phase"] == "chance"
    assert s.chance_outcomes() == [
        (encode(REVEAL, cid("Spearman")), 2 / 3),
        (encode(REVEAL, cid("Scout")), 1 / 3),
    ]
    s.apply(encode(REVEAL, cid("Scout")))
    d = s.to_dict()
    assert d["market"]["tops"][0] == "Scout" and d["market"]["piles"][0] == {"Spearman": 2}
    assert (d["phase"], d["current"]) == ("standby1", 0)


def test_buy_from_empty_pile_leaves_top_empty():
    d = market_position()
    d["players"][0]["funds"] = 5
    s = build(d)
    s.apply(encode(BUY, cid("Cavalry")))  # pile B holds nothing more
    d = s.to_dict()
    assert d["market"]["tops"] == ["Archer", None, "Dragon"] and d["phase"] == "standby1"
    assert encode(BUY, cid("Cavalry")) not in s.legal_actions()


def test_buy_from_row_and_refill():
    s = build(market_position())
    s.apply(encode(BUY, cid("Village")))
    d = s.to_dict()
    assert d["market"]["row"] == {"Village": 1, "Mine": 1, "Windfall": 1}
    assert d["players"][0]["flow"] == {"Village": 1} and d["players"][0]["funds"] == 3
    assert s.chance_outcomes() == [
        (encode(REVEAL, cid("Farm")), 0.5),
        (encode(REVEAL, cid("Sabotage")), 0.5),
    ]
    s.apply(encode(REVEAL, cid("Sabotage")))
    assert s.to_dict()["market"]["row"] == {"Village": 1, "Mine": 1, "Windfall": 1, "Sabotage": 1}
    assert s.to_dict()["market"]["row_pile"] == {"Farm": 1}


def test_buy_from_row_with_empty_row_pile():
    d = market_position()
    d["market"]["row_pile"] = {}
    s = build(d)
    s.apply(encode(BUY, cid("Windfall")))
    assert s.to_dict()["phase"] == "standby1"
    assert s.to_dict()["market"]["row"] == {"Village": 2, "Mine": 1}


def test_buy_place_territory_face_down():
    s = build(market_position())
    s.apply(encode(BUY_PLACE, cid("Village"), sq("c2")))
    d = s.to_dict()
    assert d["grid"]["c2"] == {
        "card": "Village",
        "owner": 0,
        "damage": 0,
        "ready": False,
        "moved": False,
        "face_down": True,
        "atk_bonus": 0,
    }
    assert (d["players"][0]["funds"], d["players"][0]["ap"]) == (3, 0)
    assert d["players"][0]["flow"] == {}
    assert d["phase"] == "chance"  # the row is refilled


def test_place_and_set():
    s = build(market_position())
    s.apply(encode(PLACE, cid("Militia"), sq("a2")))
    d = s.to_dict()
    assert d["grid"]["a2"] == {
        "card": "Militia",
        "owner": 0,
        "damage": 0,
        "ready": True,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }
    assert d["players"][0]["ap"] == 0 and d["players"][0]["hand"] == {"Village": 1, "Rally": 1}
    s.undo()
    s.apply(encode(PLACE, cid("Village"), sq("b1")))
    assert s.to_dict()["grid"]["b1"]["face_down"] is False
    d = market_position()
    slot(d, 0, 0, "Nullify")
    s = build(d)
    s.apply(encode(SET, cid("Rally")))  # lowest empty slot: slot 2
    d = s.to_dict()
    assert d["players"][0]["slots"] == [
        {"card": "Nullify", "face_up": False},
        {"card": "Rally", "face_up": False},
        None,
    ]
    assert d["players"][0]["ap"] == 1 and d["phase"] == "standby1"


def test_seat1_home_zone():
    d = blank(phase="standby1", active=1)
    d["players"][1]["hand"] = {"Militia": 1}
    put(d, "a6", "Village", 1)
    s = build(d)
    places = {decode(c)[2] for c in s.legal_actions() if decode(c)[0] == PLACE}
    assert places == set(range(28, 42)) - {sq("d6"), sq("a6")}


def test_phases_in_order():
    s = build(blank(phase="standby1"))
    s.apply(encode(END))
    assert s.to_dict()["phase"] == "field"
    s.apply(encode(END))
    assert s.to_dict()["phase"] == "standby2"
    s.apply(encode(END))
    d = s.to_dict()
    assert (d["phase"], d["active"], d["turn"]) == ("standby1", 1, 6)


# ---------------------------------------------------------------------------
# Field phase actions (spec §3.5)


def test_field_moves_ready_and_costs():
    d = blank()
    d["players"][0]["ap"] = 2
    put(d, "d2", "Militia", 0)
    put(d, "e2", "Militia", 0, ready=False)
    put(d, "c2", "Militia", 1)
    s = build(d)
    legal = s.legal_actions()
    # d2: ORTH1 -> d3, c2 (enemy), e2 (own), d1 (castle): only d3.
    assert [c for c in legal if decode(c)[0] == MOVE] == [move("d2", "d3")]
    assert encode(READY, sq("e2")) in legal
    assert attack("d2", "c2") not in legal  # c2 is not in FRONT3 of d2
    s.apply(move("d2", "d3"))
    after = s.to_dict()
    assert "d2" not in after["grid"] and after["grid"]["d3"]["moved"]
    assert after["grid"]["d3"]["ready"] and after["players"][0]["ap"] == 1
    s.apply(move("d3", "d4"))  # several moves, 1 AP each (D-8)
    assert s.to_dict()["players"][0]["ap"] == 0
    assert [decode(c)[0] for c in s.legal_actions()] == [END]  # no AP for READY or MOVE
    s = build(d)
    s.apply(encode(READY, sq("e2")))
    after = s.to_dict()
    assert after["grid"]["e2"]["ready"] is True and after["players"][0]["ap"] == 1
    assert move("e2", "e3") in s.legal_actions()


def test_attack_targets():
    d = blank()
    put(d, "d5", "Militia", 0)
    put(d, "c6", "Village", 1)
    put(d, "e6", "Militia", 0)
    s = build(d)
    attacks = [c for c in s.legal_actions() if decode(c)[0] == ATTACK]
    # c6 (enemy territory), d6 (enemy castle); e6 is own; e6's FRONT3 leaves the board.
    assert attacks == [attack("d5", "c6"), attack("d5", "d6")]


def test_attack_cost_moved_is_free():
    d = duel()
    d["players"][0]["ap"] = 0
    d["grid"]["c3"]["moved"] = True
    s = build(d)
    assert attack("c3", "c4") in s.legal_actions()
    d["grid"]["c3"]["moved"] = False
    s = build(d)
    assert attack("c3", "c4") not in s.legal_actions()


def test_illegal_action_raises_and_leaves_state():
    s = build(duel())
    before = s.to_dict()
    with pytest.raises(ValueError):
        s.apply(move("c3", "c5"))
    with pytest.raises(ValueError):
        s.apply(strike(HIT))
    assert s.to_dict() == before
    with pytest.raises(IndexError):
        s.undo()


# ---------------------------------------------------------------------------
# Battle (spec §4)


def test_basic_battle_with_counter_strike():
    s = build(duel())
    s.apply(attack("c3", "c4"))
    d = s.to_dict()
    assert (d["phase"], d["current"], d["players"][0]["ap"]) == ("chance", "chance", 2)
    # No face-down event for seat 1: no response window. Militia 75 HIT, 5 CRIT, in range.
    assert strike_odds(s) == weights(2500, 7125, 375)
    s.apply(strike(HIT))
    assert s.to_dict()["grid"]["c4"]["damage"] == 1
    # Counter-strike: c3 is in the seat-1 Militia's FRONT3 (b3, c3, d3).
    assert strike_odds(s) == weights(2500, 7125, 375)
    s.apply(strike(CRIT))
    d = s.to_dict()
    assert d["grid"]["c3"]["damage"] == 2
    assert d["grid"]["c3"]["ready"] is False and d["grid"]["c3"]["moved"] is False
    assert (d["phase"], d["current"]) == ("field", 0)


def test_out_of_range_bonus_and_no_counter():
    d = blank()
    put(d, "c2", "Spearman", 0)
    put(d, "c4", "Militia", 1)
    s = build(d)
    s.apply(attack("c2", "c4"))
    # c2 is not in the target's FRONT3 (b3, c3, d3): +20 HIT, +10 CRIT -> 95 / 15.
    assert strike_odds(s) == weights(500, 95 * 85, 95 * 15)
    s.apply(strike(HIT))
    d = s.to_dict()
    assert d["grid"]["c4"]["damage"] == 2
    assert d["phase"] == "field"  # no counter-strike: out of range


def test_crit_doubles_and_destroys():
    d = blank()
    put(d, "c2", "Spearman", 0)
    put(d, "c4", "Militia", 1)
    s = build(d)
    s.apply(attack("c2", "c4"))
    s.apply(strike(CRIT))  # 2 x 2 = 4 >= 3 HP
    d = s.to_dict()
    assert "c4" not in d["grid"] and d["players"][1]["cemetery"] == {"Militia": 1}
    assert d["phase"] == "field"


def test_miss_deals_nothing_and_destroyed_target_no_counter():
    s = build(duel())
    s.apply(attack("c3", "c4"))
    s.apply(strike(MISS))
    assert s.to_dict()["grid"]["c4"]["damage"] == 0
    assert s.is_chance()  # counter-strike still comes
    d = duel()
    d["grid"]["c4"]["damage"] = 2
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))
    assert s.to_dict()["phase"] == "field" and "c4" not in s.to_dict()["grid"]


def test_counter_strike_by_exhausted_target():
    d = duel()
    d["grid"]["c4"]["ready"] = False
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(strike(MISS))
    assert s.is_chance()


def test_armored():
    d = blank()
    put(d, "c2", "Spearman", 0)
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Shieldbearer", 1)
    s = build(d)
    s.apply(attack("c2", "c4"))
    s.apply(strike(HIT))  # 2 - 1
    assert s.to_dict()["grid"]["c4"]["damage"] == 1
    s.undo()
    s.apply(strike(CRIT))  # 4 - 1
    assert s.to_dict()["grid"]["c4"]["damage"] == 3
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))  # 1 - 1, at least 1
    assert s.to_dict()["grid"]["c4"]["damage"] == 1
    # The Shieldbearer's counter-strike: 70 HIT, 0 CRIT: the crit is not listed.
    assert strike_odds(s) == weights(3000, 7000, 0)
    s.apply(strike(HIT))
    assert s.to_dict()["grid"]["c3"]["damage"] == 1


def test_charge():
    d = blank()
    put(d, "c2", "Cavalry", 0)
    put(d, "c4", "Swordsman", 1)
    s = build(d)
    s.apply(move("c2", "c3"))
    assert s.to_dict()["players"][0]["ap"] == 2
    s.apply(attack("c3", "c4"))
    assert s.to_dict()["players"][0]["ap"] == 2  # free: the attacker is moved
    assert strike_odds(s) == weights(2500, 75 * 90, 75 * 10)
    s.apply(strike(HIT))  # 3 + 1 (CHARGE)
    assert s.to_dict()["grid"]["c4"]["damage"] == 4
    assert strike_odds(s) == weights(2000, 80 * 90, 80 * 10)  # the Swordsman strikes back
    s.apply(strike(CRIT))  # 3 x 2, no CHARGE of its own
    assert "c3" not in s.to_dict()["grid"]  # 6 >= 5 HP: Cavalry destroyed
    # Crit with CHARGE: (3 + 1) x 2.
    s = build(d)
    s.apply(move("c2", "c3"))
    s.apply(attack("c3", "c4"))
    s.apply(strike(CRIT))
    assert "c4" not in s.to_dict()["grid"]
    # Without moving: no CHARGE, 1 AP.
    d["grid"]["c3"] = d["grid"].pop("c2")
    s = build(d)
    s.apply(attack("c3", "c4"))
    assert s.to_dict()["players"][0]["ap"] == 2
    s.apply(strike(HIT))
    assert s.to_dict()["grid"]["c4"]["damage"] == 3


def test_siege():
    d = blank()
    put(d, "d3", "Catapult", 0)
    put(d, "c6", "Fort", 1)
    put(d, "d5", "Swordsman", 1)
    s = build(d)
    legal = s.legal_actions()
    assert attack("d3", "d6") in legal and attack("d3", "c6") in legal
    s.apply(attack("d3", "d6"))
    assert strike_odds(s) == weights(4000, 60 * 95, 60 * 5)  # no bonus against a castle
    s.apply(strike(HIT))  # 3 x 2
    assert s.to_dict()["players"][1]["castle_hp"] == 4
    s.undo()
    s.apply(strike(CRIT))  # 3 x 3 (D-13)
    assert s.to_dict()["players"][1]["castle_hp"] == 1
    s = build(d)
    s.apply(attack("d3", "c6"))
    s.apply(strike(HIT))  # 3 x 2 = 6 >= 6 HP
    assert "c6" not in s.to_dict()["grid"]
    assert s.to_dict()["players"][1]["cemetery"] == {"Fort": 1}


def test_siege_numbers_exactly():
    # SIEGE x2 on a territory, x3 with a crit; plain hit / crit on a character.
    d = blank()
    put(d, "d3", "Catapult", 0)
    put(d, "c6", "Mine", 1, damage=0)  # 4 HP
    put(d, "d5", "General", 1)  # 8 HP
    s = build(d)
    s.apply(attack("d3", "d5"))
    s.apply(strike(HIT))
    assert s.to_dict()["grid"]["d5"]["damage"] == 3
    s.undo()
    s.apply(strike(CRIT))
    assert s.to_dict()["grid"]["d5"]["damage"] == 6
    # Siege Tower: SIEGE and ARMORED on a castle (ARMORED is not the castle's).
    d = blank()
    put(d, "d5", "Siege Tower", 0)
    s = build(d)
    s.apply(attack("d5", "d6"))
    s.apply(strike(CRIT))
    assert s.to_dict()["players"][1]["castle_hp"] == 10 - 9


def test_command():
    d = duel()
    put(d, "b3", "General", 0)
    s = build(d)
    s.apply(attack("c3", "c4"))
    assert strike_odds(s) == weights(1500, 85 * 95, 85 * 5)  # +10
    s = build(d)
    s.apply(attack("b3", "c4"))  # the General itself: no +10
    assert strike_odds(s) == weights(1500, 85 * 85, 85 * 15)
    put(d, "d2", "General", 0)  # a second COMMAND: no stacking
    s = build(d)
    s.apply(attack("c3", "c4"))
    assert strike_odds(s) == weights(1500, 85 * 95, 85 * 5)
    s = build(d)
    s.apply(attack("b3", "c4"))  # the other General is not adjacent
    assert strike_odds(s) == weights(1500, 85 * 85, 85 * 15)
    put(d, "b2", "General", 0)
    s = build(d)
    s.apply(attack("b3", "c4"))  # b2 is adjacent to b3
    assert strike_odds(s) == weights(500, 95 * 85, 95 * 15)


def test_command_on_counter_strike_and_enemy_command():
    d = duel()
    put(d, "b5", "General", 1)  # adjacent to c4, not to c3
    s = build(d)
    s.apply(attack("c3", "c4"))
    assert strike_odds(s) == weights(2500, 75 * 95, 75 * 5)  # not the attacker's
    s.apply(strike(MISS))
    assert strike_odds(s) == weights(1500, 85 * 95, 85 * 5)  # the counter-strike has it


def test_hit_clamped_at_100_drops_miss():
    d = blank()
    put(d, "c2", "Sorcerer", 0)  # RING2 reaches c4
    put(d, "c4", "Militia", 1)
    put(d, "b1", "General", 0)  # adjacent to c2
    s = build(d)
    s.apply(attack("c2", "c4"))
    # 90 + 10 + 20 = 120 -> 100; CRIT 10 + 10.
    assert strike_odds(s) == weights(0, 100 * 80, 100 * 20)


def test_castle_attack_and_castle_loss():
    d = blank()
    put(d, "d5", "Militia", 0)
    d["players"][1]["castle_hp"] = 2
    s = build(d)
    s.apply(attack("d5", "d6"))
    assert strike_odds(s) == weights(2500, 7125, 375)
    s.apply(strike(HIT))
    assert s.to_dict()["players"][1]["castle_hp"] == 1 and s.to_dict()["phase"] == "field"
    s.undo()
    s.apply(strike(CRIT))  # 2 - 2 = 0: seat 1 loses
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    d = s.to_dict()
    assert (d["phase"], d["current"], d["result"]) == ("over", None, [1, -1])


def test_castle_hp_may_go_below_zero():
    d = blank()
    put(d, "d3", "Catapult", 0)
    d["players"][1]["castle_hp"] = 5
    s = build(d)
    s.apply(attack("d3", "d6"))
    s.apply(strike(CRIT))
    assert s.to_dict()["players"][1]["castle_hp"] == -4 and s.returns() == [1.0, -1.0]


def test_bounty():
    d = blank()
    d["players"][0]["funds"] = 10
    put(d, "c5", "Militia", 0)
    put(d, "c6", "Mine", 1, damage=3)
    put(d, "b6", "Farm", 1, damage=2, face_down=True)
    s = build(d)
    s.apply(attack("c5", "c6"))
    s.apply(strike(HIT))
    d2 = s.to_dict()
    assert "c6" not in d2["grid"] and d2["players"][1]["cemetery"] == {"Mine": 1}
    assert d2["players"][0]["funds"] == 10 + 3  # floor(6 / 2)
    assert d2["phase"] == "field"
    s = build(d)
    s.apply(attack("c5", "b6"))  # face-down Farm: floor(4 / 2)
    s.apply(strike(HIT))
    assert s.to_dict()["players"][0]["funds"] == 12
    s = build(d)
    s.apply(attack("c5", "c6"))
    s.apply(strike(MISS))  # nothing destroyed, no bounty
    assert s.to_dict()["players"][0]["funds"] == 10


def test_bounty_capped_at_99():
    d = blank()
    d["players"][0]["funds"] = 98
    put(d, "c5", "Militia", 0)
    put(d, "c6", "Mine", 1, damage=3)
    s = build(d)
    s.apply(attack("c5", "c6"))
    s.apply(strike(HIT))
    assert s.to_dict()["players"][0]["funds"] == 99


# ---------------------------------------------------------------------------
# Response window, Nullify window, the response events (spec §4.1, §5.1, §5.3)


def evasion_position() -> dict:
    d = blank()
    put(d, "d4", "Militia", 0)
    put(d, "d5", "Militia", 1, ready=False)
    slot(d, 1, 1, "Emergency Evasion")
    return d


def test_response_window_offered_with_only_pass():
    d = duel()
    slot(d, 1, 0, "Flood Disaster")  # E-3: no matching event
    s = build(d)
    s.apply(attack("c3", "c4"))
    d = s.to_dict()
    assert (d["phase"], d["current"]) == ("response", 1)
    assert s.legal_actions() == [encode(PASS)]
    s.apply(encode(PASS))
    assert strike_odds(s) == weights(2500, 7125, 375)


def test_emergency_evasion():
    s = build(evasion_position())
    s.apply(attack("d4", "d5"))
    assert s.legal_actions() == [encode(PASS), event(1)]
    s.apply(event(1))
    d = s.to_dict()
    assert d["players"][1]["slots"][1] == {"card": "Emergency Evasion", "face_up": True}
    # No strike; the attacker paid and is exhausted; the target may move.
    assert (d["phase"], d["current"]) == ("evade", 1)
    assert d["players"][0]["ap"] == 2 and d["grid"]["d4"]["ready"] is False
    # d5's ORTH1 for seat 1: d4 (attacker), c5, e5, d6 (castle).
    assert s.legal_actions() == [encode(PASS), encode(EVADE, sq("c5")), encode(EVADE, sq("e5"))]
    s.apply(encode(EVADE, sq("e5")))
    d = s.to_dict()
    assert "d5" not in d["grid"]
    assert d["grid"]["e5"] == {
        "card": "Militia",
        "owner": 1,
        "damage": 0,
        "ready": False,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }
    assert (d["phase"], d["current"]) == ("field", 0)
    assert d["players"][1]["ap"] == 3  # the move is free


def test_emergency_evasion_pass_stays():
    s = build(evasion_position())
    s.apply(attack("d4", "d5"))
    s.apply(event(1))
    s.apply(encode(PASS))
    d = s.to_dict()
    assert "d5" in d["grid"] and d["phase"] == "field"


def test_emergency_evasion_without_free_square_skips_move():
    d = evasion_position()
    put(d, "c5", "Militia", 1)
    put(d, "e5", "Militia", 1)
    s = build(d)
    s.apply(attack("d4", "d5"))
    s.apply(event(1))
    assert s.to_dict()["phase"] == "field"  # E-4


def test_nullify_answers_emergency_evasion():
    d = evasion_position()
    slot(d, 0, 2, "Nullify")
    s = build(d)
    s.apply(attack("d4", "d5"))
    s.apply(event(1))
    d = s.to_dict()
    assert (d["phase"], d["current"]) == ("nullify", 0)
    assert s.legal_actions() == [encode(PASS), event(2)]
    s.apply(event(2))
    d = s.to_dict()
    assert d["players"][0]["slots"][2] == {"card": "Nullify", "face_up": True}
    assert d["players"][1]["slots"][1]["face_up"] is True  # the evasion is spent anyway
    # The battle goes on as if there were no response: main strike, counter-strike.
    assert strike_odds(s) == weights(2500, 7125, 375)
    s.apply(strike(HIT))
    assert s.is_chance()
    s.apply(strike(HIT))
    d = s.to_dict()
    assert d["grid"]["d5"]["damage"] == 1 and d["grid"]["d4"]["damage"] == 1
    assert (d["phase"], d["current"]) == ("field", 0)  # no evasion move


def test_nullify_window_pass_keeps_the_response():
    d = evasion_position()
    slot(d, 0, 0, "Rally")  # any face-down event opens it
    s = build(d)
    s.apply(attack("d4", "d5"))
    s.apply(event(1))
    assert s.to_dict()["phase"] == "nullify" and s.legal_actions() == [encode(PASS)]
    s.apply(encode(PASS))
    assert s.to_dict()["phase"] == "evade"


def test_nullify_is_never_a_response():
    d = duel()
    slot(d, 1, 0, "Nullify")
    s = build(d)
    s.apply(attack("c3", "c4"))
    assert s.legal_actions() == [encode(PASS)]


def ambush_position() -> dict:
    d = blank()
    put(d, "c2", "Spearman", 0)
    put(d, "c4", "Swordsman", 1)
    slot(d, 1, 0, "Ambush")
    return d


def test_ambush():
    s = build(ambush_position())
    s.apply(attack("c2", "c4"))
    assert s.legal_actions() == [encode(PASS), event(0)]
    s.apply(event(0))
    # The target strikes first, whatever the range (c2 is outside its KING), no bonus.
    assert strike_odds(s) == weights(2000, 80 * 90, 80 * 10)
    s.apply(strike(HIT))
    assert s.to_dict()["grid"]["c2"]["damage"] == 3
    # Then the attacker strikes normally (out of range of the Swordsman: +20 / +10).
    assert strike_odds(s) == weights(500, 95 * 85, 95 * 15)
    s.apply(strike(HIT))
    d = s.to_dict()
    assert d["grid"]["c4"]["damage"] == 2
    assert (d["phase"], d["current"]) == ("field", 0)  # no counter-strike afterwards
    assert d["grid"]["c2"]["ready"] is False


def test_ambush_destroys_attacker_first():
    d = ambush_position()
    d["grid"]["c2"]["damage"] = 1
    s = build(d)
    s.apply(attack("c2", "c4"))
    s.apply(event(0))
    s.apply(strike(HIT))  # 1 + 3 >= 4 HP
    d = s.to_dict()
    assert "c2" not in d["grid"] and d["players"][0]["cemetery"] == {"Spearman": 1}
    assert d["grid"]["c4"]["damage"] == 0
    assert (d["phase"], d["current"]) == ("field", 0)


def test_ambush_and_charge():
    """CHARGE never on the Ambush strike; the attacker's main strike keeps it."""
    d = blank()
    put(d, "c3", "Swordsman", 0, moved=True)
    put(d, "c4", "Cavalry", 1)
    slot(d, 1, 0, "Ambush")
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(event(0))
    s.apply(strike(HIT))  # Cavalry: 3, no CHARGE
    assert s.to_dict()["grid"]["c3"]["damage"] == 3
    d = blank()
    put(d, "c3", "Cavalry", 0, moved=True)
    put(d, "c4", "Swordsman", 1)
    slot(d, 1, 0, "Ambush")
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(event(0))
    s.apply(strike(HIT))  # the Swordsman's 3
    assert strike_odds(s) == weights(2500, 75 * 90, 75 * 10)  # c3 is in its range: no bonus
    s.apply(strike(HIT))  # Cavalry: 3 + 1
    d = s.to_dict()
    assert d["grid"]["c4"]["damage"] == 4 and d["phase"] == "field"


def test_fortify():
    d = blank()
    put(d, "d5", "Militia", 0)
    put(d, "c6", "Village", 1)
    slot(d, 1, 0, "Fortify")
    slot(d, 1, 1, "Emergency Evasion")
    slot(d, 1, 2, "Ambush")
    s = build(d)
    s.apply(attack("d5", "d6"))
    assert s.legal_actions() == [encode(PASS), event(0)]  # only fortify for a castle
    s.apply(event(0))
    d2 = s.to_dict()
    assert d2["players"][1]["castle_hp"] == 10 and d2["phase"] == "field"
    assert d2["grid"]["d5"]["ready"] is False and d2["players"][0]["ap"] == 2
    s = build(d)
    s.apply(attack("d5", "c6"))
    assert s.legal_actions() == [encode(PASS), event(0)]  # and for a territory
    s.apply(event(0))
    assert s.to_dict()["grid"]["c6"]["damage"] == 0
    # Against a character: evasion and ambush, not fortify.
    put(d, "e6", "Militia", 1)
    s = build(d)
    s.apply(attack("d5", "e6"))
    assert s.legal_actions() == [encode(PASS), event(1), event(2)]


def test_nullify_answers_fortify():
    d = blank()
    put(d, "d5", "Militia", 0)
    slot(d, 1, 0, "Fortify")
    slot(d, 0, 0, "Nullify")
    s = build(d)
    s.apply(attack("d5", "d6"))
    s.apply(event(0))
    s.apply(event(0))  # seat 0's Nullify in its slot 1
    s.apply(strike(HIT))
    assert s.to_dict()["players"][1]["castle_hp"] == 9


# ---------------------------------------------------------------------------
# Own-turn events (spec §5.2)


def test_event_legality():
    d = blank()
    for i, name in enumerate(("Flood Disaster", "Rally", "Sabotage")):
        slot(d, 0, i, name)
    s = build(d)
    events = [c for c in s.legal_actions() if decode(c)[0] == EVENT]
    assert events == [event(0, r) for r in range(6)]  # no own character, no enemy land
    put(d, "c3", "Militia", 0, ready=False)
    put(d, "b5", "Farm", 1, face_down=True)
    put(d, "g1", "Village", 0)
    s = build(d)
    events = [c for c in s.legal_actions() if decode(c)[0] == EVENT]
    assert events == [event(0, r) for r in range(6)] + [event(1, sq("c3")), event(2, sq("b5"))]
    d = blank()
    for i, name in enumerate(("Nullify", "Ambush", "Forced March")):
        slot(d, 0, i, name)
    s = build(d)
    assert [c for c in s.legal_actions() if decode(c)[0] == EVENT] == [event(2)]
    slot(d, 0, 2, "Windfall", face_up=True)  # spent: not playable
    s = build(d)
    assert [c for c in s.legal_actions() if decode(c)[0] == EVENT] == []


def test_flood():
    d = blank()
    slot(d, 0, 0, "Flood Disaster")
    put(d, "a3", "Militia", 0, damage=1)  # own card, destroyed
    put(d, "c3", "Shieldbearer", 0)  # no ARMORED against a flood
    put(d, "e3", "Militia", 1)
    put(d, "e4", "Militia", 1)  # another rank
    s = build(d)
    s.apply(event(0, 2))  # rank 3
    d = s.to_dict()
    assert d["players"][0]["slots"][0] == {"card": "Flood Disaster", "face_up": True}
    assert "a3" not in d["grid"] and d["players"][0]["cemetery"] == {"Militia": 1}
    assert d["grid"]["c3"]["damage"] == 2 and d["grid"]["e3"]["damage"] == 2
    assert d["grid"]["e4"]["damage"] == 0
    assert (d["phase"], d["current"], d["players"][0]["ap"]) == ("field", 0, 3)  # free


def test_flood_spares_territories():
    d = blank()
    slot(d, 0, 0, "Flood Disaster")
    put(d, "g1", "Village", 0)
    put(d, "a1", "Militia", 0)
    s = build(d)
    s.apply(event(0, 0))
    d = s.to_dict()
    assert d["grid"]["g1"]["damage"] == 0 and d["grid"]["a1"]["damage"] == 2


def test_flood_nullified():
    d = blank()
    slot(d, 0, 0, "Flood Disaster")
    slot(d, 1, 2, "Nullify")
    put(d, "e3", "Militia", 1)
    s = build(d)
    s.apply(event(0, 2))
    d = s.to_dict()
    assert (d["phase"], d["current"]) == ("nullify", 1)
    assert s.legal_actions() == [encode(PASS), event(2)]
    s.apply(event(2))
    d = s.to_dict()
    assert d["grid"]["e3"]["damage"] == 0 and d["phase"] == "field"
    assert d["players"][0]["slots"][0]["face_up"] and d["players"][1]["slots"][2]["face_up"]


def test_event_window_pass():
    d = blank()
    slot(d, 0, 0, "Flood Disaster")
    slot(d, 1, 0, "Fortify")  # any face-down event opens it
    put(d, "e3", "Militia", 1)
    s = build(d)
    s.apply(event(0, 2))
    assert s.legal_actions() == [encode(PASS)]
    s.apply(encode(PASS))
    assert s.to_dict()["grid"]["e3"]["damage"] == 2


def test_flood_simultaneous_loss_is_a_draw():
    d = blank()
    slot(d, 0, 0, "Flood Disaster")
    d["players"][0]["cemetery"] = {"Militia": 4, "Village": 3, "Rally": 5}
    d["players"][1]["cemetery"] = {"Militia": 7}
    put(d, "a3", "Militia", 0, damage=1)
    put(d, "e3", "Militia", 1, damage=1)
    s = build(d)
    s.apply(event(0, 2))
    assert s.is_terminal() and s.returns() == [0.0, 0.0]
    assert s.to_dict()["result"] == [0, 0]


def test_rally_stacks_and_ends_with_the_turn():
    d = duel()
    d["grid"]["c4"]["card"] = "Swordsman"
    slot(d, 0, 0, "Rally")
    slot(d, 0, 1, "Rally")
    s = build(d)
    s.apply(event(0, sq("c3")))
    s.apply(event(1, sq("c3")))
    assert s.to_dict()["grid"]["c3"]["atk_bonus"] == 4
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))  # 1 + 4 = 5 >= 5 HP
    assert "c4" not in s.to_dict()["grid"]
    s.apply(encode(END))
    s.apply(encode(END))
    assert s.to_dict()["grid"]["c3"]["atk_bonus"] == 0
    assert s.to_dict()["players"][0]["cemetery"] == {}  # spent events wait for Standby 1


def test_rally_on_crit_and_exhausted_target():
    d = duel()
    d["grid"]["c3"]["ready"] = False
    d["grid"]["c4"]["card"] = "Knight"
    slot(d, 0, 0, "Rally")
    s = build(d)
    assert event(0, sq("c3")) in s.legal_actions()  # any own character
    s.apply(event(0, sq("c3")))
    s.apply(encode(READY, sq("c3")))
    s.apply(attack("c3", "c4"))
    s.apply(strike(CRIT))  # (1 + 2) x 2
    assert s.to_dict()["grid"]["c4"]["damage"] == 6


def test_forced_march():
    d = blank()
    d["players"][0]["ap"] = 0
    slot(d, 0, 0, "Forced March")
    put(d, "c3", "Militia", 0)
    s = build(d)
    assert [decode(c)[0] for c in s.legal_actions()] == [END, EVENT]
    s.apply(event(0))
    assert s.to_dict()["players"][0]["ap"] == 2
    assert move("c3", "c4") in s.legal_actions()


def test_windfall_cap():
    d = blank()
    d["players"][0]["funds"] = 97
    slot(d, 0, 0, "Windfall")
    s = build(d)
    s.apply(event(0))
    assert s.to_dict()["players"][0]["funds"] == 99
    d["players"][0]["funds"] = 5
    s = build(d)
    s.apply(event(0))
    assert s.to_dict()["players"][0]["funds"] == 8


def test_sabotage():
    d = blank()
    d["players"][0]["funds"] = 4
    slot(d, 0, 0, "Sabotage")
    slot(d, 1, 0, "Fortify")
    put(d, "a6", "Village", 1)
    put(d, "b5", "Fort", 1, face_down=True)
    put(d, "g1", "Village", 0)
    s = build(d)
    assert [c for c in s.legal_actions() if decode(c)[0] == EVENT] == [
        event(0, sq("b5")),
        event(0, sq("a6")),
    ]
    s.apply(event(0, sq("a6")))
    # Not an attack: only the Nullify window, where Fortify is not playable.
    assert s.to_dict()["phase"] == "nullify" and s.legal_actions() == [encode(PASS)]
    s.apply(encode(PASS))
    d2 = s.to_dict()
    assert "a6" not in d2["grid"] and d2["players"][1]["cemetery"] == {"Village": 1}
    assert d2["players"][0]["funds"] == 4  # no bounty
    s = build(d)
    s.apply(event(0, sq("b5")))
    s.apply(encode(PASS))
    assert s.to_dict()["grid"]["b5"]["damage"] == 3


def test_sabotage_can_end_the_game():
    d = blank()
    slot(d, 0, 0, "Sabotage")
    d["players"][1]["cemetery"] = {"Militia": 7, "Nullify": 1}
    put(d, "a6", "Village", 1)
    s = build(d)
    s.apply(event(0, sq("a6")))
    assert s.returns() == [1.0, -1.0]


# ---------------------------------------------------------------------------
# End of the game (spec §6)


def test_cemetery_limit_counts_characters_and_territories_only():
    d = duel()
    d["players"][1]["cemetery"] = {
        "Militia": 5,
        "Village": 2,
        "Rally": 1,
        "Nullify": 1,
        "Ambush": 2,
    }
    d["grid"]["c4"]["damage"] = 2
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))
    assert s.is_terminal() and s.returns() == [1.0, -1.0]
    s.undo()
    s.apply(strike(MISS))
    assert not s.is_terminal()


def test_expert_cemetery_limit_is_12():
    d = blank(mode="expert")
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1, damage=2)
    d["players"][1]["cemetery"] = {"Militia": 10}
    s = build(d, EXPERT)
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))
    assert not s.is_terminal()
    d["players"][1]["cemetery"] = {"Militia": 11}
    s = build(d, EXPERT)
    s.apply(attack("c3", "c4"))
    s.apply(strike(HIT))
    assert s.returns() == [1.0, -1.0]


def test_counter_strike_can_lose_the_attacker_the_game():
    d = duel()
    d["grid"]["c3"]["damage"] = 2
    d["players"][0]["cemetery"] = {"Militia": 7}
    s = build(d)
    s.apply(attack("c3", "c4"))
    s.apply(strike(MISS))
    s.apply(strike(HIT))
    assert s.returns() == [-1.0, 1.0]


def test_game_over_stops_the_battle():
    """Once the game is over nothing else happens: no bounty, the attacker is not exhausted."""
    d = blank()
    d["players"][0]["funds"] = 10
    d["players"][1]["cemetery"] = {"Militia": 7}
    put(d, "c5", "Militia", 0)
    put(d, "c6", "Mine", 1, damage=3)
    s = build(d)
    s.apply(attack("c5", "c6"))
    s.apply(strike(HIT))
    d = s.to_dict()
    assert d["result"] == [1, -1] and d["phase"] == "over"
    assert d["players"][0]["funds"] == 10
    assert d["grid"]["c5"]["ready"] is True
    assert s.legal_actions() == [] and s.current_player() == TERMINAL


# ---------------------------------------------------------------------------
# Field cards (expert, spec §3.2, §11.5)


def expert_duel(field: str, remaining: int = 2, revealed: list[str] | None = None) -> dict:
    d = blank(
        mode="expert",
        field={"active": field, "remaining": remaining, "revealed": revealed or [field]},
    )
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    return d


def test_fog_and_clear_skies():
    s = build(expert_duel("Fog"), EXPERT)
    s.apply(attack("c3", "c4"))
    assert strike_odds(s) == weights(4500, 55 * 95, 55 * 5)
    s = build(expert_duel("Clear Skies", 3), EXPERT)
    s.apply(attack("c3", "c4"))
    assert strike_odds(s) == weights(1500, 85 * 95, 85 * 5)
    s.apply(strike(MISS))
    assert strike_odds(s) == weights(1500, 85 * 95, 85 * 5)  # every strike


def test_harvest():
    d = blank(
        phase="standby2",
        active=1,
        turn=6,
        mode="expert",
        field={"active": "Harvest", "remaining": 2, "revealed": ["Harvest"]},
    )
    put(d, "g1", "Village", 0)
    s = to_seat0_turn(d, EXPERT)
    d = s.to_dict()
    assert d["field"] == {"active": "Harvest", "remaining": 1, "revealed": ["Harvest"]}
    assert d["players"][0]["funds"] == 2 + 1 + 2


def test_storm():
    d = expert_duel("Storm")
    d["players"][0]["ap"] = 1
    s = build(d, EXPERT)
    assert not any(decode(c)[0] == MOVE for c in s.legal_actions())
    d["players"][0]["ap"] = 2
    s = build(d, EXPERT)
    s.apply(move("c3", "b3"))
    assert s.to_dict()["players"][0]["ap"] == 0


def test_festival():
    d = blank(
        phase="standby1",
        mode="expert",
        field={"active": "Festival", "remaining": 2, "revealed": ["Festival"]},
    )
    d["players"][0]["funds"] = 3
    d["market"]["tops"] = ["Spearman", "Swordsman", None]
    d["market"]["row"] = {"Fort": 1}
    s = build(d, EXPERT)
    legal = s.legal_actions()
    assert encode(BUY, cid("Swordsman")) in legal and encode(BUY, cid("Fort")) in legal
    s.apply(encode(BUY, cid("Spearman")))
    assert s.to_dict()["players"][0]["funds"] == 2  # max(1, 2 - 1)
    s = build(d, EXPERT)
    s.apply(encode(BUY, cid("Fort")))
    assert s.to_dict()["players"][0]["funds"] == 0
    # The bounty uses the printed cost.
    d = expert_duel("Festival")
    put(d, "c5", "Militia", 0)
    put(d, "c6", "Farm", 1, damage=2)
    s = build(d, EXPERT)
    s.apply(attack("c5", "c6"))
    s.apply(strike(HIT))
    assert s.to_dict()["players"][0]["funds"] == 2


def test_mud():
    d = expert_duel("Mud")
    d["players"][0]["ap"] = 0
    d["grid"]["c3"]["moved"] = True
    s = build(d, EXPERT)
    assert attack("c3", "c4") not in s.legal_actions()
    d["players"][0]["ap"] = 1
    d["grid"]["c3"]["card"] = "Cavalry"
    d["grid"]["c4"]["card"] = "Swordsman"
    s = build(d, EXPERT)
    s.apply(attack("c3", "c4"))
    assert s.to_dict()["players"][0]["ap"] == 0
    s.apply(strike(HIT))  # CHARGE still applies: 3 + 1
    assert s.to_dict()["grid"]["c4"]["damage"] == 4
    d["grid"]["c3"]["moved"] = False  # not moved: 1 AP as well
    s = build(d, EXPERT)
    s.apply(attack("c3", "c4"))
    assert s.to_dict()["players"][0]["ap"] == 0


def test_field_runs_down_and_a_new_card_is_drawn():
    d = blank(
        phase="standby2",
        active=1,
        turn=6,
        mode="expert",
        field={"active": "Fog", "remaining": 1, "revealed": ["Fog"]},
    )
    s = to_seat0_turn(d, EXPERT)
    d = s.to_dict()
    # At the FIELD node the old card shows remaining 0.
    assert d["phase"] == "chance"
    assert d["field"] == {"active": "Fog", "remaining": 0, "revealed": ["Fog"]}
    assert s.chance_outcomes() == [
        (encode(FIELD, fid(n)), 0.2) for n in ("Clear Skies", "Harvest", "Storm", "Festival", "Mud")
    ]
    s.apply(encode(FIELD, fid("Harvest")))
    d = s.to_dict()
    assert d["field"] == {"active": "Harvest", "remaining": 2, "revealed": ["Fog", "Harvest"]}
    assert d["players"][0]["funds"] == 2 + 2  # income comes after the field step


def test_field_cycle_once_all_are_seen():
    order = ["Mud", "Fog", "Storm", "Clear Skies", "Festival", "Harvest"]
    d = blank(
        phase="standby2",
        active=1,
        turn=30,
        mode="expert",
        field={"active": "Festival", "remaining": 1, "revealed": order},
    )
    s = to_seat0_turn(d, EXPERT)
    assert s.to_dict()["field"] == {"active": "Harvest", "remaining": 2, "revealed": order}
    d["field"]["active"] = "Harvest"
    s = to_seat0_turn(d, EXPERT)
    assert s.to_dict()["field"] == {"active": "Mud", "remaining": 2, "revealed": order}


def test_field_duration_counts_both_players_turns():
    s = EXPERT.new_initial_state()
    play_setup(s, {FIELD: ["Clear Skies"]})
    seen = []
    while True:  # END everywhere, lowest draws
        if s.is_chance():
            if decode(s.legal_actions()[0])[0] == FIELD:
                break
            s.apply(s.legal_actions()[0])
            continue
        d = s.to_dict()
        if d["phase"] == "standby1":
            seen.append((d["turn"], d["field"]["active"], d["field"]["remaining"]))
        s.apply(encode(END))
    assert seen == [(1, "Clear Skies", 3), (2, "Clear Skies", 2), (3, "Clear Skies", 1)]
    assert s.to_dict()["turn"] == 4 and decode(s.legal_actions()[0])[0] == FIELD


# ---------------------------------------------------------------------------
# Information (spec §9)


def hidden_position() -> dict:
    d = blank()
    d["players"][1].update(hand={"Militia": 1, "Archer": 1}, deck={"Militia": 2, "Rally": 1})
    slot(d, 1, 0, "Nullify")
    slot(d, 1, 1, "Windfall", face_up=True)
    d["players"][0].update(hand={"Militia": 2}, deck={"Scout": 1})
    slot(d, 0, 0, "Ambush")
    put(d, "c3", "Militia", 0)
    return d


def test_information_view_hides_the_opponent_split():
    d = hidden_position()
    e = copy.deepcopy(d)  # swap hand, DECK and slot cards
    e["players"][1].update(hand={"Militia": 1, "Nullify": 1}, deck={"Militia": 2, "Archer": 1})
    slot(e, 1, 0, "Rally")
    s, t = build(d), build(e)
    assert s.information_view(0) == t.information_view(0)
    assert s.information_view(1) != t.information_view(1)
    # Sizes are public.
    f = copy.deepcopy(d)
    f["players"][1].update(hand={"Militia": 1}, deck={"Militia": 2, "Archer": 1, "Rally": 1})
    assert build(f).information_view(0) != s.information_view(0)
    # Own cards are known exactly.
    g = copy.deepcopy(d)
    g["players"][0].update(hand={"Militia": 1, "Scout": 1}, deck={"Militia": 1})
    assert build(g).information_view(0) != s.information_view(0)
    assert build(g).information_view(1) == s.information_view(1)


def test_information_after_hidden_actions():
    # A draw of the opponent, or which event the opponent sets, cannot be told apart.
    d = blank(phase="standby2", active=1)
    d["players"][1].update(hand={"Rally": 1, "Windfall": 1}, deck={"Archer": 1, "Militia": 1})
    s = build(d)
    views = []
    for name in ("Rally", "Windfall"):
        s.apply(encode(SET, cid(name)))
        views.append((s.information_view(0), s.information_view(1)))
        s.undo()
    assert views[0][0] == views[1][0] and views[0][1] != views[1][1]
    s.apply(encode(END))
    views = []
    for name in ("Archer", "Militia"):
        s.apply(encode(DRAW, cid(name)))
        views.append((s.information_view(0), s.information_view(1)))
        s.undo()
    assert views[0][0] == views[1][0] and views[0][1] != views[1][1]


def test_resample_keeps_what_the_player_knows():
    s = build(hidden_position())
    rng = random.Random(1)
    hands = Counter()
    slots = Counter()
    for _ in range(3000):
        r = s.resample(0, rng)
        assert r.information_view(0) == s.information_view(0)
        d = r.to_dict()
        assert d["players"][0] == s.to_dict()["players"][0]
        hands[tuple(sorted(d["players"][1]["hand"].items()))] += 1
        slots[d["players"][1]["slots"][0]["card"]] += 1
    # U = Militia x3, Archer, Rally, Nullify; the slot gets Rally or Nullify (1/2 each).
    assert set(slots) == {"Rally", "Nullify"}
    assert abs(slots["Rally"] / 3000 - 0.5) < 0.04
    # Then the hand: 2 of the 5 remaining (3 Militia, Archer, the other event): C(5,2) = 10
    # equally likely pairs of copies; both Militia: 3/10.
    assert abs(hands[(("Militia", 2),)] / 3000 - 0.3) < 0.04
    # Resampling seat 1's view changes only seat 0's hidden cards.
    r = s.resample(1, random.Random(2))
    assert r.information_view(1) == s.information_view(1)


def test_resample_during_setup():
    s = STANDARD.new_initial_state()
    s.apply(encode(DEAL, cid("Nullify")))
    rng = random.Random(3)
    firsts = Counter()
    for _ in range(600):
        r = s.resample(1, rng)
        assert r.information_view(1) == s.information_view(1)
        first = r.to_dict()["players"][0]["slots"][0]["card"]
        firsts[first] += 1
        # The rest of the starting events are still to deal.
        remaining = {decode(c)[1] for c, _ in r.chance_outcomes()}
        assert cid(first) not in remaining and len(remaining) == 2
    assert set(firsts) == {"Flood Disaster", "Emergency Evasion", "Nullify"}


# ---------------------------------------------------------------------------
# Protocol: undo, clone, perft, random games


def test_perft_setup():
    s = STANDARD.new_initial_state()
    assert perft(s, 0) == 1
    assert perft(s, 1) == 3
    assert perft(s, 3) == 6  # 3! orders of seat 0's events
    assert perft(s, 6) == 36
    assert perft(s, 7) == 36 * 4  # pile A: 4 card types
    assert s.to_dict() == STANDARD.new_initial_state().to_dict()


def test_perft_counts_finished_games_as_no_leaf():
    d = blank()
    d["players"][0]["ap"] = 1
    d["players"][1]["castle_hp"] = 1
    put(d, "d5", "Militia", 0)
    for where in ("c5", "e5", "d4"):  # no room to move
        put(d, where, "Militia", 1)
    s = build(d)
    assert s.legal_actions() == [encode(END), attack("d5", "d6")]
    assert perft(s, 1) == 2
    # END -> standby2 (END only); ATTACK -> miss, hit, crit.
    assert perft(s, 2) == 1 + 3
    # END, END -> seat 1's Standby 1; miss -> field (END only); hit, crit: the game is over
    # (castle HP 0) before depth 3, so they count no leaf (the chess convention).
    assert perft(s, 3) == 1 + 1


def test_clone_is_independent():
    s = build(duel())
    c = s.clone()
    c.apply(attack("c3", "c4"))
    assert s.to_dict()["phase"] == "field" and c.to_dict()["phase"] == "chance"
    with pytest.raises(IndexError):
        s.clone().undo()


def choose(state, rng):
    if state.is_chance():
        outcomes = state.chance_outcomes()
        return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


@pytest.mark.parametrize("game", [STANDARD, EXPERT], ids=["standard", "expert"])
def test_random_games(game):
    for seed in range(6):
        rng = random.Random(seed)
        s = game.new_initial_state()
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal
            if s.is_chance():
                assert abs(sum(p for _, p in s.chance_outcomes()) - 1.0) < 1e-12
                assert s.current_player() == CHANCE
            else:
                assert s.current_player() == s.to_dict()["current"]
            before = s.to_dict()
            code = choose(s, rng)
            s.apply(code)
            if steps % 7 == 0:
                s.undo()
                assert s.to_dict() == before
                s.apply(code)
            steps += 1
        assert s.to_dict()["phase"] == "over" and s.returns() in (
            [1.0, -1.0],
            [-1.0, 1.0],
            [0.0, 0.0],
        )
