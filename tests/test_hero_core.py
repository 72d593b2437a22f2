"""The Hero C core alone (xenophon._core.hero): undo byte for byte, hashes,
round trips, ordering and probabilities, information sets and resampling,
evaluation, perft, and the worked examples of docs/hero-engine.md played
move by move (every draw is a chance node, so a test picks the cards drawn)."""

from __future__ import annotations

import ctypes
import json
import random

import pytest

from hero_decks import CARDS, DECKS, NIGHT_QUEEN, PAIRINGS, SKY_SAGE, hand_written
from xenophon._core import hero as core
from xenophon.hero.cards import build_deck, load_card_set
from xenophon.kernel.oracle import perft as walk_perft  # the tree walked in Python

TABLES = {name: core.Tables(CARDS.core_data(d0, d1)) for name, (d0, d1) in PAIRINGS.items()}


def choose(state, rng: random.Random) -> int:
    """A random legal code; a chance outcome with its true probability."""
    if state.is_chance():
        outcomes = state.chance_outcomes()
        return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def random_states(tables, seed: int, games: int):
    """Every state along `games` seeded random games."""
    rng = random.Random(seed)
    for _ in range(games):
        state = core.CoreState.initial(tables)
        yield state.clone()
        while not state.is_terminal():
            state.apply(choose(state, rng))
            yield state.clone()


def view(state, player: int) -> str:
    """The information view of §11 (the oracle's information_view) as a canonical string."""
    d = state.to_dict()
    other = d["players"][1 - player]
    other["hand"] = other["deck"] = None
    return json.dumps(d, sort_keys=True)


# --------------------------------------------------------------------------- tables


def test_tables_and_interface_objects():
    tables = TABLES["crimson-wild"]
    assert tables.card_names[0] == "Goblin Raider" and len(tables.card_names) == 30
    assert tables.avatar_names == ["Flame Warlord", "Beast King"]
    assert core.CoreState.state_size() == core.STATE_SIZE == 856
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes, is_valid.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
    assert is_valid(tables.capsule(), b"xenophon.tables")
    assert is_valid(core.game_api(), b"xenophon.game_api")


