"""The Anabasis C core on its own (src/engine_c/anabasis/ through
xenophon._core.anabasis): undo byte for byte, the incremental hash,
serialisation, action order, chance weights, information sets and resampling,
perft, and rule scenarios where a slip is easy (spec docs/anabasis-engine.md).

The differential tests against the oracle are in test_anabasis_differential.py.
"""

from __future__ import annotations

import copy
import random

import pytest

from xenophon._core import anabasis as core
from xenophon.anabasis.cards import load_card_set
from xenophon.kernel.oracle import perft as walk_perft  # the tree walked in Python

CARDS = load_card_set()
TABLES = {mode: core.Tables(CARDS.core_data(), mode) for mode in ("standard", "expert")}
MODES = ("standard", "expert")


def code(kind: int, x: int = 0, y: int = 0) -> int:
    return kind << 12 | x << 6 | y


def sq(name: str) -> int:
    return (int(name[1]) - 1) * 7 + "abcdefg".index(name[0])


def cid(name: str) -> int:
    return CARDS.by_name(name).id


def choose(state, rng: random.Random) -> int:
    """A uniformly random legal action; a chance outcome with its probability."""
    if state.is_chance():
        outcomes = state.chance_outcomes()
        return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def walk(mode: str, seed: int, steps: int):
    """Yields the states of a seeded random walk (new games when one ends)."""
    rng = random.Random(seed)
    state = core.CoreState.initial(TABLES[mode])
    for _ in range(steps):
        if state.is_terminal():
            state = core.CoreState.initial(TABLES[mode])
        yield state, rng
        state.apply(choose(state, rng))


# ----------------------------------------------------------------- undo, hash


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", range(8))
def test_apply_undo_restores_every_byte_and_the_hash(mode, seed):
    for state, rng in walk(mode, seed, 2500):
        before, before_hash = state.to_bytes(), state.hash()
        legal = state.legal_actions()
        for c in rng.sample(legal, min(3, len(legal))):
            state.apply(c)
            assert state.hash() == state.hash_from_scratch()
            for player in (0, 1):
                assert state.information_set_key(player) == state.information_set_key_from_scratch(
                    player
                )
            assert state.check() is None, state.check()
            assert state.cards_conserved()
            state.undo()
            assert state.to_bytes() == before
            assert state.hash() == before_hash


@pytest.mark.parametrize("mode", MODES)
def test_undo_of_a_whole_game_returns_to_the_start(mode):
    rng = random.Random(7)
    state = core.CoreState.initial(TABLES[mode])
    start = state.to_bytes()
    seen = [start]
    while not state.is_terminal():
        state.apply(choose(state, rng))
        seen.append(state.to_bytes())
    assert state.history_size() == len(seen) - 1
    while state.history_size():
        assert state.to_bytes() == seen.pop()
        state.undo()
    assert state.to_bytes() == start
    with pytest.raises(IndexError):
        state.undo()


def test_illegal_code_raises_and_changes_nothing():
    state = core.CoreState.initial(TABLES["standard"])
    before = state.to_bytes()
    for bad in (code(core.END), code(core.DEAL, 40), -1, 1 << 16):
        with pytest.raises(ValueError):
            state.apply(bad)
        assert state.to_bytes() == before
    assert state.history_size() == 0


def test_c_loops_run_and_count():
    for mode in MODES:
        state = core.CoreState.initial(TABLES[mode])
        assert state.random_games(3, 1) > 3 * 100
        assert state.random_actions(5000, 2) == 5000
        assert state.random_actions_unkeyed(5000, 2) == 5000
        assert state.apply_undo_pairs(5000, 3) == 5000
        assert state.to_bytes() == core.CoreState.initial(TABLES[mode]).to_bytes()
    # same seed, same games
    state = core.CoreState.initial(TABLES["standard"])
    assert state.random_games(5, 42) == state.random_games(5, 42)


# ----------------------------------------------------------------- copies, bytes


def test_clone_and_bytes_round_trip():
    for state, rng in walk("expert", 3, 600):
        twin = state.clone()
        assert twin == state and twin.to_bytes() == state.to_bytes()
        assert twin.history_size() == 0
        back = core.CoreState.from_bytes(TABLES["expert"], state.to_bytes())
        assert back.to_bytes() == state.to_bytes() and back.to_dict() == state.to_dict()
        assert back.legal_actions() == state.legal_actions()
        if not twin.is_terminal():
            saved = state.to_bytes()
            twin.apply(choose(twin, rng))
            assert state.to_bytes() == saved and twin.history_size() == 1
        assert copy.copy(state) == state
    assert core.CoreState.state_size() == len(state.to_bytes()) == core.STATE_SIZE


