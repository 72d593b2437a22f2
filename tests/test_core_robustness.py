"""The C cores' state readers on any input: `State.from_bytes` and
`state_from_dict` of both games return a state the core can play on or raise
XenophonError (the fuzz targets of tests/fuzz/core_targets.py, on a few
hundred generated inputs each), and one regression test per input that once
crashed or was wrongly accepted (docs/sanitizers.md lists them)."""

from __future__ import annotations

import copy
import json
import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz import core_targets, sample
from xenophon.anabasis import Game as AnabasisGame
from xenophon.hero import Game as HeroGame
from xenophon.kernel.errors import XenophonError

FAST = settings(
    max_examples=300,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def seeds(name: str) -> list[bytes]:
    return core_targets.SEEDS[name]()


# ----------------------------------------------------------------- generated inputs


@st.composite
def mutated_state(draw, name: str) -> bytes:
    """A real position's bytes with a few bytes set (often rehashed, to get past
    the hash test), sometimes cut or lengthened."""
    data = bytearray(draw(st.sampled_from(seeds(name))))
    for _ in range(draw(st.integers(0, 6))):
        data[draw(st.integers(1, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        data[0] |= core_targets.REHASH
    cut = draw(st.sampled_from([None, None, None, 1, 2, len(data) - 1, len(data) + 1]))
    if cut is not None:
        data = (data + b"\0")[:cut]
    return bytes(data)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "\ud800",
            "standby1",
            "field",
            "chance",
            "a1",
            "d1",
            "F1",
            "Militia",
            "Goblin Raider",
            "Retainer",
            "draw",
            "target",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=8,
)


def paths(value, prefix=()):
    """Every (path, value) inside a JSON value, the root first."""
    yield prefix, value
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        yield from paths(child, prefix + (key,))


@st.composite
def mutated_dict(draw, name: str) -> bytes:
    """A real position's dict with a few values replaced by any JSON value, or
    keys removed, or list items dropped or repeated."""
    seed = draw(st.sampled_from(seeds(name)))
    position = json.loads(seed[1:])
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(list(paths(position))[1:]))
        path, value = where
        parent = position
        for key in path[:-1]:
            parent = parent[key]
        edit = draw(st.sampled_from(["replace", "replace", "delete", "repeat"]))
        if edit == "replace":
            parent[path[-1]] = draw(JSON_VALUES)
        elif edit == "delete":
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(value))
        else:
            parent[path[-1]] = [value] * draw(st.integers(0, 20))
        if not isinstance(position, dict):
            break
    return seed[:1] + json.dumps(position).encode()


@pytest.mark.parametrize("name", ["anabasis_from_bytes", "hero_from_bytes"])
@FAST
@given(data=st.data())
def test_from_bytes_targets_on_mutated_states(name, data):
    core_targets.TARGETS[name](data.draw(mutated_state(name)))


@pytest.mark.parametrize("name", ["anabasis_from_bytes", "hero_from_bytes"])
@FAST
@given(raw=st.binary(max_size=900))
def test_from_bytes_targets_on_random_bytes(name, raw):
    core_targets.TARGETS[name](raw)


@pytest.mark.parametrize("name", ["anabasis_from_dict", "hero_from_dict"])
@FAST
@given(data=st.data())
def test_from_dict_targets_on_mutated_dicts(name, data):
    core_targets.TARGETS[name](data.draw(mutated_dict(name)))


@pytest.mark.parametrize("name", sorted(core_targets.TARGETS))
def test_every_seed_is_read_and_played_on(name):
    """The seeds are valid inputs, the mutations' starting points: each is
    read to a state, which the target plays on without a finding."""
    found = seeds(name)
    assert len(found) >= 20
    for seed in found:
        assert core_targets.read(name, seed) is not None
        core_targets.TARGETS[name](seed)


# ----------------------------------------------------------------- regressions: from_dict


def resting_position(game) -> dict:
    """The dict of the first decision of a seeded game (Anabasis: standby1 of turn 1)."""
    state = game.new_initial_state()
    state.resolve_chance(random.Random(1))
    return state.to_dict()


#: (change to a resting Anabasis dict, what the error must say). Before the fix,
#: the reader converted with pybind11 casts and indexing: wrong types and huge
#: ints escaped as RuntimeError, short lists as IndexError, out-of-range
#: numbers were wrapped into the C field (turn 257 read as 1, funds 300 as 44,
#: castle_hp 65546 as 10, owner 3 as 1), a truthy number was a bool, a pile's
#: card listed under another pile moved silently, more than 16 revealed field
#: cards wrote past field_rev[16] (UBSan: index 16 out of bounds), and an
#: active field card missing from the revealed ones was read as the first.
ANABASIS_DICTS = {
    "turn 257 wrapped to 1": (lambda d: d.update(turn=257), "turn: 257 is outside"),
    "funds 300 wrapped to 44": (
        lambda d: d["players"][0].update(funds=300),
        "funds: 300 is outside",
    ),
    "castle_hp 65546 wrapped to 10": (
        lambda d: d["players"][1].update(castle_hp=65546),
        "castle_hp",
    ),
    "a string for the turn (RuntimeError)": (
        lambda d: d.update(turn="5"),
        "turn: an integer is needed",
    ),
    "2**64 AP (RuntimeError)": (lambda d: d["players"][0].update(ap=2**64), "ap: .* is outside"),
    "one player (IndexError)": (lambda d: d.update(players=d["players"][:1]), "players: 2 items"),
    "two slots (IndexError)": (
        lambda d: d["players"][0].update(slots=[None, None]),
        "slots: 3 items",
    ),
    "two tops (IndexError)": (lambda d: d["market"].update(tops=[None, None]), "tops: 3 items"),
    "a number for face_up": (
        lambda d: d["players"][0]["slots"].__setitem__(0, {"card": "Rally", "face_up": 1}),
        "face_up: True or False",
    ),
    "owner 3 read as 1": (
        lambda d: d["grid"].update(
            {
                "a3": {
                    "card": "Militia",
                    "owner": 3,
                    "damage": 0,
                    "ready": True,
                    "moved": False,
                    "face_down": False,
                    "atk_bonus": 0,
                }
            }
        ),
        "owner: 3 is outside",
    ),
    "a card under another pile": (
        lambda d: d["market"]["piles"][0].update(d["market"]["piles"][1]),
        "is not a card of this pile",
    ),
    "17 revealed field cards (out of bounds)": (
        lambda d: d.update(field={"active": "Fog", "remaining": 1, "revealed": ["Fog"] * 17}),
        "field.revealed: at most 16",
    ),
    "an active field card not revealed": (
        lambda d: d.update(field={"active": "Fog", "remaining": 1, "revealed": ["Clear Skies"]}),
        "field.active",
    ),
    "a lone surrogate in a name": (
        lambda d: d["players"][0]["hand"].update({"\ud800": 1}),
        "not valid text",
    ),
}


@pytest.mark.parametrize("name", sorted(ANABASIS_DICTS))
def test_anabasis_from_dict_refuses(name):
    game = AnabasisGame(mode="expert", seed=1)
    d = resting_position(game)
    game.state_from_dict(d)  # valid before the change
    change, message = ANABASIS_DICTS[name]
    change(d)
    with pytest.raises(XenophonError, match=message):
        game.state_from_dict(d)


def test_hero_from_dict_refuses_a_lone_surrogate():
    """Before the fix: RuntimeError (pybind11 cannot cast such a str to UTF-8)."""
    game = HeroGame(seed=1)
    d = resting_position(game)
    game.state_from_dict(d)
    d["players"][0]["avatar"] = "\ud800"
    with pytest.raises(XenophonError, match="not valid text"):
        game.state_from_dict(d)


# ----------------------------------------------------------------- regressions: from_bytes
#
# Each test takes a real position, changes a few fields of its bytes (offsets
# of the layouts drawn in src/engine_c/anabasis/anabasis.h and hero/hero.h), recomputes the
# hash, and expects from_bytes to refuse the result. Before the fix the
# state check accepted every one of them, and playing on it went wrong as
# the docstring says.


def first_state(game, accept, seed: int = 1):
    """The first state of a seeded random game of `game` that `accept` takes."""
    for state, _ in sample.walk(game, seed):
        if accept(state.to_dict()):
            return state
    raise AssertionError("no such state in the game")


def changed(state, *fields) -> bytes:
    """The state's bytes with (struct format, offset, value) fields set, rehashed."""
    data = bytearray(state.to_bytes())
    for fmt, offset, value in fields:
        struct.pack_into("<" + fmt, data, offset, value)
    return type(state.backend).rehashed(state.game.tables, bytes(data))


def refused(state, *fields, match: str) -> None:
    with pytest.raises(XenophonError, match=match):
        state.game.state_from_bytes(changed(state, *fields))


# AnaState: stage 725, sub 726, ret 727, b_att 730, b_tgt 731, b_step 732, ev_slot 735,
# ev_arg 736; player p at 56 + 208 p: hand +48, hand_n +194, slot +203, slot_up +206
ANA_STAGE, ANA_B_ATT, ANA_B_TGT, ANA_B_STEP, ANA_EV_SLOT, ANA_EV_ARG = 725, 730, 731, 732, 735, 736
SETUP_FIELD, STANDBY1, REFILL, STRIKE, EVENT_WINDOW = 3, 5, 8, 12, 14


def anabasis_game(mode="standard"):
    return AnabasisGame(mode=mode, seed=1)


def test_anabasis_from_bytes_refuses_a_chance_node_without_outcomes():
    """A field card to reveal in a game without field cards: no outcome, so
    sample_chance and the C playouts drew from an empty list (an uninitialised
    code was applied)."""
    state = first_state(anabasis_game(), lambda d: d["phase"] == "standby1")
    refused(state, ("B", ANA_STAGE, SETUP_FIELD), match="without a legal action or chance outcome")


def test_anabasis_from_bytes_refuses_a_deal_to_full_slots():
    """Seat 0's slots full of events that are not starting events while the
    events are dealt: their to-deal counts went negative, which as bytes are
    255, so the deal had outcomes, and applying one wrote slot[-1] (UBSan:
    index -1 out of bounds for type 'uint8_t [3]'), which is funds."""
    game = anabasis_game()
    state = game.new_initial_state()  # the first deal
    others = [c.id for c in game.cards.cards if c.kind == "event" and not c.start_copies]
    refused(
        state,
        *[("B", 56 + 203 + k, others[k]) for k in range(3)],
        match="a deal to a seat without an empty slot",
    )


def test_anabasis_from_bytes_refuses_a_reveal_into_a_full_row():
    """Refilling the row while it is full wrote row[5], which is field_rev[0]."""
    state = first_state(
        anabasis_game("expert"),
        lambda d: (
            d["phase"] == "standby1"
            and sum(d["market"]["row"].values()) == 5
            and d["market"]["row_pile"]
        ),
    )
    refused(
        state,
        ("B", ANA_STAGE, REFILL),
        ("B", ANA_STAGE + 1, 3),
        ("B", ANA_STAGE + 2, STANDBY1),
        match="a reveal into a full row",
    )


def test_anabasis_from_bytes_refuses_a_setup_stage_in_the_middle_of_the_game():
    """The events dealt again once every field card is revealed: the setup
    went on to SETUP_FIELD, which had no field card left to reveal, so
    sample_chance and the C playouts took an uninitialised outcome code (seen:
    field cards 20 and 40, UBSan: index 20 out of bounds for type
    'AnaFieldCard [16]')."""
    state = first_state(
        anabasis_game("expert"),
        lambda d: d["phase"] == "field" and d["field"] and len(d["field"]["revealed"]) == 6,
    )
    no_slots = [("B", 56 + 208 * p + 203 + k, 0xFF) for p in (0, 1) for k in range(3)]
    refused(
        state,
        ("B", ANA_STAGE, 0),
        *no_slots,
        ("B", 56 + 206, 0),
        ("B", 56 + 208 + 206, 0),
        match="a setup stage after the start of turn 1",
    )


def test_anabasis_from_bytes_refuses_more_than_255_copies():
    """255 copies of a card in a hand: the end of the turn put them back in the
    deck, whose byte count wrapped (deck_n no longer its total)."""
    state = first_state(anabasis_game(), lambda d: d["phase"] == "standby2")
    p = state.to_dict()["active"]
    hand_n = sum(state.to_dict()["players"][p]["hand"].values())
    c = 0
    held = state.to_dict()["players"][p]["hand"].get(state.game.tables.card_names[c], 0)
    refused(
        state,
        ("B", 56 + 208 * p + 48 + c, 255),
        ("H", 56 + 208 * p + 194, hand_n - held + 255),
        match="more than 255 copies",
    )


def test_anabasis_from_bytes_refuses_an_event_argument_off_the_board():
    """A Rally on square 66 in the event window: event_effect wrote
    sq_bonus[66] (UBSan: index 66 out of bounds for type 'uint16_t [42]'),
    which is the market's pile_n."""
    state = first_state(
        anabasis_game(),
        lambda d: d["phase"] == "field" and d["players"][d["active"]]["slots"][0] is None,
    )
    p = state.to_dict()["active"]
    rally = state.game.cards.by_name("Rally").id
    refused(
        state,
        ("B", ANA_STAGE, EVENT_WINDOW),
        ("B", 56 + 208 * p + 203, rally),
        ("B", 56 + 208 * p + 206, 1),
        ("B", ANA_EV_SLOT, 0),
        ("B", ANA_EV_ARG, 66),
        match="argument is not one it takes",
    )


def test_anabasis_from_bytes_refuses_a_strike_from_an_empty_square():
    """A main strike whose striker square is empty: the strike weights read
    card[255] (UBSan: index 255 out of bounds for type 'AnaCard [48]')."""
    state = first_state(
        anabasis_game(),
        lambda d: d["phase"] == "field" and d["active"] == 0 and "a3" not in d["grid"],
    )
    refused(
        state,
        ("B", ANA_STAGE, STRIKE),
        ("B", ANA_B_STEP, 1),
        ("B", ANA_B_ATT, 14),
        ("B", ANA_B_TGT, 38),
        match="the attacker is not a character",
    )


# HeroState: hp 8, turn 20, pump_attack 184, deck_n 310, phase 316, pend_kind 319,
# pend_source 320, pend_player 322; deck 456 + 64 p, grave 584 + 64 p
HERO_HP, HERO_TURN, HERO_PUMP_ATTACK, HERO_DECK_N, HERO_PEND = 8, 20, 184, 310, 319


def hero_game():
    return HeroGame(seed=1)


def test_hero_from_bytes_refuses_a_draw_from_an_empty_deck():
    """The drawer's deck moved to its graveyard at a Draw phase: the draw
    took the last card id from an empty deck, whose counts wrapped to 255."""
    state = first_state(hero_game(), lambda d: d["phase"] == "draw")
    p = state.to_dict()["active"]
    deck = state.to_bytes()[456 + 64 * p : 456 + 64 * (p + 1)]
    grave = state.to_bytes()[584 + 64 * p : 584 + 64 * (p + 1)]
    fields = [("B", 456 + 64 * p + c, 0) for c in range(64)]
    fields += [("B", 584 + 64 * p + c, deck[c] + grave[c]) for c in range(64)]
    refused(state, *fields, ("B", HERO_DECK_N + p, 0), match="an empty deck in a game that goes on")


def test_hero_from_bytes_refuses_a_pump_that_overflows():
    """pump_attack 2^31 - 1: the unit's attack (printed + pump) overflowed int32
    (UBSan: signed integer overflow) as soon as to_dict or an attack read it."""
    state = first_state(
        hero_game(), lambda d: d["phase"] == "action" and d["players"][d["active"]]["front"]
    )
    slot = 10 * state.to_dict()["active"]
    refused(state, ("i", HERO_PUMP_ATTACK + 4 * slot, 2**31 - 1), match="a pump beyond")


def test_hero_from_bytes_refuses_a_turn_that_overflows():
    """Turn 2^31 - 1 (odd, seat 0 active): the next turn overflowed int32."""
    state = first_state(hero_game(), lambda d: d["phase"] == "action" and d["active"] == 0)
    refused(state, ("i", HERO_TURN, 2**31 - 1), match="turn beyond the bound")


def test_hero_from_bytes_refuses_a_lost_game_that_goes_on():
    """A seat at HP -5 in the action phase: the game went on past its end."""
    state = first_state(hero_game(), lambda d: d["phase"] == "action")
    refused(state, ("i", HERO_HP + 4, -5), match="HP <= 0")


def test_hero_from_bytes_refuses_a_pending_target_without_targets():
    """Shadow Assassin's on_deploy target pending while the other seat has no
    unit: a decision without a legal action, from which the playouts and the
    search picked an uninitialised code."""
    state = first_state(
        hero_game(),
        lambda d: (
            d["phase"] == "action"
            and d["active"] == 0
            and not d["players"][1]["front"]
            and not d["players"][1]["back"]
        ),
    )
    assassin = state.game.cards.by_name("Shadow Assassin").id
    refused(
        state,
        ("B", HERO_PEND, 1),
        ("B", HERO_PEND + 1, assassin),
        ("B", HERO_PEND + 3, 0),
        match="without a legal action",
    )