def write_card_file(path, n_cards: int):
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = [
        "[[avatar]]",
        'name = "Test Lord"',
        'faction = "R"',
        "hp = 20",
        "hand = 5",
        "charisma = 5",
        'race = "Human"',
    ]
    for i in range(n_cards):
        lines += [
            "[[card]]",
            f'name = "Unit {letters[i // 26].upper()}{letters[i % 26]}"',
            'type = "unit"',
            'faction = "R"',
            "cost = 1",
            'condition = ""',
            'race = "Human"',
            "power = 1000",
            "attack = 1",
            'keywords = ["HORDE"]',
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("n_cards, accepted", [(44, True), (45, False)])
def test_tables_refuse_card_sets_with_too_many_legal_actions(tmp_path, n_cards, accepted):
    cards = load_card_set(write_card_file(tmp_path / "cards.toml", n_cards))
    deck = build_deck(cards, "Test Lord", {cards.cards[0].name: 40})
    if accepted:
        state = core.CoreState.initial(core.Tables(cards.core_data(deck, deck)))
        assert state.random_actions(2000, 1) == 2000
    else:
        with pytest.raises(ValueError, match="1024"):
            core.Tables(cards.core_data(deck, deck))


def test_tables_refuse_decks_of_another_card_set(tmp_path):
    other = load_card_set(write_card_file(tmp_path / "cards.toml", 3))
    deck = build_deck(other, "Test Lord", {other.cards[0].name: 40})
    with pytest.raises(ValueError, match="another card set"):
        core.Tables(CARDS.core_data(deck, DECKS["wild_grove"]))
    with pytest.raises(ValueError, match="Deck objects"):
        core.Tables(CARDS.core_data("wild_grove", DECKS["wild_grove"]))


# --------------------------------------------------------------------------- random walks

EXOTIC_CARDS = """
[[avatar]]
name = "Seer"
faction = "U"
hp = 12
hand = 3
charisma = 6
race = "Elf"
ability = { kind = "activated", effects = ["draw(1)", "pump(100, 1)"], target = "unit" }

[[avatar]]
name = "Reaper"
faction = "K"
hp = 12
hand = 4
charisma = 6
race = "Shade"
ability = { kind = "on_enemy_destroyed", effects = ["damage_avatar(1)", "lose_hp(1)",
                                                   "heal_avatar(2)"] }

[[avatar]]
name = "Packlord"
faction = "G"
hp = 12
hand = 0
charisma = 4
race = "Wolf"
ability = { kind = "race_bonus", race = "Wolf", power = 700, attack = 2 }

[[card]]
name = "Pup"
type = "unit"
faction = "G"
cost = 1
condition = ""
race = "Wolf"
power = 300
attack = 0
keywords = ["HORDE", "BLITZ"]

[[card]]
name = "Warden"
type = "unit"
faction = "K"
cost = 2
condition = "(1)"
race = "Shade"
power = 1500
attack = 1
keywords = ["PROTECTION", "FIRST_STRIKE", "RANGED"]

[[card]]
name = "Harrier"
type = "unit"
faction = "U"
cost = 2
condition = ""
race = "Bird"
power = 900
attack = 2
keywords = ["FLYING", "BLITZ", "HORDE"]
trigger = "on_deploy"
effects = ["tap", "draw(1)", "damage_unit(400)"]
target = "enemy_unit"

[[card]]
name = "Riposte"
type = "operation"
faction = "N"
cost = 1
condition = ""
timing = "fast"
keywords = ["HORDE"]
effects = ["damage_unit(500)", "draw(2)", "bounce"]
target = "unit"

[[card]]
name = "Recall"
type = "operation"
faction = "U"
cost = 1
condition = "(U)"
timing = "fast"
effects = ["untap", "draw(1)", "destroy_unit(1000)"]
target = "own_unit"

[[card]]
name = "Quorum"
type = "operation"
faction = "N"
cost = 2
condition = "(2)"
timing = "normal"
keywords = ["HORDE"]
effects = ["win_if_units(3)"]

[[card]]
name = "Zero Draw"
type = "operation"
faction = "N"
cost = 1
condition = ""
timing = "fast"
keywords = ["HORDE"]
effects = ["draw(0)", "heal_avatar(1)", "damage_avatar(1)"]
"""


def exotic_tables(tmp_path, avatar0, avatar1):
    path = tmp_path / "exotic.toml"
    path.write_text(EXOTIC_CARDS)
    cards = load_card_set(path)
    counts = {
        "Pup": 12,
        "Warden": 4,
        "Harrier": 10,
        "Riposte": 8,
        "Recall": 4,
        "Quorum": 3,
        "Zero Draw": 4,
    }
    return core.Tables(
        cards.core_data(build_deck(cards, avatar0, counts), build_deck(cards, avatar1, counts))
    )


@pytest.mark.parametrize(
    "avatars", [("Seer", "Reaper"), ("Reaper", "Packlord"), ("Packlord", "Seer")]
)
def test_exotic_card_set_walks(tmp_path, avatars):
    """Paths the reference set never takes: ability draws, fast operations
    suspended at a draw with a live target ref, damage_avatar triggers,
    win_if_units, race bonus attack, a starting hand of 0, draw(0)."""
    tables = exotic_tables(tmp_path, *avatars)
    rng = random.Random(1)
    wanted = {("card draw", True, "defend")}  # Riposte in the defender's window
    if "Seer" in avatars:
        wanted.add(("ability draw", True, "action"))
    seen = set()
    for _ in range(600):
        state = core.CoreState.initial(tables)
        while not state.is_terminal():
            before = state.to_bytes()
            code = choose(state, rng)
            state.apply(code)
            assert state.check() is None
            if state.is_chance() and state.to_dict()["pending"]:
                pending = state.to_dict()["pending"]
                seen.add(
                    (
                        "ability draw" if pending["ability"] else "card draw",
                        pending["target"] is not None,
                        state.to_dict()["phase"],
                    )
                )
            state.undo()
            assert state.to_bytes() == before
            state.apply(code)
        if wanted <= seen:
            break
    assert wanted <= seen


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
@pytest.mark.parametrize("seed", range(3))
def test_random_walk_apply_undo_hash_round_trips(pairing, seed):
    """Long random walks: every apply is undone byte for byte and hash for hash,
    the incremental hash equals the hash from scratch, and the protocol holds."""
    tables = TABLES[pairing]
    rng = random.Random(seed)
    state = core.CoreState.initial(tables)
    steps = 0
    for _ in range(4000):
        if state.is_terminal():
            assert state.legal_actions() == [] and state.chance_outcomes() == []
            assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
            assert state.current_player() == core.TERMINAL
            state = core.CoreState.initial(tables)
        codes = state.legal_actions()
        assert codes and codes == sorted(set(codes))
        if state.is_chance():
            assert state.current_player() == core.CHANCE
            outcomes = state.chance_outcomes()
            assert [c for c, _ in outcomes] == codes
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
            weights, total = state.chance_weights()
            assert sum(w for _, w in weights) == total
        else:
            assert state.current_player() in (0, 1) and state.chance_outcomes() == []
            assert state.returns() == [0.0, 0.0]
        assert -1.0 <= state.evaluate(0) <= 1.0 and -1.0 <= state.evaluate(1) <= 1.0
        before, before_hash = state.to_bytes(), state.hash()
        for code in rng.sample(codes, min(3, len(codes))):  # several children, each undone
            state.apply(code)
            assert state.hash() == state.hash_from_scratch()
            for player in (0, 1):
                assert state.information_set_key(player) == state.information_set_key_from_scratch(
                    player
                )
            assert state.check() is None
            state.undo()
            assert state.to_bytes() == before and state.hash() == before_hash
        copy = state.clone()
        assert copy == state and copy.to_dict() == state.to_dict()
        restored = core.CoreState.from_bytes(tables, state.to_bytes())
        assert restored.to_bytes() == before and restored.legal_actions() == codes
        state.apply(choose(state, rng))
        steps += 1
    while state.history_size():  # the whole history unwinds to the initial state
        state.undo()
    assert state.to_bytes() == core.CoreState.initial(tables).to_bytes()
    with pytest.raises(IndexError):
        state.undo()
    assert steps == 4000


def test_illegal_code_leaves_the_state_unchanged():
    state = core.CoreState.initial(TABLES["crimson-wild"])
    before = state.to_bytes()
    for code in (-1, 0, 0x10000, core.DRAW << 12 | 4 << 6 | 1, core.DRAW << 12 | 63 << 6):
        with pytest.raises(ValueError):
            state.apply(code)
    assert state.to_bytes() == before and state.history_size() == 0


def test_from_bytes_refuses_wrong_sizes_and_broken_states():
    tables = TABLES["crimson-wild"]
    data = core.CoreState.initial(tables).to_bytes()
    with pytest.raises(ValueError, match="856"):
        core.CoreState.from_bytes(tables, data[:-1])
    broken = bytearray(data)
    broken[0] ^= 1  # the stored hash
    with pytest.raises(ValueError, match="hash"):
        core.CoreState.from_bytes(tables, bytes(broken))
    broken = bytearray(data)
    broken[-8] ^= 1  # seat 1's hidden sum (the last 16 bytes)
    with pytest.raises(ValueError, match="hidden sum"):
        core.CoreState.from_bytes(tables, bytes(broken))


def test_clone_is_independent():
    state = core.CoreState.initial(TABLES["crimson-wild"])
    copy = state.clone()
    copy.apply(copy.legal_actions()[0])
    assert copy != state and state.history_size() == 0 and copy.history_size() == 1


def test_speed_loops_are_reproducible():
    state = core.CoreState.initial(TABLES["queen-sage"])
    assert state.random_actions(50_000, 3) == 50_000
    assert state.random_actions_unkeyed(50_000, 3) == 50_000
    assert state.apply_undo_pairs(50_000, 3) == 50_000
    assert state.to_bytes() == core.CoreState.initial(TABLES["queen-sage"]).to_bytes()


# --------------------------------------------------------------------------- information


@pytest.mark.parametrize("pairing", ["crimson-wild", "queen-sage"])
def test_resample_keeps_the_players_view(pairing):
    tables = TABLES[pairing]
    for i, state in enumerate(random_states(tables, seed=11, games=4)):
        if i % 7:
            continue
        for player in (0, 1):
            other = 1 - player
            sample = state.resample(player, seed=i)
            assert sample.check() is None
            assert sample.information_set_key(player) == state.information_set_key(player)
            assert view(sample, player) == view(state, player)
            mine, theirs = state.to_dict()["players"], sample.to_dict()["players"]
            assert theirs[player]["hand"] == mine[player]["hand"]
            assert theirs[other]["hand_size"] == mine[other]["hand_size"]
            assert theirs[other]["deck_size"] == mine[other]["deck_size"]
            for name, n in mine[other]["known"].items():  # known cards stay in the hand
                assert theirs[other]["hand"].get(name, 0) >= n
            if state.current_player() == player:
                assert sample.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("pairing", ["crimson-wild", "sage-queen"])
def test_resample_depends_only_on_the_view(pairing):
    """Two states with the same view of `player` resample identically: the
    result reads nothing of the opponent's true hand or deck."""
    tables = TABLES[pairing]
    for i, state in enumerate(random_states(tables, seed=5, games=3)):
        if i % 11:
            continue
        for player in (0, 1):
            twin = state.resample(player, seed=1000 + i)  # same view, other hidden cards
            assert twin.information_set_key(player) == state.information_set_key(player)
            assert twin.resample(player, 77).to_bytes() == state.resample(player, 77).to_bytes()


def test_resample_of_states_differing_only_in_the_opponents_hand():
    tables = TABLES["crimson-wild"]
    ids = {name: i for i, name in enumerate(tables.card_names)}
    states = []
    for opening in (
        ["Wolf Pack", "Great Bear", "Insight", "Sky Scout", "Mercenary"],
        ["Forest Guardian", "Forest Guardian", "Tidal Return", "Wolf Pack", "Insight"],
    ):
        state = core.CoreState.initial(tables)
        for name in ["Goblin Raider", "Fireball", "Berserker", "Mercenary", "War Cry"] + opening:
            state.apply(draw(ids, name))
        state.apply(draw(ids, "Flame Lancer"))  # turn 1, seat 0
        state.apply(core.END << 12)  # action -> window (seat 1)
        states.append(state)
    a, b = states
    assert a.to_dict()["players"][1]["hand"] != b.to_dict()["players"][1]["hand"]
    assert a.information_set_key(0) == b.information_set_key(0)
    assert a.information_set_key(1) != b.information_set_key(1)
    assert a.hash() != b.hash()
    for seed in range(5):
        assert a.resample(0, seed).to_bytes() == b.resample(0, seed).to_bytes()


def test_information_set_keys_match_the_views():
    """Equal views give equal keys, different views different keys, over many
    states and their resamples (which share views)."""
    tables = TABLES["queen-crimson"]
    key_of_view: dict[tuple[int, str], int] = {}
    view_of_key: dict[int, tuple[int, str]] = {}
    for i, state in enumerate(random_states(tables, seed=3, games=2)):
        family = [state] + [state.resample(p, i) for p in (0, 1)]
        for s in family:
            for player in (0, 1):
                v, k = (player, view(s, player)), s.information_set_key(player)
                assert key_of_view.setdefault(v, k) == k
                assert view_of_key.setdefault(k, v) == v


# --------------------------------------------------------------------------- evaluation, perft


def test_evaluate_is_bounded_symmetric_in_sign_and_exact_at_the_end():
    tables = TABLES["wild-crimson"]
    for state in random_states(tables, seed=2, games=3):
        e0, e1 = state.evaluate(0), state.evaluate(1)
        assert -1.0 <= e0 <= 1.0 and -1.0 <= e1 <= 1.0
        assert abs(e0 + e1) < 1e-12  # only differences enter the formula
        if state.is_terminal():
            assert [e0, e1] == state.returns()


def test_perft_matches_a_python_walk_of_the_tree():
    tables = TABLES["crimson-wild"]
    initial = core.CoreState.initial(tables)
    assert initial.perft(0) == 1
    assert initial.perft(1) == len(initial.legal_actions()) == 12  # distinct cards of the deck
    assert initial.perft(3) == walk_perft(initial, 3)
    for i, state in enumerate(random_states(tables, seed=9, games=1)):
        if i % 25 == 0 and not state.is_terminal():
            assert state.perft(1) == len(state.legal_actions())
            assert state.perft(2) == walk_perft(state, 2)


# --------------------------------------------------------------------------- worked examples

SLOTS = {f"{row}{i + 1}": (0 if row == "F" else 5) + i for row in "FB" for i in range(5)}


def slot(text: str) -> int:
    if text == "avatar":
        return 20
    if text.startswith("op."):
        return 10 + SLOTS[text[3:]]
    return SLOTS[text]


def draw(ids, name):
    return core.DRAW << 12 | ids[name] << 6


class Script:
    """Plays a game move by move: draws picked by name, decisions checked legal."""

    def __init__(self, deck0, deck1):
        self.tables = core.Tables(CARDS.core_data(deck0, deck1))
        self.state = core.CoreState.initial(self.tables)
        self.ids = {name: i for i, name in enumerate(self.tables.card_names)}

    def draw(self, *names):
        for name in names:
            assert self.state.is_chance(), self.state.to_dict()["phase"]
            self.state.apply(draw(self.ids, name))
        return self

    def do(self, kind, x=0, y=0):
        code = kind << 12 | x << 6 | y
        assert code in self.state.legal_actions(), (kind, x, y, self.state.legal_actions())
        self.state.apply(code)
        return self

    def end(self):
        return self.do(core.END)

    def pass_(self):
        return self.do(core.PASS)

    def deploy(self, name, row):
        return self.do(core.DEPLOY, self.ids[name], 0 if row == "front" else 1)

    def play(self, name, target=None):
        return self.do(core.PLAY, self.ids[name], 63 if target is None else slot(target))

    def retainer(self, name):
        return self.do(core.RETAINER, self.ids[name])

    def attack(self, attacker, target):
        return self.do(core.ATTACK, slot(attacker), slot(target))

    def guard(self, guard):
        return self.do(core.GUARD, 0, slot(guard))

    def move(self, unit):
        return self.do(core.MOVE, 0, slot(unit))

    def quiet_turn(self, card):
        """Draw `card`, then end, pass, end."""
        return self.draw(card).end().pass_().end()

    @property
    def dict(self):
        return self.state.to_dict()


def test_example_turn_one():
    g = Script(DECKS["crimson_conqueror"], DECKS["wild_grove"])
    assert g.dict["phase"] == "setup" and g.dict["current"] == "chance" and g.dict["turn"] == 0
    g.draw("Berserker", "Fireball", "Mercenary", "Flame Lancer", "War Cry")
    g.draw("Wolf Pack", "Wolf Pack", "Insight", "Great Bear", "Sky Scout")
    assert g.dict["turn"] == 1 and g.dict["phase"] == "draw" and g.dict["current"] == "chance"
    g.draw("Goblin Raider")
    assert g.dict["phase"] == "action" and g.dict["current"] == 0
    assert core.DEPLOY << 12 | g.ids["Berserker"] << 6 | 1 not in g.state.legal_actions()
    g.deploy("Goblin Raider", "front").end()
    assert g.dict["phase"] == "window" and g.dict["current"] == 1
    g.pass_().attack("F1", "avatar")
    assert g.dict["attack"] == {"attacker": "F1", "target": "avatar"}
    g.pass_()
    assert g.dict["players"][1]["hp"] == 21 and g.dict["phase"] == "battle"
    assert g.dict["players"][0]["front"][0]["used"] is True
    g.end()
    assert (g.dict["turn"], g.dict["active"], g.dict["phase"]) == (2, 1, "draw")
    deck1 = g.dict["players"][1]["deck"]  # seat 1 draws
    assert g.state.chance_outcomes() == [
        (draw(g.ids, name), n / 35)
        for name, n in sorted(deck1.items(), key=lambda item: g.ids[item[0]])
    ]


def first_strike_game(guard_with):
    """Turn 3: a Goblin Raider attacks, seat 1 guards with `guard_with` (now used);
    then Flame Lancer (FIRST_STRIKE) will attack that unit. Returns the game and
    the guard's slot."""
    g = Script(DECKS["crimson_conqueror"], DECKS["wild_grove"])
    g.draw("Flame Lancer", "Goblin Raider", "Mercenary", "Mercenary", "Fireball")
    g.draw("Wolf Pack", "Great Bear", "Insight", "Insight", "Sky Scout")
    g.draw("War Cry").deploy("Flame Lancer", "back").end().pass_().end()  # turn 1
    g.draw("Forest Guardian").deploy("Wolf Pack", "back")  # turn 2
    g.deploy("Great Bear", "back").end().pass_().end()  # (G)(1): avatar + Wolf Pack
    g.draw("Berserker").move("B1").deploy("Goblin Raider", "front").end().pass_()  # turn 3
    assert [u["card"] for u in g.dict["players"][0]["front"]] == ["Flame Lancer", "Goblin Raider"]
    guard = {"Wolf Pack": "B1", "Great Bear": "B2"}[guard_with]
    g.attack("F2", "avatar").guard(guard)
    return g, guard


def test_example_first_strike_kills_first():
    g, guard = first_strike_game("Wolf Pack")
    wolf = g.dict["players"][1]["back"][0]
    assert (wolf["power"], wolf["damage"], wolf["used"]) == (1500, 1000, True)
    assert g.dict["players"][0]["graveyard"] == {"Goblin Raider": 1}
    g.attack("F1", "op." + guard).pass_()
    assert [u["card"] for u in g.dict["players"][1]["back"]] == ["Great Bear"]
    assert g.dict["players"][1]["graveyard"] == {"Wolf Pack": 1}
    assert g.dict["players"][0]["front"][0]["damage"] == 0


def test_example_first_strike_then_the_counter_blow():
    g, guard = first_strike_game("Great Bear")
    g.attack("F1", "op." + guard).pass_()
    bear = g.dict["players"][1]["back"][1]
    assert (bear["card"], bear["power"], bear["damage"]) == ("Great Bear", 3500, 3000)
    assert g.dict["players"][0]["front"] == []
    assert g.dict["players"][0]["graveyard"] == {"Goblin Raider": 1, "Flame Lancer": 1}


def test_example_refs_follow_removals():
    g = Script(DECKS["crimson_conqueror"], DECKS["wild_grove"])
    g.draw("Goblin Raider", "Goblin Raider", "Berserker", "Mercenary", "Mercenary")
    g.draw("Wolf Pack", "Sky Scout", "Cloud Archer", "Tidal Return", "Insight")
    g.draw("Fireball").deploy("Goblin Raider", "front").deploy("Goblin Raider", "front")
    g.deploy("Berserker", "front").end().pass_().end()  # turn 1
    g.draw("Mercenary").deploy("Wolf Pack", "back").deploy("Sky Scout", "back")
    g.deploy("Cloud Archer", "back").end().pass_().end()  # turn 2
    g.draw("War Cry").end().pass_().attack("F1", "avatar").guard("B3")  # turn 3
    archer = g.dict["players"][1]["back"][2]
    assert (archer["card"], archer["used"], archer["damage"]) == ("Cloud Archer", True, 1000)
    g.attack("F2", "op.B3")
    assert g.dict["attack"] == {"attacker": "F2", "target": "B3"}
    g.play("Tidal Return", "B1")  # seat 1 bounces its Wolf Pack
    assert g.dict["attack"] == {"attacker": "F2", "target": "B2"}
    seat1 = g.dict["players"][1]
    assert seat1["known"] == {"Wolf Pack": 1} and seat1["hand"]["Wolf Pack"] == 1
    g.retainer("Insight")
    back = [u["card"] for u in g.dict["players"][1]["back"]]
    assert back == ["Sky Scout", "Cloud Archer", "Retainer"]
    assert g.dict["players"][1]["back"][2]["power"] == 1000  # a Beast with Beast King
    g.guard("B3")
    assert [u["card"] for u in g.dict["players"][1]["back"]] == ["Sky Scout", "Cloud Archer"]
    berserker = g.dict["players"][0]["front"][1]
    assert (berserker["card"], berserker["damage"], berserker["used"]) == ("Berserker", 1000, True)
    assert g.dict["attack"] is None and g.dict["phase"] == "battle"
    g.end().draw("Great Bear").deploy("Wolf Pack", "back")  # turn 4: using it forgets it
    assert g.dict["players"][1]["known"] == {} and "Wolf Pack" not in g.dict["players"][1]["hand"]


def test_a_retainer_token_has_power_500_without_a_race_bonus():
    """RULES B6: power 500, attack 0; only a race bonus (Beast King) raises it."""
    g = Script(DECKS["crimson_conqueror"], DECKS["wild_grove"])
    g.draw("Goblin Raider", "Goblin Raider", "Berserker", "Mercenary", "Mercenary")
    g.draw("Wolf Pack", "Sky Scout", "Cloud Archer", "Tidal Return", "Insight")
    g.draw("Fireball").retainer("Mercenary")
    token = g.dict["players"][0]["back"][0]
    assert (token["card"], token["power"], token["attack"]) == ("Retainer", 500, 0)


def test_example_night_queen_heals_once_per_enemy_token():
    g = Script(DECKS["crimson_conqueror"], NIGHT_QUEEN)
    g.draw("Goblin Raider", "Fireball", "Mercenary", "Flame Lancer", "War Cry")
    g.draw(
        "Skeleton Soldier", "Dark Pact", "Mercenary", "Grave Knight", "Death Curse", "Vampire Lord"
    )
    g.draw("Berserker").deploy("Goblin Raider", "front")
    g.retainer("Fireball").retainer("Mercenary").end()
    g.retainer("Mercenary").pass_()  # seat 1's token
    g.attack("F1", "avatar").pass_()
    assert g.dict["players"][1]["hp"] == 17
    g.end()  # three tokens destroyed
    assert g.dict["players"][1]["hp"] == 18
    assert all(not p["back"] for p in g.dict["players"])


def test_example_condition_counts_tokens_and_neutral_cards():
    g = Script(DECKS["crimson_conqueror"], DECKS["wild_grove"])
    g.draw("Skeleton Soldier", "Fire Drake", "Death Curse", "Mercenary", "Mercenary")
    g.draw("Wolf Pack", "Wolf Pack", "Insight", "Great Bear", "Sky Scout")
    g.draw("Goblin Raider").deploy("Skeleton Soldier", "back").end().pass_().end()
    g.quiet_turn("Insight")
    g.draw("Berserker").retainer("Mercenary")
    codes = g.state.legal_actions()
    assert core.DEPLOY << 12 | g.ids["Fire Drake"] << 6 | 1 in codes  # (R)(R)(1)
    assert not [c for c in codes if c >> 12 == core.PLAY and (c >> 6) & 63 == g.ids["Death Curse"]]


def test_example_deck_out_in_the_middle_of_an_effect():
    g = Script(NIGHT_QUEEN, DECKS["wild_grove"])
    rest = [name for name, n in NIGHT_QUEEN.cards(CARDS).items() for _ in range(n)]
    rest.remove("Dark Pact")
    rest.remove("Mercenary")
    order0 = ["Dark Pact"] + rest + ["Mercenary"]  # seat 0 draws Mercenary last
    order1 = [name for name, n in DECKS["wild_grove"].cards(CARDS).items() for _ in range(n)]
    g.draw(*order0[:6]).draw(*order1[:5])
    i0, i1 = 6, 5
    while not (g.dict["active"] == 0 and g.dict["players"][0]["deck_size"] == 2):
        if g.dict["active"] == 0:
            g.quiet_turn(order0[i0])
            i0 += 1
        else:
            g.quiet_turn(order1[i1])
            i1 += 1
    g.draw(order0[i0])
    assert g.dict["players"][0]["deck_size"] == 1 and g.dict["phase"] == "action"
    hp = g.dict["players"][0]["hp"]
    g.play("Dark Pact")
    d = g.dict
    assert d["players"][0]["graveyard"]["Dark Pact"] == 1
    assert d["pending"] == {
        "kind": "draw",
        "source": "Dark Pact",
        "ability": False,
        "player": 0,
        "effect": 0,
        "draws_left": 2,
        "target": None,
    }
    assert g.state.chance_outcomes() == [(draw(g.ids, "Mercenary"), 1.0)]
    g.draw("Mercenary")
    d = g.dict
    assert d["phase"] == "over" and d["result"] == [-1, 1] and d["current"] is None
    assert d["pending"] is None and d["players"][0]["hp"] == hp  # lose_hp(2) never happened


def test_on_deploy_target_and_draw_nodes():
    g = Script(NIGHT_QUEEN, SKY_SAGE)
    g.draw(
        "Skeleton Soldier", "Shadow Assassin", "Mercenary", "Mercenary", "Dark Pact", "Grave Knight"
    )
    g.draw("Sky Scout", "Storm Mage", "Insight", "Cloud Archer", "Wind Ward")
    g.draw("Vampire Lord").deploy("Skeleton Soldier", "back").end().pass_().end()  # turn 1
    g.draw("Mercenary").deploy("Sky Scout", "back").deploy("Storm Mage", "back")  # turn 2
    d = g.dict
    assert d["pending"] == {
        "kind": "draw",
        "source": "Storm Mage",
        "ability": False,
        "player": 1,
        "effect": 0,
        "draws_left": 1,
        "target": None,
    }
    g.draw("Leviathan")
    assert g.dict["pending"] is None and g.dict["current"] == 1
    assert g.dict["players"][1]["hand"]["Leviathan"] == 1
    g.end().pass_().end()
    g.draw("Night Ambush").deploy("Shadow Assassin", "back")  # turn 3
    assert g.dict["pending"] == {"kind": "target", "source": "Shadow Assassin", "player": 0}
    assert g.state.legal_actions() == [
        core.TARGET << 12 | slot("op.B1"),
        core.TARGET << 12 | slot("op.B2"),
    ]
    g.do(core.TARGET, 0, slot("op.B1"))  # 1000 damage kills Sky Scout
    assert [u["card"] for u in g.dict["players"][1]["back"]] == ["Storm Mage"]
    assert g.dict["players"][1]["graveyard"] == {"Sky Scout": 1}


# --------------------------------------------------------------------------- from_dict

from xenophon.hero.oracle import OracleGame  # noqa: E402  (the oracle, for the comparisons)


def assert_same_node(a, b):
    """Two C states that must be the same node, byte for byte."""
    assert a.to_dict() == b.to_dict()
    assert a.legal_actions() == b.legal_actions()
    assert a.chance_weights() == b.chance_weights()
    assert a.to_bytes() == b.to_bytes() and a.hash() == b.hash()


def round_trip_states(tables, seed: int, games: int, every: int):
    """(state, rng) at every `every`-th node of seeded random games, the end included."""
    rng = random.Random(seed)
    step = 0
    for state in random_states(tables, seed, games):
        if step % every == 0 or state.is_terminal():
            yield state, rng
        step += 1


def check_round_trip(tables, state, rng):
    d = state.to_dict()
    rebuilt = core.CoreState.from_dict(tables, d)
    assert rebuilt.to_dict() == d
    assert rebuilt.check() is None and rebuilt.hash() == rebuilt.hash_from_scratch()
    assert rebuilt.history_size() == 0
    # The dict determines every byte of the C state (exile is always empty, a
    # special winner never survives an action, "none" fields are zero).
    assert_same_node(rebuilt, state)
    assert all(rebuilt.information_set_key(p) == state.information_set_key(p) for p in (0, 1))
    original = state.clone()
    for _ in range(3):  # and both go on alike
        if original.is_terminal():
            break
        code = choose(original, rng)
        original.apply(code)
        rebuilt.apply(code)
        assert_same_node(rebuilt, original)
    return d


def node_kind(d: dict) -> tuple:
    pending = d["pending"]
    if pending is None:
        return d["phase"], None
    return d["phase"], pending["kind"], pending.get("ability"), pending.get("target") is not None


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
def test_from_dict_round_trips_random_games(pairing):
    """from_dict(to_dict()) over random games: the same dict, the same legal
    actions and the same bytes, at every kind of node of §3 (setup and draw
    chance nodes, the four decision phases, pending targets and draws, the end)."""
    tables = TABLES[pairing]
    kinds = set()
    for state, rng in round_trip_states(tables, seed=11, games=10, every=1):
        kinds.add(node_kind(check_round_trip(tables, state, rng)))
    phases = {k[0] for k in kinds}
    assert phases == {"setup", "draw", "action", "window", "battle", "defend", "over"}
    if pairing.startswith("queen") or pairing.endswith(
        "queen"
    ):  # Storm Mage, Dark Pact, Shadow Assassin
        assert ("action", "draw", False, False) in kinds and (
            "action",
            "target",
            None,
            False,
        ) in kinds


@pytest.mark.parametrize("avatars", [("Seer", "Reaper"), ("Packlord", "Seer")])
def test_from_dict_round_trips_exotic_pending_draws(tmp_path, avatars):
    """The pending draws the reference set never leaves: an ability's draw, a
    fast operation's draw in the window, battle and defend phases, with a live
    target ref (also the attack's refs) kept by the dict."""
    tables = exotic_tables(tmp_path, *avatars)
    wanted = {
        ("defend", "draw", False, True),
        ("window", "draw", False, True),
        ("battle", "draw", False, True),
        ("over", None),
    }
    if avatars[0] == "Seer":
        wanted.add(("action", "draw", True, True))
    kinds = set()
    for state, rng in round_trip_states(tables, seed=4, games=600, every=1):
        if state.to_dict()["pending"] is not None or state.is_terminal():
            kinds.add(node_kind(check_round_trip(tables, state, rng)))
            if wanted <= kinds:
                break
    assert wanted <= kinds


# Hand-written positions, built on the oracle and on the C core alike.


def hw_unit(name: str, **changes) -> dict:
    """A unit as the oracle tests write it: standby, undamaged, on the field since
    the turn began (`power`/`attack` left out: they are derived)."""
    u = {
        "card": name,
        "token": name == "Retainer",
        "damage": 0,
        "used": False,
        "can_move": True,
        "pump_power": 0,
        "pump_attack": 0,
    }
    u.update(changes)
    return u


def check_against_oracle(tables, oracle_game, d: dict, seeds=range(4), steps=40):
    """The C core and the oracle built from the same dict: the same node, then the
    same game for `steps` random actions (chance outcomes from a seeded rng)."""
    expected = oracle_game.state_from_dict(d).to_dict()
    assert core.CoreState.from_dict(tables, d).to_dict() == expected
    for seed in seeds:
        rng = random.Random(seed)
        c, o = core.CoreState.from_dict(tables, d), oracle_game.state_from_dict(d)
        for _ in range(steps):
            assert c.to_dict() == o.to_dict()
            assert c.legal_actions() == o.legal_actions()
            assert c.chance_outcomes() == o.chance_outcomes()
            assert c.current_player() == o.current_player() and c.returns() == o.returns()
            if o.is_terminal():
                break
            code = choose(o, rng)
            o.apply(code)
            c.apply(code)
            assert c.check() is None
    return expected


CRIMSON_WILD = (DECKS["crimson_conqueror"], DECKS["wild_grove"])
QUEEN_SAGE = (NIGHT_QUEEN, SKY_SAGE)


def crimson_wild(**kw) -> dict:
    """Seat 0 Flame Warlord, seat 1 Beast King, with units in all four rows."""
    seats = (
        {
            "hp": 16,
            "charisma_used": 1,
            "hand": {
                "Fireball": 1,
                "War Cry": 1,
                "Fire Drake": 1,
                "Skeleton Soldier": 1,
                "Death Curse": 1,
            },
            "known": {"Fireball": 1},
            "graveyard": {"Goblin Raider": 2, "Scorching Strike": 1},
            "front": [hw_unit("Berserker"), hw_unit("Goblin Raider", damage=500, pump_power=500)],
            "back": [hw_unit("Retainer", can_move=False), hw_unit("Flame Lancer", used=True)],
        },
        {
            "hp": 14,
            "hand": {"Giant Growth": 1, "Tidal Return": 1, "Wolf Pack": 1},
            "graveyard": {"Insight": 1},
            "front": [hw_unit("Wolf Pack", used=True), hw_unit("Great Bear")],
            "back": [hw_unit("Elven Ranger", used=True), hw_unit("Sky Scout")],
        },
    )
    return hand_written(CRIMSON_WILD, CARDS, seats, **kw)


HAND_WRITTEN = {
    "action": lambda: crimson_wild(),
    "window": lambda: crimson_wild(phase="window"),
    "battle": lambda: crimson_wild(phase="battle"),
    "battle, seat 1 active": lambda: crimson_wild(phase="battle", active=1, turn=4),
    "defend, attack on a used unit": lambda: crimson_wild(
        phase="defend", attack={"attacker": "F1", "target": "F1"}
    ),
    "defend, attack on the avatar": lambda: crimson_wild(
        phase="defend", attack={"attacker": "F2", "target": "avatar"}
    ),
    "defend, attacker gone": lambda: crimson_wild(
        phase="defend", attack={"attacker": None, "target": "avatar"}
    ),
    "defend, target gone": lambda: crimson_wild(
        phase="defend", attack={"attacker": "F1", "target": None}
    ),
    "draw phase": lambda: crimson_wild(phase="draw", active=1, turn=6),
    "setup": lambda: hand_written(
        CRIMSON_WILD, CARDS, ({"hand": {"Berserker": 1, "Fireball": 2}}, {}), phase="setup", turn=0
    ),
    "setup, seat 1 draws": lambda: hand_written(
        CRIMSON_WILD,
        CARDS,
        ({"hand": {"Mercenary": 2, "Goblin Raider": 3}}, {"hand": {"Sky Scout": 1}}),
        phase="setup",
        turn=0,
    ),
    "on_deploy target": lambda: hand_written(
        QUEEN_SAGE,
        CARDS,
        (
            {
                "charisma_used": 3,
                "hand": {"Dark Pact": 1, "Death Curse": 1},
                "back": [hw_unit("Skeleton Soldier"), hw_unit("Shadow Assassin", can_move=False)],
            },
            {
                "back": [hw_unit("Sky Scout", used=True), hw_unit("Storm Mage")],
                "front": [hw_unit("Leviathan")],
                "hand": {"Wind Ward": 1},
            },
        ),
        pending={"kind": "target", "source": "Shadow Assassin", "player": 0},
    ),
    "pending draw, Dark Pact": lambda: hand_written(
        QUEEN_SAGE,
        CARDS,
        (
            {
                "hp": 5,
                "charisma_used": 1,
                "graveyard": {"Dark Pact": 1},
                "hand": {"Vampire Lord": 1, "Mercenary": 1},
                "front": [hw_unit("Grave Knight")],
            },
            {"hand": {"Tidal Return": 1}, "back": [hw_unit("Cloud Archer")]},
        ),
        pending={
            "kind": "draw",
            "source": "Dark Pact",
            "ability": False,
            "player": 0,
            "effect": 0,
            "draws_left": 1,
            "target": None,
        },
    ),
    "pending draw, Storm Mage": lambda: hand_written(
        QUEEN_SAGE,
        CARDS,
        (
            {"hand": {"Night Ambush": 1}, "front": [hw_unit("Vampire Lord", used=True)]},
            {
                "charisma_used": 3,
                "hand": {"Insight": 1, "Wind Ward": 1},
                "back": [hw_unit("Storm Mage", can_move=False)],
            },
        ),
        active=1,
        turn=6,
        pending={
            "kind": "draw",
            "source": "Storm Mage",
            "ability": False,
            "player": 1,
            "effect": 0,
            "draws_left": 1,
            "target": None,
        },
    ),
}


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_from_dict_hand_written_positions_agree_with_the_oracle(name):
    d = HAND_WRITTEN[name]()
    decks = QUEEN_SAGE if d["players"][0]["avatar"] == "Night Queen" else CRIMSON_WILD
    tables = core.Tables(CARDS.core_data(*decks))
    expected = check_against_oracle(tables, OracleGame(CARDS, *decks), d)
    assert expected["phase"] == d["phase"] and expected["attack"] == d["attack"]
    # once completed by the oracle's to_dict, the dict round trips on the C core
    assert core.CoreState.from_dict(tables, expected).to_dict() == expected


def test_from_dict_hand_written_exotic_positions_agree_with_the_oracle(tmp_path):
    """An ability's pending draw with a target, and a defender's Riposte suspended
    at its draw with the attacker as target (bounced once the draws are done)."""
    path = tmp_path / "exotic.toml"
    path.write_text(EXOTIC_CARDS)
    cards = load_card_set(path)
    counts = {
        "Pup": 12,
        "Warden": 4,
        "Harrier": 10,
        "Riposte": 8,
        "Recall": 4,
        "Quorum": 3,
        "Zero Draw": 4,
    }
    decks = (build_deck(cards, "Seer", counts), build_deck(cards, "Reaper", counts))
    tables, oracle = core.Tables(cards.core_data(*decks)), OracleGame(cards, *decks)
    ability_draw = hand_written(
        decks,
        cards,
        (
            {
                "ability_used": True,
                "hand": {"Quorum": 1, "Riposte": 1},
                "front": [hw_unit("Harrier")],
                "back": [hw_unit("Pup")],
            },
            {"front": [hw_unit("Warden"), hw_unit("Pup", used=True)]},
        ),
        pending={
            "kind": "draw",
            "source": "Seer",
            "ability": True,
            "player": 0,
            "effect": 0,
            "draws_left": 1,
            "target": {"seat": 1, "slot": "F2"},
        },
    )
    riposte = hand_written(
        decks,
        cards,
        (
            {"front": [hw_unit("Harrier", used=True), hw_unit("Pup")]},
            {
                "charisma_used": 1,
                "graveyard": {"Riposte": 1},
                "hand": {"Recall": 1, "Zero Draw": 1},
                "back": [hw_unit("Pup"), hw_unit("Warden")],
            },
        ),
        phase="defend",
        attack={"attacker": "F1", "target": "avatar"},
        pending={
            "kind": "draw",
            "source": "Riposte",
            "ability": False,
            "player": 1,
            "effect": 1,
            "draws_left": 2,
            "target": {"seat": 0, "slot": "F1"},
        },
    )
    for d in (ability_draw, riposte):
        check_against_oracle(tables, oracle, d, seeds=range(6))
    # Riposte: two draws, then the bounce of its target, the attacker: the attack goes on GONE.
    rng = random.Random(0)
    state = core.CoreState.from_dict(tables, riposte)
    state.apply(choose(state, rng))
    state.apply(choose(state, rng))
    d = state.to_dict()
    assert d["attack"] == {"attacker": None, "target": "avatar"} and d["current"] == 1
    assert d["players"][0]["known"] == {"Harrier": 1}


def test_from_dict_takes_the_oracles_defaults():
    """What a hand-written dict may leave out, as in OracleState.from_dict: hp,
    counters, empty zones, unit fields (a fresh unit), the derived keys; names
    ignoring case and surrounding spaces."""
    sparse = crimson_wild()
    for p in sparse["players"]:
        for key in ("hp", "charisma_used", "known", "exile"):
            p.pop(key, None)
    sparse["players"][1]["graveyard"] = None  # None: empty, as in the oracle
    sparse["players"][1]["deck"]["Insight"] += 1
    sparse["players"][0]["front"] = [
        {"card": " berserker "},
        {"card": "GOBLIN RAIDER", "damage": 500, "pump_power": 500},
    ]
    sparse["players"][1]["hand"] = {
        "giant growth": 1,
        "Tidal Return": 1,
        "Wolf Pack": 1,
        "Fireball": 0,
    }
    del sparse["result"], sparse["pending"], sparse["attack"]
    tables = core.Tables(CARDS.core_data(*CRIMSON_WILD))
    oracle = OracleGame(CARDS, *CRIMSON_WILD)
    built = core.CoreState.from_dict(tables, sparse).to_dict()
    assert built == oracle.state_from_dict(sparse).to_dict()
    seat0 = built["players"][0]
    assert seat0["hp"] == 20 and seat0["charisma_used"] == 0 and seat0["known"] == {}
    assert [u["can_move"] for u in seat0["front"]] == [False, False]
    assert built["players"][1]["hand"] == {"Giant Growth": 1, "Tidal Return": 1, "Wolf Pack": 1}


def valid_action_dict() -> dict:
    d = core.CoreState.from_dict(
        core.Tables(CARDS.core_data(*CRIMSON_WILD)), crimson_wild()
    ).to_dict()
    assert d["current"] == 0 and d["players"][0]["front"][0]["power"] == 3000
    return d


def set_path(d, path, value):
    *head, last = path
    for key in head:
        d = d[key]
    d[last] = value


def complete_both_hands(d):
    """A setup where seat 1 has its 5 cards too (seat 0 has 5 already)."""
    d.update(phase="setup", turn=0, current="chance")
    seat1 = d["players"][1]
    seat1["hand"]["Wolf Pack"] += 2
    seat1["deck"]["Wolf Pack"] -= 2
    seat1["hand_size"] += 2
    seat1["deck_size"] -= 2


BROKEN = {
    "unknown card in a hand": (
        lambda d: d["players"][0]["hand"].update({"Excalibur": 1}),
        "players\\[0\\].hand.*unknown card 'Excalibur'",
    ),
    "unknown card on the field": (
        lambda d: d["players"][1]["back"][0].update(card="Dragon"),
        "unknown card 'Dragon'",
    ),
    "six units in a row": (
        lambda d: d["players"][0]["back"].extend([dict(d["players"][0]["back"][0])] * 4),
        "6 units, a row holds at most 5",
    ),
    "an operation on the field": (
        lambda d: d["players"][0]["front"][0].update(card="Fireball"),
        "'Fireball' is not a unit",
    ),
    "a card too many": (
        lambda d: d["players"][0]["hand"].update({"Fire Drake": 2}),
        "'Fire Drake': hand 2 .* has 2",
    ),
    "a card missing": (lambda d: d["players"][1]["deck"].pop("Wolf Pack"), "'Wolf Pack'"),
    "a non-empty exile": (lambda d: d["players"][1]["exile"].update({"Insight": 1}), "exile"),
    "another avatar": (
        lambda d: d["players"][0].update(avatar="Night Queen"),
        "the tables give seat 0 the avatar 'Flame Warlord'",
    ),
    "known beyond the hand": (
        lambda d: d["players"][0]["known"].update({"War Cry": 2}),
        "'War Cry' known 2 times",
    ),
    "a negative count": (
        lambda d: d["players"][0]["hand"].update({"War Cry": -1}),
        "outside 0..255",
    ),
    "unknown phase": (lambda d: d.update(phase="upkeep"), "unknown phase 'upkeep'"),
    "unknown key": (
        lambda d: d["players"][0]["front"][0].update(moved=True),
        "unknown key 'moved'",
    ),
    "missing key": (lambda d: d.pop("turn"), "missing key 'turn'"),
    "a string for a number": (lambda d: d["players"][1].update(hp="14"), "an integer is needed"),
    "HP above the avatar's": (lambda d: d["players"][1].update(hp=99), "hp: 99 is outside"),
    "overspent charisma": (lambda d: d["players"][0].update(charisma_used=7), "charisma_used"),
    "a dead unit": (
        lambda d: d["players"][0]["front"][1].update(damage=1500),
        "damage 1500 >= power 1500",
    ),
    "a game over left going": (lambda d: d["players"][1].update(hp=0), "would be over"),
    "stale hand size": (lambda d: d["players"][0].update(hand_size=4), "hand_size"),
    "stale power": (lambda d: d["players"][0]["front"][1].update(pump_power=0), "power"),
    "a token that is not one": (lambda d: d["players"][0]["back"][0].update(token=False), "token"),
    "wrong current": (lambda d: d.update(current=1), "current: 1, but .* give 0"),
    "a result in a game going on": (lambda d: d.update(result=[1, -1]), "result"),
    "active in the wrong turn": (lambda d: d.update(turn=4), "odd turns"),
    "an attack outside defend": (
        lambda d: d.update(attack={"attacker": "F1", "target": "avatar"}),
        "only in the defend phase",
    ),
    "defend without an attack": (
        lambda d: d.update(phase="defend", current=1),
        "needs the declared attack",
    ),
    "an attack ref to an empty slot": (
        lambda d: d.update(phase="defend", current=1, attack={"attacker": "F1", "target": "B3"}),
        "slot B3 of seat 1 holds no unit",
    ),
    "a bad slot name": (
        lambda d: d.update(
            phase="defend", current=1, attack={"attacker": "F6", "target": "avatar"}
        ),
        "F1..F5 or B1..B5",
    ),
    "a pending target outside the action phase": (
        lambda d: d.update(
            phase="battle", pending={"kind": "target", "source": "Berserker", "player": 0}
        ),
        "on_deploy target",
    ),
    "a pending target without targets": (
        lambda d: d.update(pending={"kind": "target", "source": "Berserker", "player": 0}),
        "no on_deploy effect",
    ),
    "a pending draw of a card without draw": (
        lambda d: d.update(
            current="chance",
            pending={
                "kind": "draw",
                "source": "Fireball",
                "ability": False,
                "player": 0,
                "effect": 0,
                "draws_left": 1,
                "target": None,
            },
        ),
        "not a draw",
    ),
    "a pending draw by the wrong player": (
        lambda d: d.update(
            current="chance",
            pending={
                "kind": "draw",
                "source": "Insight",
                "ability": False,
                "player": 1,
                "effect": 0,
                "draws_left": 1,
                "target": None,
            },
        ),
        "pending.player",
    ),
    "too many draws left": (
        lambda d: d.update(
            current="chance",
            phase="window",
            pending={
                "kind": "draw",
                "source": "Insight",
                "ability": False,
                "player": 1,
                "effect": 0,
                "draws_left": 3,
                "target": None,
            },
        ),
        "draws_left: 3 is outside 1..2",
    ),
    "an ability draw of an ability that does not draw": (
        lambda d: d.update(
            current="chance",
            pending={
                "kind": "draw",
                "source": "Flame Warlord",
                "ability": True,
                "player": 0,
                "effect": 0,
                "draws_left": 1,
                "target": None,
            },
        ),
        "effect 0 of 'Flame Warlord' is not a draw",
    ),
    "an ability draw without an activated ability": (
        lambda d: d.update(
            current="chance",
            turn=4,
            active=1,
            pending={
                "kind": "draw",
                "source": "Beast King",
                "ability": True,
                "player": 1,
                "effect": 0,
                "draws_left": 1,
                "target": None,
            },
        ),
        "activated ability",
    ),
    "a setup after turn 0": (
        lambda d: d.update(phase="setup", current="chance"),
        "setup is turn 0",
    ),
    "a setup with both hands complete": (complete_both_hands, "the setup is over"),
    "a game over without result": (lambda d: d.update(phase="over", current=None), "result"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_from_dict_refuses_what_the_c_state_cannot_hold(name):
    tables = core.Tables(CARDS.core_data(*CRIMSON_WILD))
    d = valid_action_dict()
    core.CoreState.from_dict(tables, d)  # valid before the change
    change, message = BROKEN[name]
    change(d)
    with pytest.raises(ValueError, match=message):
        core.CoreState.from_dict(tables, d)


def test_from_dict_game_over_and_the_game_interface():
    from xenophon.hero import Game
    from xenophon.kernel.errors import XenophonError

    d = valid_action_dict()
    d["players"][1]["hp"] = -2
    d.update(phase="over", current=None, result=[1, -1])
    tables = core.Tables(CARDS.core_data(*CRIMSON_WILD))
    state = core.CoreState.from_dict(tables, d)
    assert state.is_terminal() and state.returns() == [1.0, -1.0] and state.to_dict() == d
    check_against_oracle(tables, OracleGame(CARDS, *CRIMSON_WILD), d, seeds=range(1))
    for engine in ("c", "oracle"):
        game = Game(engine=engine)
        assert game.state_from_dict(d).to_dict() == d
        assert game.state_from_dict(valid_action_dict()).to_dict() == valid_action_dict()
    with pytest.raises(XenophonError, match="unknown card"):
        Game(engine="c").state_from_dict(
            {**d, "players": [{**d["players"][0], "hand": {"Excalibur": 1}}, d["players"][1]]}
        )