def test_from_bytes_rejects_bad_data():
    state = core.CoreState.initial(TABLES["standard"])
    data = state.to_bytes()
    with pytest.raises(ValueError):
        core.CoreState.from_bytes(TABLES["standard"], data[:-1])
    corrupt = bytearray(data)
    corrupt[100] ^= 1  # a deck count: totals and hash no longer match
    with pytest.raises(ValueError):
        core.CoreState.from_bytes(TABLES["standard"], bytes(corrupt))
    corrupt = bytearray(data)
    corrupt[-16] ^= 1  # seat 0's hidden sum (the last 16 bytes)
    with pytest.raises(ValueError, match="hidden sum"):
        core.CoreState.from_bytes(TABLES["standard"], bytes(corrupt))


def test_tables_reject_bad_mode():
    with pytest.raises(ValueError):
        core.Tables(CARDS.core_data(), "blitz")


# ----------------------------------------------------------------- actions, chance


@pytest.mark.parametrize("mode", MODES)
def test_actions_ascending_and_chance_sums_to_one(mode):
    for state, _ in walk(mode, 11, 4000):
        legal = state.legal_actions()
        assert legal == sorted(set(legal))
        if state.is_terminal():
            assert legal == [] and state.current_player() == core.TERMINAL
            continue
        if state.is_chance():
            assert state.current_player() == core.CHANCE
            weights, total = state.chance_weights()
            assert [c for c, _ in weights] == legal
            assert all(w > 0 for _, w in weights) and sum(w for _, w in weights) == total
            assert abs(sum(p for _, p in state.chance_outcomes()) - 1.0) < 1e-12
        else:
            assert legal and state.chance_outcomes() == []
            assert state.current_player() in (0, 1)


def test_setup_deals_then_reveals():
    state = core.CoreState.initial(TABLES["standard"])
    events = [cid("Flood Disaster"), cid("Emergency Evasion"), cid("Nullify")]
    assert state.to_dict()["phase"] == "chance"
    assert state.legal_actions() == [code(core.DEAL, c) for c in sorted(events)]
    assert state.perft(6) == 36  # 3! orders for each seat
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    assert all(k >> 12 == core.REVEAL for k in state.legal_actions())


# ----------------------------------------------------------------- information


@pytest.mark.parametrize("mode", MODES)
def test_resample_keeps_what_the_player_knows(mode):
    checked = changed = 0
    for state, rng in walk(mode, 21, 3000):
        if state.is_terminal() or rng.random() > 0.3:
            continue
        for player in (0, 1):
            other = state.resample(player, rng.randrange(1 << 62))
            assert other.check() is None and other.cards_conserved()
            assert other.information_set_key(player) == state.information_set_key(player)
            mine, theirs = state.to_dict()["players"], other.to_dict()["players"]
            assert theirs[player] == mine[player]
            for key in ("castle_hp", "ap", "funds", "flow", "cemetery"):
                assert theirs[1 - player][key] == mine[1 - player][key]
            for k in range(3):
                a, b = mine[1 - player]["slots"][k], theirs[1 - player]["slots"][k]
                assert (a is None) == (b is None)
                if a is not None:
                    assert a["face_up"] == b["face_up"]
                    if a["face_up"]:
                        assert a == b
            assert sum(mine[1 - player]["hand"].values()) == sum(
                theirs[1 - player]["hand"].values()
            )
            if state.current_player() == player:
                assert other.legal_actions() == state.legal_actions()
            if other.to_bytes() != state.to_bytes():
                changed += 1
                assert other.information_set_key(1 - player) != state.information_set_key(
                    1 - player
                )
            checked += 1
    assert checked > 500 and changed > 100


def test_resample_depends_only_on_what_the_player_knows():
    """Two states the player cannot tell apart resample to the same bytes with
    the same seed: the true hidden cards never leak into the sample."""
    compared = 0
    for state, rng in walk("standard", 33, 1500):
        if state.is_terminal() or rng.random() > 0.2:
            continue
        player = rng.randrange(2)
        twin = state.resample(player, rng.randrange(1 << 62))
        if twin.to_bytes() == state.to_bytes():
            continue
        seed = rng.randrange(1 << 62)
        assert state.resample(player, seed).to_bytes() == twin.resample(player, seed).to_bytes()
        compared += 1
    assert compared > 50


def test_keys_of_the_two_players_differ():
    for state, _ in walk("standard", 5, 400):
        assert state.information_set_key(0) != state.information_set_key(1)
    with pytest.raises(ValueError):
        state.information_set_key(2)


def test_resample_is_uniform_over_the_hidden_split():
    """Seat 1 holds Flood, Evasion, Nullify face down: each of the 6 orders
    is equally likely from seat 0's side."""
    state = core.CoreState.initial(TABLES["standard"])
    while not (state.current_player() == 0 and state.to_dict()["phase"] == "standby1"):
        state.apply(state.legal_actions()[0])
    counts: dict[tuple, int] = {}
    for seed in range(6000):
        slots = state.resample(0, seed).to_dict()["players"][1]["slots"]
        order = tuple(s["card"] for s in slots)
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 6
    assert all(850 < n < 1150 for n in counts.values()), counts


# ----------------------------------------------------------------- perft


def test_perft_agrees_with_a_python_count():
    state = core.CoreState.initial(TABLES["expert"])
    rng = random.Random(4)
    for _ in range(60):
        state.apply(choose(state, rng))

    before = state.to_bytes()
    for depth in range(4):
        assert state.perft(depth) == walk_perft(state, depth)
    assert state.to_bytes() == before
    assert state.perft(1) == len(state.legal_actions())


# ----------------------------------------------------------------- scenarios


def blank(phase="field", active=0, turn=5, mode="standard", field=None):
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


def put(d, where, name, owner, **changes):
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


def build(d, mode="standard"):
    state = core.CoreState.from_dict(TABLES[mode], d)
    assert state.to_dict() == d
    return state


def strike_weights(state):
    weights, total = state.chance_weights()
    assert total == 10000
    return {("miss", "hit", "crit")[c >> 6 & 63]: w for c, w in weights}


def attack(state, a, b):
    state.apply(code(core.ATTACK, sq(a), sq(b)))


def strike(state, outcome):
    state.apply(code(core.STRIKE, {"miss": 0, "hit": 1, "crit": 2}[outcome]))


def test_plain_strike_and_counter_strike():
    d = blank()
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    state = build(d)
    attack(state, "c3", "c4")
    assert strike_weights(state) == {"miss": 2500, "hit": 75 * 95, "crit": 75 * 5}
    strike(state, "hit")
    assert state.to_dict()["grid"]["c4"]["damage"] == 1
    assert strike_weights(state) == {"miss": 2500, "hit": 75 * 95, "crit": 75 * 5}  # counter
    strike(state, "crit")
    grid = state.to_dict()["grid"]
    assert grid["c3"]["damage"] == 2 and not grid["c3"]["ready"]
    assert state.to_dict()["phase"] == "field" and state.to_dict()["players"][0]["ap"] == 2


def test_command_and_out_of_range_bonus():
    d = blank()
    put(d, "c2", "Archer", 0)
    put(d, "c4", "Militia", 1)  # FRONT3 of seat 1 reaches b3, c3, d3: not c2
    state = build(d)
    attack(state, "c2", "c4")
    assert strike_weights(state) == {"miss": 1000, "hit": 90 * 80, "crit": 90 * 20}

    put(d, "b1", "General", 0)  # around c2: +10 HIT, once
    put(d, "b2", "General", 0)
    state = build(d)
    attack(state, "c2", "c4")
    assert strike_weights(state) == {"hit": 100 * 80, "crit": 100 * 20}  # miss weight 0: not listed

    d = blank()  # in range: no bonus; COMMAND of the enemy does not help
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    put(d, "b4", "General", 1)
    state = build(d)
    attack(state, "c3", "c4")
    assert strike_weights(state) == {"miss": 2500, "hit": 75 * 95, "crit": 75 * 5}
    strike(state, "miss")
    assert strike_weights(state) == {
        "miss": 1500,
        "hit": 85 * 95,
        "crit": 85 * 5,
    }  # counter + COMMAND


def test_siege_crit_is_times_three():
    for outcome, hp in (("hit", 10 - 6), ("crit", 10 - 9), ("miss", 10)):
        d = blank()
        put(d, "d3", "Catapult", 0)  # LOB reaches d6 from d3
        state = build(d)
        attack(state, "d3", "d6")
        strike(state, outcome)
        assert state.to_dict()["players"][1]["castle_hp"] == hp
    d = blank()  # SIEGE does not double against a character
    put(d, "d3", "Catapult", 0)
    put(d, "d5", "Knight", 1)  # 7 HP
    state = build(d)
    attack(state, "d3", "d5")
    strike(state, "crit")
    assert state.to_dict()["grid"]["d5"]["damage"] == 6


def test_armored_takes_one_less_but_at_least_one():
    for attacker, outcome, damage in (
        ("Militia", "hit", 1),
        ("Militia", "crit", 1),
        ("Swordsman", "hit", 2),
        ("Swordsman", "crit", 5),
    ):
        d = blank()
        put(d, "c3", attacker, 0)
        put(d, "c4", "Shieldbearer", 1)
        state = build(d)
        attack(state, "c3", "c4")
        strike(state, outcome)
        assert state.to_dict()["grid"]["c4"]["damage"] == damage


def test_charge_only_on_the_main_strike_of_a_moved_attacker():
    d = blank()
    put(d, "c2", "Cavalry", 0)
    put(d, "c4", "Swordsman", 1)
    state = build(d)
    state.apply(code(core.MOVE, sq("c2"), sq("c3")))
    attack(state, "c3", "c4")  # free: moved
    assert state.to_dict()["players"][0]["ap"] == 2
    strike(state, "hit")
    assert state.to_dict()["grid"]["c4"]["damage"] == 4  # 3 + CHARGE
    strike(state, "hit")  # Swordsman counters: 3, no CHARGE
    assert state.to_dict()["grid"]["c3"]["damage"] == 3


def test_bounty_and_game_end_by_castle():
    d = blank()
    put(d, "c3", "Swordsman", 0)
    put(d, "c4", "Village", 1)
    state = build(d)
    attack(state, "c3", "c4")
    strike(state, "crit")  # 6 >= 3: destroyed, bounty floor(2 / 2)
    after = state.to_dict()
    assert "c4" not in after["grid"] and after["players"][0]["funds"] == 1
    assert after["players"][1]["cemetery"] == {"Village": 1}

    d = blank()
    d["players"][1]["castle_hp"] = 2
    put(d, "d5", "Swordsman", 0)
    state = build(d)
    attack(state, "d5", "d6")
    strike(state, "hit")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.to_dict()["phase"] == "over" and state.to_dict()["result"] == [1, -1]
    assert state.legal_actions() == [] and state.current_player() == core.TERMINAL


def test_windows_open_with_any_face_down_event():
    d = blank()
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    d["players"][1]["slots"][0] = {"card": "Fortify", "face_up": False}  # no match on a character
    state = build(d)
    attack(state, "c3", "c4")
    assert state.to_dict()["phase"] == "response" and state.current_player() == 1
    assert state.legal_actions() == [code(core.PASS)]  # E-3


def test_evasion_nullified_and_evasion_move():
    d = blank()
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Militia", 1)
    d["players"][1]["slots"][1] = {"card": "Emergency Evasion", "face_up": False}
    d["players"][0]["slots"][2] = {"card": "Nullify", "face_up": False}
    state = build(d)
    attack(state, "c3", "c4")
    state.apply(code(core.EVENT, 1))
    assert state.to_dict()["phase"] == "nullify" and state.current_player() == 0
    assert state.legal_actions() == [code(core.PASS), code(core.EVENT, 2)]
    saved = state.clone()
    state.apply(code(core.EVENT, 2))  # nullified: the battle goes on
    assert state.is_chance()
    state = saved
    state.apply(code(core.PASS))  # evasion: no strike, the target may move
    assert state.to_dict()["phase"] == "evade" and state.current_player() == 1
    assert not state.to_dict()["grid"]["c3"]["ready"]
    state.apply(code(core.EVADE, sq("c5")))
    grid = state.to_dict()["grid"]
    assert "c5" in grid and "c4" not in grid and state.to_dict()["phase"] == "field"


def test_ambush_strikes_first_then_no_counter():
    d = blank()
    put(d, "c3", "Militia", 0)
    put(d, "c4", "Swordsman", 1)
    d["players"][1]["slots"][0] = {"card": "Ambush", "face_up": False}
    state = build(d)
    attack(state, "c3", "c4")
    state.apply(code(core.EVENT, 0))  # seat 0 has no face-down event: no Nullify window
    assert strike_weights(state) == {"miss": 2000, "hit": 80 * 90, "crit": 80 * 10}  # no bonus
    strike(state, "hit")  # 3 damage on a 3-HP Militia: destroyed, battle over
    assert "c3" not in state.to_dict()["grid"] and state.to_dict()["phase"] == "field"


def test_flood_emptying_both_limits_is_a_draw():
    d = blank()
    for seat in (0, 1):
        d["players"][seat]["cemetery"] = {"Militia": 7}
    put(d, "a3", "Militia", 0)
    put(d, "b3", "Militia", 1, damage=2)
    put(d, "c3", "Militia", 0, damage=1)
    d["players"][0]["slots"][0] = {"card": "Flood Disaster", "face_up": False}
    state = build(d)
    state.apply(code(core.EVENT, 0, 2))  # rank 3
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.to_dict()["grid"].get("a3", {}).get("damage") == 2


def test_turn_limit_is_a_draw():
    d = blank(phase="standby2", turn=200, active=1)
    state = build(d)
    state.apply(code(core.END))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.to_dict()["result"] == [0, 0]


def test_from_dict_rejects_a_pending_node():
    d = blank()
    d["phase"] = "response"
    with pytest.raises(ValueError):
        core.CoreState.from_dict(TABLES["standard"], d)
