"""Scenario tests of the Hero rules, run on both backends: the pure-Python
oracle (src/hero/oracle.py) and the C core (xenophon._core.hero); and of the
Hero notation (src/hero/notation.py).

Each scenario builds a position (a canonical dict, docs/hero-engine.md §10,
turned into a state by ``from_dict``), plays moves written in the notation of
spec §8 and checks the result against the rules of the spec (the project's
rules authority). Moves are
always written from the side of the player who makes them: ``op.F1`` is the
opponent's first front-row unit of whoever is acting.

Positions conserve cards, as the C core insists (spec §10): every card of a
seat's decklist is in exactly one zone. A position names what is in hand, in
the graveyard and on the field; its deck is the rest of the decklist (see
`build`). Every draw is a chance node, so a test picks the card drawn.
"""

from __future__ import annotations

import random
import textwrap
from collections import Counter

import pytest

from harness import CoreBacked, SwitchedBackend
from xenophon._core import hero as core
from xenophon.hero.cards import build_deck, load_card_set, prebuilt_decks
from xenophon.hero.notation import (
    ABILITY,
    ATTACK,
    AVATAR,
    DEPLOY,
    DRAW,
    END,
    GUARD,
    MOVE,
    NONE,
    PASS,
    PLAY,
    RETAINER,
    TARGET,
    decode,
    encode,
    format_action,
    parse_action,
    parse_slot,
    slot_name,
)
from xenophon.hero.oracle import CHANCE, TERMINAL, OracleGame, perft
from xenophon.kernel.errors import NotationError

CARDS = load_card_set()
DECKS = prebuilt_decks(CARDS)


class CoreState(CoreBacked):
    """A C core state that knows its game, as the oracle's states do (the notation
    helpers read the card set from ``state.game``)."""

    def __init__(self, state, game: Backend):
        super().__init__(state)
        self.game = game

    def resample(self, player: int, rng: random.Random) -> CoreState:
        return CoreState(self._state.resample(player, rng.getrandbits(63)), self.game)

    def clone(self) -> CoreState:
        return CoreState(self._state.clone(), self.game)


class Backend(SwitchedBackend):
    """A Hero game (a card set and two decks) whose states come from the backend under test."""

    def __init__(self, cards, deck0, deck1):
        super().__init__(
            OracleGame(cards, deck0, deck1),
            core.CoreState,
            core.Tables(cards.core_data(deck0, deck1)),
        )
        self.cards = cards
        self.decks = (deck0, deck1)

    def new_initial_state(self):
        return self._own(super().new_initial_state())

    def state_from_dict(self, d: dict):
        return self._own(super().state_from_dict(d))

    def _own(self, state):
        return CoreState(state._state, self) if isinstance(state, CoreBacked) else state


@pytest.fixture(autouse=True, params=["oracle", "c"])
def backend(request):
    """Every scenario runs on the oracle and on the C core."""
    with SwitchedBackend.using(request.param):
        yield request.param


def on_oracle() -> bool:
    """Whether the oracle runs: guards the few checks of the oracle's own API."""
    return SwitchedBackend.current == "oracle"


def oracle_only(why: str) -> None:
    """Skips the running test on the C core: it is about the oracle's own API."""
    if SwitchedBackend.current != "oracle":
        pytest.skip(f"oracle only: {why}")


#: for tests of the notation alone, which build no state: run once, on no backend
NO_BACKEND = pytest.mark.parametrize("backend", ["none"])

GAME = Backend(CARDS, DECKS["crimson_conqueror"], DECKS["wild_grove"])


# ---------------------------------------------------------------------------
# Position builder and move helpers


def cid(name: str) -> int:
    return CARDS.by_name(name).id


def scenario_deck(cards, avatar: str):
    """The decklist of every position built here: each card of the set, 4 copies
    (the most a deck may hold, D-21), 10 of a HORDE card, so that any position
    of the scenarios fits in it."""
    counts = {c.name: 10 if "HORDE" in c.keywords else 4 for c in cards.cards}
    return build_deck(cards, avatar, counts, name=f"{avatar} scenarios")


_SCENARIO_GAMES: dict[tuple[str, str, str], Backend] = {}


def scenario_game(avatar0: str, avatar1: str, cards=CARDS) -> Backend:
    """The game of positions with these avatars: a scenario deck for each seat."""
    key = (str(cards.digest), avatar0, avatar1)
    if key not in _SCENARIO_GAMES:
        _SCENARIO_GAMES[key] = Backend(
            cards, scenario_deck(cards, avatar0), scenario_deck(cards, avatar1)
        )
    return _SCENARIO_GAMES[key]


def unit(name: str, **changes) -> dict:
    """A unit dict of the canonical form; by default standby, undamaged, no pumps, and
    on the field since the start of the turn (can_move). `power`/`attack` are derived
    by the state and not needed here."""
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


def blank(
    avatars=("Flame Warlord", "Beast King"), phase="action", active=0, turn=None, cards=CARDS
) -> dict:
    """A canonical dict with two avatars at full HP, empty hands and fields; `build`
    gives each seat the rest of its decklist as its deck."""
    players = []
    for name in avatars:
        players.append(
            {
                "avatar": name,
                "hp": cards.avatar_by_name(name).hp,
                "charisma_used": 0,
                "ability_used": False,
                "hand": {},
                "known": {},
                "deck": None,
                "graveyard": {},
                "exile": {},
                "front": [],
                "back": [],
            }
        )
    return {
        "turn": turn if turn is not None else 3 + active,
        "active": active,
        "phase": phase,
        "result": None,
        "pending": None,
        "attack": None,
        "players": players,
    }


def conserved(d: dict, game: Backend) -> dict:
    """A copy of `d` whose zones hold each seat's decklist exactly: a seat's deck is
    the rest of its decklist; a seat given a deck (``"deck": {...}``, e.g. a tiny one
    for a deck-out) keeps it, and the rest of its decklist is in its graveyard."""
    d = {**d, "players": [dict(p) for p in d["players"]]}
    for deck, p in zip(game.decks, d["players"]):
        rest = Counter(deck.cards(game.cards))
        rest.subtract(p["hand"])
        rest.subtract(p["graveyard"])
        rest.subtract(u["card"] for u in p["front"] + p["back"] if u["card"] != "Retainer")
        if p.get("deck") is not None:
            rest.subtract(p["deck"])
        short = {name: -n for name, n in rest.items() if n < 0}
        assert not short, f"seat of {p['avatar']}: more cards than its decklist holds: {short}"
        rest = {name: n for name, n in rest.items() if n}
        if p.get("deck") is None:
            p["deck"] = rest
        else:
            p["graveyard"] = dict(Counter(p["graveyard"]) + Counter(rest))
    return d


def build(d: dict, game: Backend | None = None):
    """The state of position `d` (cards conserved, see `conserved`) on the backend
    under test; by default in the scenario game of its two avatars."""
    if game is None:
        game = scenario_game(*(p["avatar"] for p in d["players"]))
    return game.state_from_dict(conserved(d, game))


def draw_odds(deck: dict[str, int], cards=CARDS) -> list[tuple[int, float]]:
    """The chance outcomes of a draw from `deck`: each card with its share, by card id."""
    size = sum(deck.values())
    return sorted((encode(DRAW, cards.by_name(name).id), n / size) for name, n in deck.items())


def code_of(state, text: str) -> int:
    return parse_action(text, state.game.cards)


def legal(state) -> list[str]:
    """The legal moves in notation, in code order."""
    return [format_action(c, state.game.cards) for c in state.legal_actions()]


def act(state, *moves: str) -> None:
    """Plays moves (or chance outcomes such as 'draw Insight'), each of which must be legal."""
    for text in moves:
        code = code_of(state, text)
        assert code in state.legal_actions(), f"'{text}' is not legal; legal: {legal(state)}"
        state.apply(code)


def seat(state, s: int) -> dict:
    return state.to_dict()["players"][s]


def row(state, s: int, which: str) -> list[str]:
    return [u["card"] for u in seat(state, s)[which]]


def starting_with(state, word: str) -> list[str]:
    return [m for m in legal(state) if m.startswith(word)]


# ---------------------------------------------------------------------------
# A small card set of our own, for rules no reference card reaches

CUSTOM_TOML = textwrap.dedent("""
    [[avatar]]
    name = "Blood Witch"
    faction = "K"
    hp = 10
    hand = 0
    charisma = 5
    race = "Human"
    ability = { kind = "on_enemy_destroyed", effects = ["damage_avatar(1)"] }

    [[avatar]]
    name = "Penitent"
    faction = "N"
    hp = 10
    hand = 0
    charisma = 5
    race = "Human"
    ability = { kind = "on_enemy_destroyed", effects = ["lose_hp(1)", "heal_avatar(3)"] }

    [[avatar]]
    name = "Seer"
    faction = "U"
    hp = 10
    hand = 0
    charisma = 5
    race = "Elf"
    ability = { kind = "activated", effects = ["draw(1)", "heal_avatar(2)"] }

    [[avatar]]
    name = "Beastmaster"
    faction = "G"
    hp = 10
    hand = 0
    charisma = 5
    race = "Human"
    ability = { kind = "race_bonus", race = "Beast", power = 1000, attack = 2 }

    [[card]]
    name = "Squire"
    type = "unit"
    faction = "N"
    cost = 1
    condition = ""
    race = "Human"
    power = 1000
    attack = 1
    keywords = ["HORDE"]

    [[card]]
    name = "Wolf"
    type = "unit"
    faction = "G"
    cost = 1
    condition = ""
    race = "Beast"
    power = 1000
    attack = 1
    keywords = ["HORDE"]

    [[card]]
    name = "Herald"
    type = "unit"
    faction = "N"
    cost = 1
    condition = ""
    race = "Human"
    power = 1000
    attack = 1
    trigger = "on_deploy"
    effects = ["pump(500, 0)"]
    target = "own_unit"

    [[card]]
    name = "Recall"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "fast"
    effects = ["bounce", "draw(1)"]
    target = "unit"

    [[card]]
    name = "Reckless Curse"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "normal"
    effects = ["pump(2000, 0)", "destroy_unit(3000)"]
    target = "unit"

    [[card]]
    name = "Blast"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "fast"
    effects = ["damage_unit(5000)", "pump(1000, 1)"]
    target = "unit"

    [[card]]
    name = "Ponder"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "normal"
    effects = ["draw(0)", "heal_avatar(1)"]

    [[card]]
    name = "Study"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "fast"
    effects = ["pump(500, 0)", "draw(1)", "pump(0, 1)"]
    target = "own_unit"

    [[card]]
    name = "Small Crown"
    type = "operation"
    faction = "N"
    cost = 1
    condition = ""
    timing = "normal"
    effects = ["win_if_units(2)"]
""")


@pytest.fixture(scope="module")
def custom(tmp_path_factory):
    """(card set, game factory) of the custom set; scenario decks of its cards."""
    path = tmp_path_factory.mktemp("hero") / "custom.toml"
    path.write_text(CUSTOM_TOML)
    cards = load_card_set(path)

    def game(avatar0: str = "Blood Witch", avatar1: str = "Blood Witch") -> Backend:
        return scenario_game(avatar0, avatar1, cards)

    return cards, game


# ---------------------------------------------------------------------------
# Creation and setup (spec §4.1, §9)


def test_creation_setup_draws_and_first_turn():
    s = GAME.new_initial_state()
    d = s.to_dict()
    assert set(d) == {
        "turn",
        "active",
        "current",
        "phase",
        "result",
        "pending",
        "attack",
        "players",
    }
    assert (
        d["turn"],
        d["active"],
        d["current"],
        d["phase"],
        d["result"],
        d["pending"],
        d["attack"],
    ) == (0, 0, "chance", "setup", None, None, None)
    assert s.current_player() == CHANCE and s.is_chance() and not s.is_terminal()
    assert d["players"][0] == {
        "avatar": "Flame Warlord",
        "hp": 20,
        "charisma_used": 0,
        "ability_used": False,
        "hand": {},
        "hand_size": 0,
        "known": {},
        "deck": DECKS["crimson_conqueror"].cards(CARDS),
        "deck_size": 40,
        "graveyard": {},
        "exile": {},
        "front": [],
        "back": [],
    }
    assert d["players"][1]["avatar"] == "Beast King" and d["players"][1]["hp"] == 22
    # Every draw is a chance node over the drawer's deck multiset, ascending.
    outcomes = s.chance_outcomes()
    assert outcomes[0] == (encode(DRAW, cid("Goblin Raider")), 6 / 40)
    assert [decode(c)[1] for c, _ in outcomes] == sorted(DECKS["crimson_conqueror"].multiset())
    assert s.legal_actions() == [c for c, _ in outcomes]
    # Seat 0 draws its 5 cards, then seat 1 its 5.
    for _ in range(5):
        act(s, "draw Goblin Raider")
    assert seat(s, 0)["hand"] == {"Goblin Raider": 5} and seat(s, 0)["deck_size"] == 35
    assert s.to_dict()["phase"] == "setup"
    assert s.chance_outcomes()[0] == (encode(DRAW, cid("Sky Scout")), 4 / 40)
    for _ in range(5):
        act(s, "draw Wolf Pack")
    # Turn 1 begins: seat 0's Draw phase is a chance node of its own (D-23).
    d = s.to_dict()
    assert (d["turn"], d["active"], d["current"], d["phase"]) == (1, 0, "chance", "draw")
    assert s.chance_outcomes()[0] == (encode(DRAW, cid("Goblin Raider")), 1 / 35)
    act(s, "draw Berserker")
    d = s.to_dict()
    assert (d["turn"], d["active"], d["current"], d["phase"]) == (1, 0, 0, "action")
    assert d["players"][0]["hand"] == {"Goblin Raider": 5, "Berserker": 1}


def test_both_hand_sizes_zero_start_the_first_turn_at_once(custom):
    _, game = custom
    d = game().new_initial_state().to_dict()
    assert (d["turn"], d["active"], d["phase"], d["current"]) == (1, 0, "draw", "chance")


def test_first_turn_example_of_spec_section_4():
    s = GAME.new_initial_state()
    act(
        s,
        *["draw Goblin Raider"] * 4,
        "draw Berserker",
        *["draw Wolf Pack"] * 5,
        "draw Goblin Raider",
    )
    # Berserker (R)(1) needs two cards on the field: only the avatar is there.
    assert "deploy Berserker back" not in legal(s)
    assert starting_with(s, "deploy") == ["deploy Goblin Raider front", "deploy Goblin Raider back"]
    act(s, "deploy Goblin Raider front")
    assert "deploy Berserker front" in legal(s)  # now two R cards: condition met
    act(s, "end")
    assert s.to_dict()["phase"] == "window" and s.current_player() == 1
    assert legal(s) == ["pass", "retainer discard Wolf Pack"]
    act(s, "pass")
    assert s.to_dict()["phase"] == "battle" and s.current_player() == 0
    act(s, "attack F1 > avatar")
    assert s.to_dict()["attack"] == {"attacker": "F1", "target": "avatar"}
    assert s.to_dict()["phase"] == "defend" and s.current_player() == 1
    act(s, "pass")
    assert seat(s, 1)["hp"] == 21
    assert s.to_dict()["phase"] == "battle" and s.to_dict()["attack"] is None
    act(s, "end")
    d = s.to_dict()
    assert (d["turn"], d["active"], d["phase"], d["current"]) == (2, 1, "draw", "chance")


# ---------------------------------------------------------------------------
# The turn: draw, standby, end (spec §4.2-§4.4, E-10, E-11)


def test_turn_start_standby_resets_and_draw():
    d = blank(phase="battle")
    p0, p1 = d["players"]
    p0["front"] = [
        unit("Goblin Raider", used=True, can_move=False, damage=500, pump_power=1000, pump_attack=1)
    ]
    p0["charisma_used"], p0["ability_used"] = 4, True
    p1["front"] = [unit("Wolf Pack", used=True)]
    p1["back"] = [unit("Sky Scout", used=True, can_move=False)]
    p1["charisma_used"] = 3
    s = build(d)
    act(s, "end")
    d = s.to_dict()
    assert (d["turn"], d["active"], d["phase"], d["current"]) == (4, 1, "draw", "chance")
    p0, p1 = d["players"]
    assert (p0["charisma_used"], p0["ability_used"], p1["charisma_used"]) == (0, False, 0)
    # damage and pumps cleared; the new active player's units are standby, the other's not
    assert p0["front"][0] == {
        "card": "Goblin Raider",
        "token": False,
        "power": 1000,
        "attack": 1,
        "damage": 0,
        "used": True,
        "can_move": True,
        "pump_power": 0,
        "pump_attack": 0,
    }
    assert [u["used"] for u in p1["front"] + p1["back"]] == [False, False]
    assert all(u["can_move"] for u in p1["front"] + p1["back"])
    # the draw is a chance node over seat 1's deck
    deck = seat(s, 1)["deck"]
    assert s.chance_outcomes() == draw_odds(deck)
    act(s, "draw Mercenary")
    assert s.to_dict()["phase"] == "action" and s.current_player() == 1
    assert seat(s, 1)["hand"] == {"Mercenary": 1}
    assert seat(s, 1)["deck_size"] == sum(deck.values()) - 1


def test_both_windows_are_decision_nodes_even_with_only_pass():
    s = build(blank())
    act(s, "end")
    assert legal(s) == ["pass"] and s.current_player() == 1  # window (b), E-3
    act(s, "pass")
    assert legal(s) == ["end"]  # nothing to attack with
    d = blank(phase="battle")
    d["players"][0]["front"] = [unit("Goblin Raider")]
    s = build(d)
    act(s, "attack F1 > avatar")
    assert legal(s) == ["pass"] and s.current_player() == 1  # window (a)


# ---------------------------------------------------------------------------
# Row moves (spec §5.4, D-26, E-1, E-27)


def test_row_moves_once_per_turn_keep_state_and_shift_rows():
    d = blank()
    p0 = d["players"][0]
    p0["front"] = [unit("Goblin Raider"), unit("Berserker")]
    p0["back"] = [unit("Flame Lancer", damage=500, used=True, pump_power=500)]
    s = build(d)
    assert starting_with(s, "move") == ["move F1", "move F2", "move B1"]
    act(s, "move F1")
    # the raider left F1: Berserker shifts to F1; the raider is appended at the back
    assert row(s, 0, "front") == ["Berserker"]
    assert row(s, 0, "back") == ["Flame Lancer", "Goblin Raider"]
    assert seat(s, 0)["back"][1]["can_move"] is False
    act(s, "move B1")
    lancer = seat(s, 0)["front"][1]
    assert (
        lancer["card"],
        lancer["damage"],
        lancer["used"],
        lancer["pump_power"],
        lancer["power"],
        lancer["can_move"],
    ) == ("Flame Lancer", 500, True, 500, 2500, False)
    # once per turn: only Berserker may still move
    assert starting_with(s, "move") == ["move F1"]


def test_deployed_units_do_not_move_and_full_rows_block_moves():
    d = blank()
    p0 = d["players"][0]
    p0["front"] = [unit("Goblin Raider")] * 5
    p0["back"] = [unit("Flame Lancer")]
    # the back unit cannot go to the full front row; front units may go back
    assert starting_with(build(d), "move") == [f"move F{i}" for i in range(1, 6)]
    p0["front"] = [unit("Goblin Raider")]
    p0["hand"] = {"Goblin Raider": 1}
    s = build(d)
    act(s, "deploy Goblin Raider back")
    assert seat(s, 0)["back"][1]["can_move"] is False
    assert starting_with(s, "move") == ["move F1", "move B1"]
    # row changes only in the Action phase
    act(s, "end", "pass")
    assert starting_with(s, "move") == []
    # from the next turn on the deployed unit may move
    act(s, "end", "draw Mercenary", "end", "pass", "end", "draw Mercenary")
    assert starting_with(s, "move") == ["move F1", "move B1", "move B2"]


# ---------------------------------------------------------------------------
# Deployment: conditions and charisma (spec §5.1, §5.4, D-25)


def test_condition_counts_avatar_units_and_tokens():
    # The spec's example: Flame Warlord (R), Skeleton Soldier (K), a Retainer (R).
    d = blank()
    p0 = d["players"][0]
    p0["front"] = [unit("Skeleton Soldier")]
    p0["back"] = [unit("Retainer")]
    p0["hand"] = {"Fire Drake": 1, "Death Curse": 1}
    d["players"][1]["front"] = [unit("Wolf Pack")]
    s = build(d)
    assert "deploy Fire Drake back" in legal(s)  # R count 2, total 3
    assert starting_with(s, "play Death Curse") == []  # K count 1 < 2
    # With only the avatar and one Retainer the total is 2 < 3.
    d["players"][0]["front"] = []
    assert "deploy Fire Drake back" not in legal(build(d))
    # Two Retainers: they count as red, the avatar's faction.
    d["players"][0]["back"] = [unit("Retainer"), unit("Retainer")]
    assert "deploy Fire Drake back" in legal(build(d))


def test_neutral_cards_count_only_towards_the_number():
    d = blank()
    p0 = d["players"][0]
    p0["hand"] = {"Fire Drake": 1, "Hero's Crown": 1}
    p0["back"] = [unit("Mercenary"), unit("Mercenary")]
    s = build(d)
    assert "deploy Fire Drake back" not in legal(s)  # (R)(R)(1): R count 1
    assert "play Hero's Crown" in legal(s)  # (3): total 3
    p0["back"] = [unit("Mercenary"), unit("Goblin Raider")]
    assert "deploy Fire Drake back" in legal(build(d))  # R 2, total 3
    p0["back"] = [unit("Mercenary")]
    assert "play Hero's Crown" not in legal(build(d))  # total 2


def test_charisma_exactly_equal_is_allowed_and_retainer_is_free():
    d = blank()
    p0 = d["players"][0]
    p0["front"] = [unit("Goblin Raider")]
    p0["hand"] = {"Berserker": 1, "Flame Lancer": 1, "Goblin Raider": 1}
    s = build(d)
    act(s, "deploy Berserker front")
    assert seat(s, 0)["charisma_used"] == 3
    act(s, "deploy Flame Lancer back")  # 3 + 2 = 5 = charisma
    assert seat(s, 0)["charisma_used"] == 5
    assert starting_with(s, "deploy") == []  # 5 + 1 > 5
    assert "retainer discard Goblin Raider" in legal(s)
    act(s, "retainer discard Goblin Raider")
    assert seat(s, 0)["charisma_used"] == 5


def test_charisma_is_per_player_and_resets_every_turn():
    # D-25: seat 1 spends its own budget in seat 0's turn.
    d = blank()
    d["players"][1]["hand"] = {"Giant Growth": 3}
    d["players"][1]["charisma_used"] = 3
    d["players"][0]["front"] = [unit("Goblin Raider")]
    s = build(d)
    act(s, "end", "play Giant Growth on op.F1", "play Giant Growth on op.F1")
    assert seat(s, 1)["charisma_used"] == 5 and seat(s, 0)["charisma_used"] == 0
    assert seat(s, 0)["front"][0]["power"] == 5000
    assert starting_with(s, "play") == []  # 5 + 1 > 5
    assert legal(s) == ["pass", "retainer discard Giant Growth"]
    # ... and has it back at the start of the next turn
    d = blank(phase="battle")
    d["players"][1]["charisma_used"] = 5
    d["players"][1]["hand"] = {"Giant Growth": 1}
    d["players"][1]["front"] = [unit("Wolf Pack")]
    s = build(d)
    act(s, "end", "draw Mercenary")
    assert seat(s, 1)["charisma_used"] == 0
    assert "play Giant Growth on F1" in legal(s)


VANILLA = {"R": "Goblin Raider", "U": "Sky Scout", "G": "Wolf Pack", "K": "Skeleton Soldier"}


def condition_field(card) -> list[dict]:
    """Units that, with the Sky Sage (blue) avatar, meet `card`'s condition exactly:
    one vanilla unit per missing colour, Mercenaries (neutral) up to the number."""
    units = []
    for faction, n in zip("RUGK", card.condition.colours):
        units += [unit(VANILLA[faction])] * max(0, n - (faction == "U"))
    units += [unit("Mercenary")] * max(0, card.condition.total - 1 - len(units))
    return units


def card_is_usable(card, front: list[dict], charisma_used: int) -> bool:
    d = blank(avatars=("Sky Sage", "Beast King"))
    p0 = d["players"][0]
    p0["hand"], p0["front"], p0["charisma_used"] = {card.name: 1}, front, charisma_used
    d["players"][1]["front"] = [unit("Wolf Pack")]  # a target for every target kind
    kind = DEPLOY if card.is_unit else PLAY
    return any(decode(c)[:2] == (kind, card.id) for c in build(d).legal_actions())


@pytest.mark.parametrize("name", [c.name for c in CARDS.cards])
def test_every_card_needs_its_exact_condition_and_cost(name):
    card = CARDS.by_name(name)
    front = condition_field(card)
    if card.target == "own_unit" and not front:
        front = [unit("Mercenary")]  # something to target
    exact = len(front) + 1 == max(card.condition.total, 1)
    # Sky Sage has charisma 6: cost exactly up to it is allowed, one more is not.
    assert card_is_usable(card, front, 6 - card.cost)
    assert not card_is_usable(card, front, 7 - card.cost)
    # One coloured unit fewer (replaced by a neutral one): the condition fails.
    for index, u in enumerate(front):
        if u["card"] != "Mercenary":
            changed = front[:index] + [unit("Mercenary")] + front[index + 1 :]
            assert not card_is_usable(card, changed, 0)
    # One card fewer in all: the condition fails.
    if exact and front:
        assert not card_is_usable(card, front[:-1], 0)


def test_blitz_front_row_and_full_rows():
    d = blank()
    p0 = d["players"][0]
    p0["front"] = [unit("Goblin Raider")]
    p0["hand"] = {"Goblin Raider": 1, "Flame Lancer": 1, "Berserker": 1}
    assert starting_with(build(d), "deploy") == [
        "deploy Goblin Raider front",
        "deploy Goblin Raider back",
        "deploy Flame Lancer back",
        "deploy Berserker front",
        "deploy Berserker back",
    ]
    p0["front"] = [unit("Goblin Raider")] * 5
    assert starting_with(build(d), "deploy") == [
        "deploy Goblin Raider back",
        "deploy Flame Lancer back",
        "deploy Berserker back",
    ]
    p0["front"] = [unit("Goblin Raider")]
    p0["back"] = [unit("Skeleton Soldier")] * 5
    s = build(d)
    assert starting_with(s, "deploy") == ["deploy Goblin Raider front", "deploy Berserker front"]
    assert starting_with(s, "retainer") == []  # B3: no token into a full row
    act(s, "deploy Berserker front")
    d2 = s.to_dict()["players"][0]["front"][1]
    assert (d2["card"], d2["used"], d2["can_move"], d2["damage"]) == ("Berserker", False, False, 0)


# ---------------------------------------------------------------------------
# Fast and normal operations in every window (spec §3.1, D-28)


def windows_position():
    d = blank()
    p0, p1 = d["players"]
    p0["front"] = [unit("Goblin Raider"), unit("Flame Lancer")]
    p0["hand"] = {"Fireball": 1, "Scorching Strike": 1, "War Cry": 1, "Goblin Raider": 1}
    p1["front"] = [unit("Wolf Pack")]
    p1["hand"] = {"Giant Growth": 1, "Nature's Blessing": 1, "Wolf Pack": 1}
    return build(d)


def test_operations_by_window():
    s = windows_position()
    kinds = {m.split()[0] for m in legal(s)}
    assert kinds == {"end", "move", "deploy", "play", "retainer", "ability"}
    plays = starting_with(s, "play")
    assert "play Scorching Strike" in plays  # normal: action only
    assert "play Fireball on op.F1" in plays and "play War Cry on F1" in plays
    act(s, "end")  # window (b): N, fast
    assert s.current_player() == 1
    assert {m.split()[0] for m in legal(s)} == {"pass", "play", "retainer"}
    assert starting_with(s, "play Nature") == []
    assert "play Giant Growth on F1" in legal(s) and "play Giant Growth on op.F2" in legal(s)
    act(s, "pass")  # battle: A, fast
    assert s.current_player() == 0
    assert {m.split()[0] for m in legal(s)} == {"end", "play", "retainer", "attack"}
    assert starting_with(s, "play Scorching") == []
    assert "play Fireball on op.F1" in legal(s) and "play War Cry on F2" in legal(s)
    act(s, "attack F1 > avatar")  # window (a): N, fast
    assert s.current_player() == 1
    assert {m.split()[0] for m in legal(s)} == {"pass", "play", "retainer", "guard"}
    assert starting_with(s, "play Nature") == []
    act(
        s,
        "play Giant Growth on F1",
        "retainer discard Nature's Blessing",
        "retainer discard Wolf Pack",
    )  # any order and number
    assert row(s, 1, "back") == ["Retainer", "Retainer"]
    act(s, "guard F1")  # Wolf Pack 1500 + 2000 vs Goblin Raider 1000
    assert seat(s, 1)["front"][0]["power"] == 3500 and seat(s, 1)["front"][0]["damage"] == 1000
    assert row(s, 0, "front") == ["Flame Lancer"]  # the raider died


def test_ability_only_in_own_action_phase():
    d = blank(avatars=("Beast King", "Flame Warlord"))
    d["players"][1]["front"] = [unit("Goblin Raider")]
    d["players"][1]["hand"] = {"War Cry": 1}
    s = build(d)
    act(s, "end")
    assert starting_with(s, "ability") == []  # seat 1's Warlord in the window
    assert starting_with(s, "play") == ["play War Cry on F1"]


# ---------------------------------------------------------------------------
# Retainer (spec §5.5, D-27)


def test_retainer_discard_token_and_known_copy():
    d = blank(avatars=("Beast King", "Flame Warlord"))
    p0 = d["players"][0]
    p0["hand"] = {"Great Bear": 2, "Wolf Pack": 1}
    p0["known"] = {"Great Bear": 1}
    p0["charisma_used"] = 5
    s = build(d)
    assert starting_with(s, "retainer") == [
        "retainer discard Wolf Pack",
        "retainer discard Great Bear",
    ]
    act(s, "retainer discard Great Bear")
    p = seat(s, 0)
    assert (p["hand"], p["known"], p["graveyard"], p["charisma_used"]) == (
        {"Wolf Pack": 1, "Great Bear": 1},
        {},
        {"Great Bear": 1},
        5,
    )
    # Beast King's Retainer is a green Beast: 500 + 500
    assert p["back"] == [
        {
            "card": "Retainer",
            "token": True,
            "power": 1000,
            "attack": 0,
            "damage": 0,
            "used": False,
            "can_move": False,
            "pump_power": 0,
            "pump_attack": 0,
        }
    ]


def test_tokens_are_destroyed_at_end_of_turn_on_both_fields():
    d = blank(phase="battle")
    d["players"][0]["back"] = [unit("Retainer"), unit("Flame Lancer"), unit("Retainer")]
    d["players"][1]["back"] = [unit("Retainer", used=True)]
    d["players"][1]["front"] = [unit("Wolf Pack", damage=1000)]
    s = build(d)
    act(s, "end")
    assert row(s, 0, "back") == ["Flame Lancer"] and row(s, 1, "back") == []
    assert seat(s, 1)["front"][0]["damage"] == 0  # cleared first, not destroyed
    assert seat(s, 0)["graveyard"] == {} and seat(s, 1)["graveyard"] == {}


def test_retainer_in_every_window_and_tokens_can_attack_and_guard():
    d = blank(phase="battle", avatars=("Flame Warlord", "Beast King"))
    d["players"][0]["front"] = [unit("Goblin Raider")]
    d["players"][1]["hand"] = {"Wolf Pack": 1}
    s = build(d)
    act(s, "attack F1 > avatar", "retainer discard Wolf Pack", "guard B1")
    # Retainer (1000 with Beast King) vs Goblin Raider (1000): both destroyed
    assert row(s, 0, "front") == [] and row(s, 1, "back") == []
    assert seat(s, 0)["graveyard"] == {"Goblin Raider": 1}


# ---------------------------------------------------------------------------
# Attack declaration and legal targets (spec §6 step 1)


def test_attack_targets_front_back_ranged_and_used_only():
    d = blank(phase="battle")
    p0, p1 = d["players"]
    p0["front"] = [unit("Goblin Raider"), unit("Berserker", used=True)]
    p0["back"] = [unit("Cloud Archer"), unit("Flame Lancer")]
    p1["front"] = [unit("Wolf Pack", used=True), unit("Forest Guardian")]
    p1["back"] = [unit("Sky Scout", used=True), unit("Grave Knight", used=True)]
    s = build(d)
    assert starting_with(s, "attack") == [
        "attack F1 > op.F1",
        "attack F1 > op.B1",
        "attack F1 > op.B2",
        "attack F1 > avatar",
        "attack B1 > op.F1",
    ]
    act(s, "attack F1 > op.B1")
    d = s.to_dict()
    assert d["attack"] == {"attacker": "F1", "target": "B1"} and d["phase"] == "defend"
    assert d["players"][0]["front"][0]["used"] is True


def test_a_unit_deployed_this_turn_may_attack():
    d = blank()
    d["players"][0]["hand"] = {"Goblin Raider": 1, "Cloud Archer": 1}
    d["players"][0]["back"] = [unit("Sky Scout")]  # a blue card for the archer's (U)
    d["players"][1]["front"] = [unit("Wolf Pack", used=True)]
    s = build(d)
    act(s, "deploy Goblin Raider front", "end", "pass")
    assert "attack F1 > avatar" in legal(s)
    s = build(d)
    act(s, "deploy Cloud Archer back", "end", "pass")
    assert starting_with(s, "attack") == ["attack B2 > op.F1"]


# ---------------------------------------------------------------------------
# Guards (spec §6 step 2)


def guard_position(
    attacker: str,
    attacker_row: str,
    target: tuple[str, str] | None,
    defenders: dict[str, list[dict]],
):
    """Seat 0 (Flame Warlord) attacks with its only unit; seat 1 (Beast King) has
    `defenders`; target (row, name) is put first in that row, used."""
    d = blank(phase="battle")
    d["players"][0][attacker_row] = [unit(attacker)]
    p1 = d["players"][1]
    p1["front"], p1["back"] = list(defenders.get("front", [])), list(defenders.get("back", []))
    if target is not None:
        p1[target[0]].insert(0, unit(target[1], used=True))
    return build(d)


def test_guard_back_row_cannot_cover_a_front_row_target():
    s = guard_position(
        "Goblin Raider",
        "front",
        ("front", "Wolf Pack"),
        {"front": [unit("Forest Guardian")], "back": [unit("Great Bear")]},
    )
    act(s, "attack F1 > op.F1")
    assert starting_with(s, "guard") == ["guard F2"]
    # an attack on a back-row unit: both rows may guard
    s = guard_position(
        "Goblin Raider",
        "front",
        ("back", "Wolf Pack"),
        {"front": [unit("Forest Guardian")], "back": [unit("Great Bear")]},
    )
    act(s, "attack F1 > op.B1")
    assert starting_with(s, "guard") == ["guard F1", "guard B2"]


def test_guard_against_flying_needs_flying_or_ranged():
    s = guard_position(
        "Fire Drake",
        "front",
        None,
        {
            "front": [unit("Forest Guardian")],
            "back": [unit("Sky Scout"), unit("Cloud Archer"), unit("Wolf Pack")],
        },
    )
    act(s, "attack F1 > avatar")
    assert starting_with(s, "guard") == ["guard B1", "guard B2"]
    s = guard_position(
        "Goblin Raider",
        "front",
        None,
        {
            "front": [unit("Forest Guardian")],
            "back": [unit("Sky Scout"), unit("Cloud Archer", used=True)],
        },
    )
    act(s, "attack F1 > avatar")
    assert starting_with(s, "guard") == ["guard F1", "guard B1"]  # used units cannot guard


def test_guard_against_ranged_from_the_front_on_a_back_unit():
    s = guard_position(
        "Cloud Archer",
        "front",
        ("back", "Sky Scout"),
        {"front": [unit("Forest Guardian")], "back": [unit("Wolf Pack")]},
    )
    act(s, "attack F1 > op.B1")
    assert starting_with(s, "guard") == ["guard B2"]
    # a RANGED attacker in the back row on a front unit: only the front row guards
    s = guard_position(
        "Elven Ranger",
        "back",
        ("front", "Sky Scout"),
        {"front": [unit("Forest Guardian")], "back": [unit("Wolf Pack")]},
    )
    act(s, "attack B1 > op.F1")
    assert starting_with(s, "guard") == ["guard F2"]


def test_guard_is_not_the_target_and_becomes_used():
    d = blank(phase="battle", avatars=("Flame Warlord", "Sky Sage"))
    d["players"][0]["front"] = [unit("Goblin Raider")]
    d["players"][1]["front"] = [unit("Cloud Archer", used=True), unit("Leviathan")]
    d["players"][1]["hand"] = {"Wind Ward": 1}
    s = build(d)
    act(s, "attack F1 > op.F1", "play Wind Ward on F1")  # the target is standby again
    assert seat(s, 1)["front"][0]["used"] is False
    assert starting_with(s, "guard") == ["guard F2"]
    act(s, "guard F2")
    assert seat(s, 1)["front"][1]["used"] is True and seat(s, 1)["front"][1]["damage"] == 1000
    assert row(s, 0, "front") == []  # Leviathan 6000 destroyed it


def test_attack_ends_without_battle_when_the_attacker_leaves():
    d = blank(phase="battle", avatars=("Beast King", "Flame Warlord"))
    d["players"][0]["front"] = [unit("Wolf Pack")]
    d["players"][1]["front"] = [unit("Goblin Raider")]
    d["players"][1]["hand"] = {"Fireball": 1, "Skeleton Soldier": 1}
    s = build(d)
    act(s, "attack F1 > avatar", "play Fireball on op.F1")
    assert s.to_dict()["attack"] == {"attacker": None, "target": "avatar"}
    assert starting_with(s, "guard") == []
    assert legal(s) == ["pass", "retainer discard Skeleton Soldier"]
    act(s, "pass")
    assert seat(s, 1)["hp"] == 20 and s.to_dict()["phase"] == "battle"
    assert s.to_dict()["attack"] is None


def test_attack_ends_without_battle_when_the_target_leaves():
    # The refs example of spec §6.
    d = blank(phase="battle", avatars=("Flame Warlord", "Beast King"))
    d["players"][0]["front"] = [unit("Berserker")]
    p1 = d["players"][1]
    p1["back"] = [unit("Wolf Pack"), unit("Cloud Archer", used=True), unit("Sky Scout", used=True)]
    p1["hand"] = {"Tidal Return": 1, "Insight": 1}
    s = build(d)
    act(s, "attack F1 > op.B3")
    assert s.to_dict()["attack"] == {"attacker": "F1", "target": "B3"}
    act(s, "play Tidal Return on B1")
    assert row(s, 1, "back") == ["Cloud Archer", "Sky Scout"]
    assert s.to_dict()["attack"] == {"attacker": "F1", "target": "B2"}
    assert seat(s, 1)["known"] == {"Wolf Pack": 1} and seat(s, 1)["hand"] == {
        "Insight": 1,
        "Wolf Pack": 1,
    }
    act(s, "retainer discard Insight")
    assert row(s, 1, "back") == ["Cloud Archer", "Sky Scout", "Retainer"]
    act(s, "guard B3")
    assert row(s, 1, "back") == ["Cloud Archer", "Sky Scout"]
    assert seat(s, 0)["front"][0]["damage"] == 1000 and s.to_dict()["attack"] is None
    # Now the target itself leaves: no battle, the attacker stays used and undamaged.
    d["players"][1]["hand"] = {"Tidal Return": 1}
    s = build(d)
    act(s, "attack F1 > op.B3", "play Tidal Return on B3")
    assert s.to_dict()["attack"] == {"attacker": "F1", "target": None}
    assert starting_with(s, "guard") == []
    act(s, "pass")
    b = seat(s, 0)["front"][0]
    assert (b["used"], b["damage"]) == (True, 0) and s.to_dict()["phase"] == "battle"


def test_tap_untap_and_pumps_do_not_cancel_an_attack():
    d = blank(phase="battle", avatars=("Flame Warlord", "Night Queen"))
    d["players"][0]["front"] = [unit("Goblin Raider")]
    d["players"][1]["front"] = [unit("Skeleton Soldier"), unit("Skeleton Soldier")]
    d["players"][1]["hand"] = {"Night Ambush": 1}
    s = build(d)
    act(s, "attack F1 > avatar", "play Night Ambush on op.F1")  # tap the used attacker
    act(s, "pass")
    assert seat(s, 1)["hp"] == 17


# ---------------------------------------------------------------------------
# Battle (spec §6 step 3)


def battle(
    attacker: str, target: str, avatars=("Flame Warlord", "Beast King"), guard: str | None = None
):
    d = blank(phase="battle", avatars=avatars)
    d["players"][0]["front"] = [unit(attacker)]
    d["players"][1]["front"] = [unit(target, used=True)]
    if guard:
        d["players"][1]["front"].append(unit(guard))
    s = build(d)
    act(s, "attack F1 > op.F1", "guard F2" if guard else "pass")
    return s


def test_simultaneous_battle():
    s = battle("Berserker", "Great Bear")
    assert row(s, 0, "front") == [] and seat(s, 0)["graveyard"] == {"Berserker": 1}
    bear = seat(s, 1)["front"][0]
    assert (bear["power"], bear["damage"]) == (3500, 3000)
    s = battle("Goblin Raider", "Skeleton Soldier", avatars=("Flame Warlord", "Night Queen"))
    assert row(s, 0, "front") == [] and row(s, 1, "front") == []


def test_first_strike_examples():
    s = battle("Flame Lancer", "Wolf Pack")  # 2000 first: the pack dies, no reply
    assert row(s, 1, "front") == [] and seat(s, 0)["front"][0]["damage"] == 0
    s = battle("Flame Lancer", "Great Bear")  # bear survives 2000, replies 3500
    assert row(s, 0, "front") == [] and seat(s, 1)["front"][0]["damage"] == 2000
    s = battle("Flame Lancer", "Ancient Wyrm")  # both have it: together
    assert row(s, 0, "front") == [] and seat(s, 1)["front"][0]["damage"] == 2000
    # a FIRST_STRIKE guard strikes first too
    s = battle(
        "Wolf Pack",
        "Skeleton Soldier",
        avatars=("Beast King", "Flame Warlord"),
        guard="Flame Lancer",
    )
    assert row(s, 0, "front") == [] and seat(s, 1)["front"][1]["damage"] == 0


def test_damage_accumulates_within_a_turn_then_clears():
    d = blank(phase="battle")
    d["players"][0]["front"] = [unit("Berserker"), unit("Goblin Raider")]
    d["players"][1]["front"] = [unit("Great Bear"), unit("Forest Guardian", used=True)]
    s = build(d)
    act(s, "attack F1 > avatar", "guard F1")  # bear 3500 takes 3000, now used
    assert row(s, 0, "front") == ["Goblin Raider"]
    bear = seat(s, 1)["front"][0]
    assert (bear["damage"], bear["used"]) == (3000, True)
    act(s, "attack F1 > op.F2", "pass")  # guardian 2500 takes 1000
    act(s, "end")
    assert [u["damage"] for u in seat(s, 1)["front"]] == [0, 0]
    d = blank(phase="battle")
    d["players"][0]["front"] = [unit("Berserker"), unit("Goblin Raider")]
    d["players"][1]["front"] = [unit("Great Bear")]
    s = build(d)
    act(s, "attack F1 > avatar", "guard F1", "attack F1 > op.F1", "pass")
    assert row(s, 1, "front") == [] and row(s, 0, "front") == []  # 3000 + 1000 >= 3500


def test_attack_on_the_avatar_and_zero_attack():
    d = blank(phase="battle", avatars=("Beast King", "Flame Warlord"))
    d["players"][0]["front"] = [unit("Forest Guardian"), unit("Great Bear")]
    s = build(d)
    act(s, "attack F1 > avatar", "pass")  # E-15: 0 damage, but a window
    assert seat(s, 1)["hp"] == 20
    act(s, "attack F2 > avatar", "pass")
    assert seat(s, 1)["hp"] == 18


def test_hp_is_not_clamped_and_zero_hp_loses():
    d = blank(phase="battle")
    d["players"][0]["front"] = [unit("Fire Drake")]
    d["players"][1]["hp"] = 1
    s = build(d)
    act(s, "attack F1 > avatar", "pass")
    d = s.to_dict()
    assert (d["phase"], d["current"], d["result"], d["players"][1]["hp"]) == (
        "over",
        None,
        [1, -1],
        -2,
    )
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.returns() == [1.0, -1.0] and s.legal_actions() == [] and s.chance_outcomes() == []


# ---------------------------------------------------------------------------
# Effects (spec §7.1) and PROTECTION (spec §5.2)


def effects_position(hand: dict, avatars=("Flame Warlord", "Beast King"), **mine) -> dict:
    d = blank(avatars=avatars)
    p0, p1 = d["players"]
    p0["hand"] = hand
    p0["front"] = mine.get("front", [unit("Goblin Raider"), unit("Grave Knight")])
    p0["back"] = mine.get("back", [unit("Skeleton Soldier"), unit("Skeleton Soldier")])
    p1["front"] = [unit("Wolf Pack"), unit("Great Bear"), unit("Grave Knight")]
    p1["back"] = [unit("Forest Guardian")]
    return d


def test_damage_unit_fireball_and_protection():
    s = build(effects_position({"Fireball": 2}))
    # neither Grave Knight (PROTECTION) is a legal target, whoever owns it
    assert starting_with(s, "play") == [
        "play Fireball on F1",
        "play Fireball on B1",
        "play Fireball on B2",
        "play Fireball on op.F1",
        "play Fireball on op.F2",
        "play Fireball on op.B1",
    ]
    act(s, "play Fireball on op.F1")  # Wolf Pack 1500: destroyed
    assert row(s, 1, "front") == ["Great Bear", "Grave Knight"]
    assert seat(s, 1)["graveyard"] == {"Wolf Pack": 1}
    assert seat(s, 0)["graveyard"] == {"Fireball": 1} and seat(s, 0)["charisma_used"] == 2
    act(s, "play Fireball on op.F1")  # Great Bear 3500 survives 2000
    assert seat(s, 1)["front"][0]["damage"] == 2000


def test_destroy_unit_reads_current_power():
    d = effects_position(
        {"Death Curse": 1},
        avatars=("Night Queen", "Beast King"),
        front=[unit("Vampire Lord"), unit("Shadow Assassin")],
    )
    s = build(d)
    # power <= 3000: not the Bear (3500 with Beast King), not Vampire Lord (4000),
    # not a Grave Knight; the Assassin, Skeletons, Wolf Pack (1500), Guardian (2500) are
    assert starting_with(s, "play") == [
        "play Death Curse on F2",
        "play Death Curse on B1",
        "play Death Curse on B2",
        "play Death Curse on op.F1",
        "play Death Curse on op.B1",
    ]
    act(s, "play Death Curse on op.B1")
    assert row(s, 1, "back") == [] and seat(s, 1)["graveyard"] == {"Forest Guardian": 1}


def test_destroy_unit_rechecks_power_when_it_resolves(custom):
    cards, game = custom
    g = game("Blood Witch", "Penitent")
    d = blank(avatars=("Blood Witch", "Penitent"), cards=cards)
    d["players"][0]["hand"] = {"Reckless Curse": 1}
    d["players"][1]["front"] = [unit("Squire")]
    s = build(d, g)
    act(s, "play Reckless Curse on op.F1")  # pumped to 3000 first: still <= 3000
    assert row(s, 1, "front") == []
    d["players"][1]["front"] = [unit("Squire", pump_power=500)]
    s = build(d, g)
    act(s, "play Reckless Curse on op.F1")  # 1500 + 2000 > 3000: survives
    assert seat(s, 1)["front"][0]["power"] == 3500


def test_targeted_effects_skip_a_gone_target(custom):
    cards, game = custom
    g = game("Blood Witch", "Blood Witch")
    d = blank(avatars=("Blood Witch", "Blood Witch"), cards=cards)
    d["players"][0]["hand"] = {"Blast": 1, "Recall": 1}
    d["players"][1]["front"] = [unit("Squire"), unit("Squire")]
    s = build(d, g)
    act(s, "play Blast on op.F1")  # 5000 damage; the pump is skipped
    assert row(s, 1, "front") == ["Squire"] and seat(s, 1)["front"][0]["pump_power"] == 0
    assert seat(s, 0)["hp"] == 10 and seat(s, 1)["hp"] == 9  # the Blood Witch's trigger
    act(s, "play Recall on op.F1")  # bounce, then draw(1) with t GONE
    d2 = s.to_dict()
    assert d2["pending"] == {
        "kind": "draw",
        "source": "Recall",
        "ability": False,
        "player": 0,
        "effect": 1,
        "draws_left": 1,
        "target": None,
    }
    assert row(s, 1, "front") == [] and seat(s, 1)["known"] == {"Squire": 1}


def test_a_suspended_effect_list_keeps_its_target(custom):
    cards, game = custom
    g = game("Seer", "Seer")
    d = blank(avatars=("Seer", "Seer"), cards=cards, phase="battle")
    d["players"][0]["front"] = [unit("Squire"), unit("Wolf")]
    d["players"][0]["hand"] = {"Study": 1}
    s = build(d, g)
    act(s, "play Study on F2")
    d = s.to_dict()
    assert d["pending"] == {
        "kind": "draw",
        "source": "Study",
        "ability": False,
        "player": 0,
        "effect": 1,
        "draws_left": 1,
        "target": {"seat": 0, "slot": "F2"},
    }
    assert (d["phase"], d["current"]) == ("battle", "chance")
    assert g.state_from_dict(d).to_dict() == d
    act(s, "draw Squire")
    wolf = seat(s, 0)["front"][1]
    assert (wolf["pump_power"], wolf["pump_attack"]) == (500, 1)
    assert s.current_player() == 0 and s.to_dict()["phase"] == "battle"


def test_blood_witch_damages_the_owner_of_a_destroyed_unit(custom):
    cards, game = custom
    d = blank(avatars=("Blood Witch", "Seer"), cards=cards)
    d["players"][1]["hand"] = {"Blast": 1}
    d["players"][0]["front"] = [unit("Squire")]
    s = build(d, game("Blood Witch", "Seer"))
    act(s, "end", "play Blast on op.F1")
    # seat 0's unit died: Seer's avatar has no such ability; Blood Witch's triggers only
    # for enemy units
    assert (seat(s, 0)["hp"], seat(s, 1)["hp"]) == (10, 10)
    d["players"][0]["front"], d["players"][1]["front"] = [], [unit("Squire")]
    d["players"][0]["hand"], d["players"][1]["hand"] = {"Blast": 1}, {}
    s = build(d, game("Blood Witch", "Seer"))
    act(s, "play Blast on op.F1")
    assert (seat(s, 0)["hp"], seat(s, 1)["hp"]) == (10, 9)


def test_lose_hp_and_heal_in_an_on_enemy_destroyed_ability(custom):
    cards, game = custom
    d = blank(avatars=("Penitent", "Seer"), cards=cards)
    d["players"][0]["hp"] = 5
    d["players"][0]["hand"] = {"Blast": 1}
    d["players"][1]["front"] = [unit("Squire")]
    s = build(d, game("Penitent", "Seer"))
    act(s, "play Blast on op.F1")
    assert seat(s, 0)["hp"] == 7  # 5 - 1 + 3


def test_damage_avatar_heal_and_lose_hp():
    d = effects_position({"Scorching Strike": 1})
    s = build(d)
    act(s, "play Scorching Strike")
    assert seat(s, 1)["hp"] == 20 and seat(s, 0)["hp"] == 20
    d = blank(avatars=("Beast King", "Flame Warlord"))
    d["players"][0]["hp"] = 20
    d["players"][0]["front"] = [unit("Wolf Pack")]
    d["players"][0]["hand"] = {"Nature's Blessing": 2}
    s = build(d)
    act(s, "play Nature's Blessing")
    assert seat(s, 0)["hp"] == 22  # capped at the starting HP
    d = blank(avatars=("Night Queen", "Beast King"))
    d["players"][0]["hand"] = {"Dark Pact": 1}
    s = build(d)
    act(s, "play Dark Pact")
    assert s.to_dict()["pending"] == {
        "kind": "draw",
        "source": "Dark Pact",
        "ability": False,
        "player": 0,
        "effect": 0,
        "draws_left": 2,
        "target": None,
    }
    assert s.to_dict()["phase"] == "action" and s.to_dict()["current"] == "chance"
    act(s, "draw Mercenary")
    assert s.to_dict()["pending"]["draws_left"] == 1
    act(s, "draw Mercenary")
    d = s.to_dict()
    assert d["pending"] is None and d["current"] == 0 and d["players"][0]["hp"] == 16
    assert d["players"][0]["hand"] == {"Mercenary": 2}


def test_insight_draws_two_as_separate_chance_nodes():
    d = blank(avatars=("Sky Sage", "Beast King"))
    d["players"][0]["hand"] = {"Insight": 1}
    d["players"][0]["deck"] = {"Sky Scout": 1, "Cloud Archer": 3}
    s = build(d)
    act(s, "play Insight")
    assert s.chance_outcomes() == [
        (encode(DRAW, cid("Sky Scout")), 0.25),
        (encode(DRAW, cid("Cloud Archer")), 0.75),
    ]
    act(s, "draw Sky Scout")
    assert s.chance_outcomes() == [(encode(DRAW, cid("Cloud Archer")), 1.0)]
    act(s, "draw Cloud Archer")
    assert seat(s, 0)["hand"] == {"Sky Scout": 1, "Cloud Archer": 1}
    assert s.current_player() == 0


def test_draw_zero_is_no_node(custom):
    cards, game = custom
    d = blank(avatars=("Seer", "Seer"), cards=cards)
    d["players"][0]["hand"] = {"Ponder": 1}
    d["players"][0]["hp"] = 5
    s = build(d, game("Seer", "Seer"))
    act(s, "play Ponder")
    assert s.current_player() == 0 and seat(s, 0)["hp"] == 6


def test_pump_war_cry_giant_growth_until_end_of_turn():
    d = blank(phase="battle")
    d["players"][0]["front"] = [unit("Goblin Raider")]
    d["players"][0]["back"] = [unit("Flame Lancer")]
    d["players"][0]["hand"] = {"War Cry": 1}
    d["players"][1]["hand"] = {"Giant Growth": 1}
    d["players"][1]["front"] = [unit("Wolf Pack")]
    s = build(d)
    assert starting_with(s, "play") == ["play War Cry on F1", "play War Cry on B1"]  # own_unit
    act(s, "play War Cry on F1")
    raider = seat(s, 0)["front"][0]
    assert (raider["power"], raider["attack"], raider["pump_power"], raider["pump_attack"]) == (
        2000,
        2,
        1000,
        1,
    )
    act(s, "attack F1 > avatar", "play Giant Growth on op.F1", "pass")  # any unit
    assert seat(s, 1)["hp"] == 20  # attack 2
    assert seat(s, 0)["front"][0]["power"] == 4000
    act(s, "end")
    assert seat(s, 0)["front"][0]["power"] == 1000 and seat(s, 0)["front"][0]["attack"] == 1


def test_tap_untap_and_repeat_attacks():
    d = blank(phase="battle", avatars=("Sky Sage", "Night Queen"))
    d["players"][0]["front"] = [unit("Sky Scout")]
    d["players"][0]["back"] = [unit("Cloud Archer")]
    d["players"][0]["hand"] = {"Wind Ward": 2}
    d["players"][1]["front"] = [unit("Skeleton Soldier"), unit("Grave Knight")]
    d["players"][1]["hand"] = {"Night Ambush": 1}
    d["players"][1]["back"] = [unit("Skeleton Soldier")]
    s = build(d)
    act(s, "attack F1 > avatar")
    assert starting_with(s, "play Night") == [
        "play Night Ambush on op.F1",
        "play Night Ambush on op.B1",
    ]  # enemy_unit
    act(s, "play Night Ambush on op.B1", "pass")  # tapping the standby archer
    assert seat(s, 0)["back"][0]["used"] is True and seat(s, 1)["hp"] == 17
    # Wind Ward: untap and +500; legal on an already standby unit too (E-25)
    assert starting_with(s, "play") == ["play Wind Ward on F1", "play Wind Ward on B1"]
    act(s, "play Wind Ward on F1")
    assert seat(s, 0)["front"][0]["used"] is False and seat(s, 0)["front"][0]["power"] == 1500
    act(s, "attack F1 > avatar", "pass")
    assert seat(s, 1)["hp"] == 16


def test_bounce_known_in_hand_and_tokens_cease():
    d = blank(avatars=("Sky Sage", "Flame Warlord"))
    d["players"][0]["hand"] = {"Tidal Return": 3}
    d["players"][0]["front"] = [unit("Cloud Archer")]
    d["players"][1]["front"] = [unit("Berserker", damage=1000, pump_power=500), unit("Retainer")]
    d["players"][1]["back"] = [unit("Skeleton Soldier")]
    d["players"][1]["hand"] = {"Berserker": 1, "Fireball": 1}
    s = build(d)
    act(s, "play Tidal Return on op.F1")
    p1 = seat(s, 1)
    assert p1["hand"] == {"Berserker": 2, "Fireball": 1} and p1["known"] == {"Berserker": 1}
    assert row(s, 1, "front") == ["Retainer"] and p1["graveyard"] == {}
    if on_oracle():  # the view as a dict is the oracle's API (C: a key)
        view = s.information_view(0)
        assert view["players"][1]["hand"] is None
        assert view["players"][1]["known"] == {"Berserker": 1}
    act(s, "play Tidal Return on op.F1")  # a token ceases to exist
    assert row(s, 1, "front") == [] and seat(s, 1)["hand_size"] == 3
    # using a known card forgets one copy (spec §11.1)
    act(s, "end", "pass", "end", "draw Mercenary", "deploy Berserker back")
    assert seat(s, 1)["known"] == {}
    assert seat(s, 1)["hand"] == {"Berserker": 1, "Fireball": 1, "Mercenary": 1}


def test_hero_s_crown_counts_eight_non_token_units():
    d = blank(avatars=("Beast King", "Flame Warlord"))
    p0 = d["players"][0]
    p0["hand"] = {"Hero's Crown": 2}
    p0["front"] = [unit("Wolf Pack")] * 5
    p0["back"] = [unit("Wolf Pack")] * 2 + [unit("Retainer")]
    s = build(d)
    act(s, "play Hero's Crown")  # 7 units and a token: no effect
    assert not s.is_terminal() and seat(s, 0)["graveyard"] == {"Hero's Crown": 1}
    assert seat(s, 0)["charisma_used"] == 4
    p0["back"] = [unit("Wolf Pack")] * 3
    s = build(d)
    act(s, "play Hero's Crown")
    assert s.to_dict()["result"] == [1, -1] and s.to_dict()["phase"] == "over"
    # seat 1 wins the same way in its own turn
    d2 = blank(avatars=("Beast King", "Flame Warlord"), active=1)
    d2["players"][1]["hand"] = {"Hero's Crown": 1}
    d2["players"][1]["front"] = [unit("Goblin Raider")] * 5
    d2["players"][1]["back"] = [unit("Mercenary")] * 3
    s = build(d2)
    act(s, "play Hero's Crown")
    assert s.returns() == [-1.0, 1.0]


def test_small_crown_and_race_bonus_attack(custom):
    cards, game = custom
    g = game("Beastmaster", "Seer")
    d = blank(avatars=("Beastmaster", "Seer"), cards=cards, phase="battle")
    d["players"][0]["front"] = [unit("Wolf"), unit("Squire")]
    s = build(d, g)
    wolf, squire = seat(s, 0)["front"]
    assert (wolf["power"], wolf["attack"], squire["power"], squire["attack"]) == (2000, 3, 1000, 1)
    act(s, "attack F1 > avatar", "pass")
    assert seat(s, 1)["hp"] == 7
    d = blank(avatars=("Beastmaster", "Seer"), cards=cards)
    d["players"][0]["front"] = [unit("Wolf")]
    d["players"][0]["back"] = [unit("Retainer")]
    d["players"][0]["hand"] = {"Small Crown": 1}
    s = build(d, g)
    assert seat(s, 0)["back"][0]["power"] == 500  # the Beastmaster is Human
    act(s, "play Small Crown")
    assert not s.is_terminal()  # one unit and a token
    d["players"][0]["back"] = [unit("Squire")]
    s = build(d, g)
    act(s, "play Small Crown")
    assert s.to_dict()["result"] == [1, -1]


# ---------------------------------------------------------------------------
# on_deploy (spec §5.6, E-6)


def test_shadow_assassin_chooses_its_target():
    d = blank(avatars=("Night Queen", "Beast King"))
    d["players"][0]["front"] = [unit("Skeleton Soldier")]
    d["players"][0]["hand"] = {"Shadow Assassin": 1}
    d["players"][1]["front"] = [unit("Grave Knight"), unit("Wolf Pack")]
    d["players"][1]["back"] = [unit("Great Bear")]
    s = build(d)
    act(s, "deploy Shadow Assassin back")
    d2 = s.to_dict()
    assert d2["pending"] == {"kind": "target", "source": "Shadow Assassin", "player": 0}
    assert d2["current"] == 0 and d2["phase"] == "action"
    assert legal(s) == ["target op.F2", "target op.B1"]  # enemy units without PROTECTION
    act(s, "target op.F2")
    assert s.to_dict()["pending"] is None and seat(s, 1)["front"][1]["damage"] == 1000
    assert seat(s, 0)["hp"] == 18  # the pack survived (1500)
    d["players"][1]["front"] = [unit("Grave Knight"), unit("Sky Scout")]
    s = build(d)
    act(s, "deploy Shadow Assassin back", "target op.F2")
    assert row(s, 1, "front") == ["Grave Knight"]


def test_on_deploy_without_legal_target_is_skipped():
    d = blank(avatars=("Night Queen", "Beast King"))
    d["players"][0]["front"] = [unit("Skeleton Soldier")]
    d["players"][0]["hand"] = {"Shadow Assassin": 1}
    d["players"][1]["front"] = [unit("Grave Knight")]
    s = build(d)
    act(s, "deploy Shadow Assassin back")
    assert s.to_dict()["pending"] is None and s.current_player() == 0
    assert "end" in legal(s)


def test_storm_mage_draws_on_deploy():
    d = blank(avatars=("Sky Sage", "Beast King"))
    d["players"][0]["front"] = [unit("Sky Scout")]
    d["players"][0]["hand"] = {"Storm Mage": 1}
    s = build(d)
    act(s, "deploy Storm Mage back")
    assert s.to_dict()["pending"] == {
        "kind": "draw",
        "source": "Storm Mage",
        "ability": False,
        "player": 0,
        "effect": 0,
        "draws_left": 1,
        "target": None,
    }
    act(s, "draw Mercenary")
    assert s.current_player() == 0 and seat(s, 0)["hand"] == {"Mercenary": 1}


def test_the_entering_unit_may_be_its_own_target(custom):
    cards, game = custom
    d = blank(avatars=("Seer", "Seer"), cards=cards)
    d["players"][0]["hand"] = {"Herald": 1}
    s = build(d, game("Seer", "Seer"))
    act(s, "deploy Herald back")
    assert legal(s) == ["target B1"]
    act(s, "target B1")
    assert seat(s, 0)["back"][0]["power"] == 1500


def test_activated_ability_with_a_draw(custom):
    cards, game = custom
    d = blank(avatars=("Seer", "Seer"), cards=cards)
    d["players"][0]["hp"] = 5
    s = build(d, game("Seer", "Seer"))
    assert starting_with(s, "ability") == ["ability"]
    act(s, "ability")
    assert s.to_dict()["pending"] == {
        "kind": "draw",
        "source": "Seer",
        "ability": True,
        "player": 0,
        "effect": 0,
        "draws_left": 1,
        "target": None,
    }
    act(s, "draw Squire")
    assert seat(s, 0)["hp"] == 7 and seat(s, 0)["ability_used"] is True
    assert starting_with(s, "ability") == []


# ---------------------------------------------------------------------------
# Avatars (spec §1.3)


def test_flame_warlord_ability():
    d = blank()
    d["players"][0]["front"] = [unit("Goblin Raider"), unit("Grave Knight")]
    d["players"][0]["back"] = [unit("Retainer")]
    d["players"][1]["front"] = [unit("Wolf Pack")]
    s = build(d)
    assert starting_with(s, "ability") == ["ability on F1", "ability on B1"]  # own, no PROTECTION
    act(s, "ability on F1")
    raider = seat(s, 0)["front"][0]
    assert (raider["power"], raider["pump_power"]) == (1500, 500)
    assert seat(s, 0)["ability_used"] and seat(s, 0)["charisma_used"] == 0
    assert starting_with(s, "ability") == []
    act(s, "end", "pass")
    assert starting_with(s, "ability") == []  # not in the Battle phase
    act(s, "end")
    assert seat(s, 0)["front"][0]["power"] == 1000 and not seat(s, 0)["ability_used"]
    act(s, "draw Mercenary", "end", "pass", "end", "draw Mercenary")
    # the Retainer died at the end of turn 3; the ability is usable again in turn 5
    assert starting_with(s, "ability") == ["ability on F1"]


def test_night_queen_heals_per_destroyed_enemy_unit_capped():
    # The example of spec §7: tokens destroyed at the end of seat 0's turn.
    d = blank(phase="battle", avatars=("Flame Warlord", "Night Queen"))
    d["players"][0]["back"] = [unit("Retainer"), unit("Retainer")]
    d["players"][1]["back"] = [unit("Retainer")]
    d["players"][1]["hp"] = 17
    s = build(d)
    act(s, "end")
    assert seat(s, 1)["hp"] == 18
    # in battle, and by an effect; not for its own units, not for bounced ones
    d = blank(phase="battle", avatars=("Flame Warlord", "Night Queen"))
    d["players"][0]["front"] = [unit("Goblin Raider"), unit("Goblin Raider")]
    d["players"][1]["front"] = [unit("Skeleton Soldier"), unit("Vampire Lord")]
    d["players"][1]["hp"] = 10
    s = build(d)
    act(s, "attack F1 > avatar", "guard F1")  # both die: +1 for the raider
    assert seat(s, 1)["hp"] == 10 - 0 + 1
    act(s, "attack F1 > avatar", "guard F1")  # the lord kills the raider
    assert seat(s, 1)["hp"] == 12
    d = blank(avatars=("Sky Sage", "Night Queen"))
    d["players"][0]["front"] = [unit("Sky Scout"), unit("Cloud Archer")]
    d["players"][0]["hand"] = {"Tidal Return": 1}
    d["players"][1]["hp"] = 10
    s = build(d)
    act(s, "play Tidal Return on F1")
    assert seat(s, 1)["hp"] == 10


def test_beast_king_race_bonus():
    d = blank(avatars=("Beast King", "Flame Warlord"))
    d["players"][0]["front"] = [unit("Wolf Pack"), unit("Great Bear"), unit("Forest Guardian")]
    d["players"][0]["back"] = [unit("Elven Ranger"), unit("Retainer"), unit("Sky Scout")]
    d["players"][1]["front"] = [unit("Wolf Pack")]  # not the Beast King's
    s = build(d)
    powers = [u["power"] for u in seat(s, 0)["front"] + seat(s, 0)["back"]]
    assert powers == [1500, 3500, 2500, 2500, 1000, 1000]
    assert seat(s, 1)["front"][0]["power"] == 1000
    assert seat(s, 0)["front"][0]["attack"] == 1  # power only


# ---------------------------------------------------------------------------
# End of the game (spec §7.3, D-29, E-16)


def test_deck_out_in_the_middle_of_an_effect():
    d = blank(avatars=("Night Queen", "Beast King"))
    d["players"][0]["hand"] = {"Dark Pact": 1}
    d["players"][0]["deck"] = {"Mercenary": 1}
    s = build(d)
    act(s, "play Dark Pact")
    assert s.chance_outcomes() == [(encode(DRAW, cid("Mercenary")), 1.0)]
    act(s, "draw Mercenary")
    d = s.to_dict()
    assert (d["phase"], d["result"], d["pending"], d["current"]) == ("over", [-1, 1], None, None)
    assert d["players"][0]["hp"] == 18  # lose_hp(2) never happened


def test_deck_out_at_the_draw_phase():
    d = blank(phase="battle")
    d["players"][1]["deck"] = {"Wolf Pack": 1}
    s = build(d)
    act(s, "end", "draw Wolf Pack")
    assert s.to_dict()["result"] == [1, -1]


def test_simultaneous_loss_is_a_draw(custom):
    cards, game = custom
    d = blank(avatars=("Blood Witch", "Blood Witch"), cards=cards, phase="battle")
    d["players"][0]["hp"] = d["players"][1]["hp"] = 1
    d["players"][0]["front"] = [unit("Squire")]
    d["players"][1]["front"] = [unit("Squire", used=True)]
    s = build(d, game())
    act(s, "attack F1 > op.F1", "pass")
    d = s.to_dict()
    assert (d["result"], d["players"][0]["hp"], d["players"][1]["hp"]) == ([0, 0], 0, 0)
    assert s.returns() == [0.0, 0.0] and s.is_terminal()


# ---------------------------------------------------------------------------
# Protocol: apply, undo, clone, from_dict, perft


def random_states(seeds: range, every: int = 1, game: Backend = GAME):
    """Yields (state, rng) at every `every`-th node of seeded random games."""
    for seed in seeds:
        rng = random.Random(seed)
        s = game.new_initial_state()
        step = 0
        while not s.is_terminal():
            if step % every == 0:
                yield s, rng
            if s.is_chance():
                outcomes = s.chance_outcomes()
                code = rng.choices([c for c, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                code = rng.choice(s.legal_actions())
            s.apply(code)
            step += 1
        yield s, rng


def test_illegal_apply_leaves_the_state_unchanged():
    s = build(blank())
    before = s.to_dict()
    for bad in (encode(PASS), encode(DEPLOY, cid("Berserker"), 1), 65535, -1):
        with pytest.raises(ValueError):
            s.apply(bad)
        assert s.to_dict() == before
    with pytest.raises(IndexError):
        s.undo()


def test_undo_clone_and_from_dict_over_random_games():
    nodes = 0
    for s, rng in random_states(range(12), every=3):
        d = s.to_dict()
        assert GAME.state_from_dict(d).to_dict() == d
        assert s.legal_actions() == sorted(set(s.legal_actions()))
        if s.is_terminal():
            continue
        copy = s.clone()
        code = rng.choice(s.legal_actions())
        s.apply(code)
        assert copy.to_dict() == d  # the clone is independent
        s.undo()
        assert s.to_dict() == d and s.legal_actions() == copy.legal_actions()
        nodes += 1
    assert nodes > 500


def test_invariants_over_random_games():
    for s, _ in random_states(range(20)):
        d = s.to_dict()
        for p in d["players"]:
            assert all(p["hand"].get(name, 0) >= n for name, n in p["known"].items())
            assert len(p["front"]) <= 5 and len(p["back"]) <= 5
            assert p["hand_size"] == sum(p["hand"].values())
        if not s.is_terminal() and not s.is_chance():
            assert s.legal_actions()
        if s.is_chance():
            assert abs(sum(p for _, p in s.chance_outcomes()) - 1.0) < 1e-12
        if d["phase"] == "defend":
            assert d["attack"] is not None
        else:
            assert d["attack"] is None


def test_perft():
    s = GAME.new_initial_state()
    assert perft(s, 1) == 12  # distinct cards in the deck
    assert perft(s, 2) == 144
    d = blank()
    d["players"][0]["front"] = [unit("Goblin Raider")]
    s = build(d)
    # root: end, move F1, ability on F1
    # depth 2: end -> pass; move -> end, ability on B1; ability -> end, move F1
    # depth 3: end, pass -> end, attack F1 > avatar; every other line has one move left
    assert [perft(s, n) for n in (1, 2, 3)] == [3, 5, 6]
    before = s.to_dict()
    perft(s, 4)
    assert s.to_dict() == before


# ---------------------------------------------------------------------------
# Information (spec §11)


def information_position() -> dict:
    d = blank()
    d["players"][0]["hand"] = {"Fireball": 1}
    d["players"][1]["hand"] = {"Wolf Pack": 1, "Insight": 1}
    d["players"][1]["known"] = {"Insight": 1}
    return d


def test_information_view_hides_only_the_other_hand_and_deck():
    # On the C core a view is its information-set key: equal exactly when equal views.
    d = information_position()
    s = build(d)
    view = s.information_view(0)
    # a different hidden card: same view for seat 0, different for seat 1
    d["players"][1]["hand"] = {"Great Bear": 1, "Insight": 1}
    other = build(d)
    assert other.information_view(0) == view
    assert other.information_view(1) != s.information_view(1)
    # what seat 0 does see: the other hand's size and known cards, and its own hand
    for seat_, part, changed in (
        (1, "hand", {"Wolf Pack": 2, "Insight": 1}),
        (1, "known", {}),
        (0, "hand", {"War Cry": 1}),
    ):
        e = information_position()
        e["players"][seat_][part] = changed
        assert build(e).information_view(0) != view, (seat_, part)


def test_oracle_information_view_is_the_dict_without_the_hidden_zones():
    oracle_only(
        "the view as a dict is the oracle's API; the C core gives a key, checked "
        "above and against these views in test_hero_differential.py"
    )
    s = build(information_position())
    view = s.information_view(0)
    assert view["players"][1]["hand"] is None and view["players"][1]["deck"] is None
    assert view["players"][1]["hand_size"] == 2 and view["players"][1]["known"] == {"Insight": 1}
    assert view["players"][0]["hand"] == {"Fireball": 1}


def test_resample_keeps_the_view_and_the_known_cards():
    checked = 0
    for s, rng in random_states(range(6), every=7):
        if s.is_terminal():
            continue
        for player in (0, 1):
            new = s.resample(player, rng)
            assert new.information_view(player) == s.information_view(player)
            other = new.to_dict()["players"][1 - player]
            original = s.to_dict()["players"][1 - player]
            assert other["hand_size"] == original["hand_size"]
            assert other["deck_size"] == original["deck_size"]
            assert all(other["hand"].get(n, 0) >= k for n, k in other["known"].items())
            checked += 1
    d = blank()
    d["players"][1]["hand"] = {"Wolf Pack": 2, "Insight": 1}
    d["players"][1]["known"] = {"Insight": 1}
    d["players"][1]["deck"] = {"Great Bear": 4}  # the rest in the graveyard
    s = build(d)
    hands = set()
    for seed in range(200):  # 2 Wolf Packs: 1 in 15
        hand = s.resample(0, random.Random(seed)).to_dict()["players"][1]["hand"]
        assert hand.get("Insight") == 1 and sum(hand.values()) == 3
        hands.add(tuple(sorted(hand.items())))
    assert len(hands) == 3  # 0, 1 or 2 Wolf Packs
    assert checked > 50


# ---------------------------------------------------------------------------
# Notation (spec §8)


@NO_BACKEND
def test_notation_examples_of_the_spec_table():
    examples = {
        "end": 0,
        "pass": 4096,
        "move F1": 8192,
        "deploy Berserker front": 12416,
        "deploy Berserker back": 12417,
        "play Fireball on op.F2": 16651,
        "play Insight": 17663,
        "retainer discard Mercenary": 22272,
        "ability on F1": 24576,
        "ability": 24639,
        "target op.F2": 28683,
        "attack F2 > avatar": 32852,
        "attack B1 > op.F3": 33100,
        "guard B1": 36869,
        "draw Fire Drake": 61632,
    }
    for text, code in examples.items():
        assert parse_action(text, CARDS) == code, text
        assert format_action(code, CARDS) == text
    assert (END, PASS, MOVE, DEPLOY, PLAY, RETAINER, ABILITY, TARGET, ATTACK, GUARD, DRAW) == (
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        15,
    )
    assert (AVATAR, NONE) == (20, 63)
    assert [slot_name(i) for i in (0, 4, 5, 9, 10, 19, 20)] == [
        "F1",
        "F5",
        "B1",
        "B5",
        "op.F1",
        "op.B5",
        "avatar",
    ]


@NO_BACKEND
def test_notation_is_case_insensitive_and_spaces_are_loose():
    assert parse_action("  PLAY  fireball   ON  OP.f2 ", CARDS) == 16651
    assert parse_action("attack f2>AVATAR", CARDS) == 32852
    assert parse_action("attack b1 >op.f3", CARDS) == 33100
    assert parse_action("Retainer Discard hero's crown", CARDS) == encode(
        RETAINER, cid("Hero's Crown")
    )
    assert parse_action("deploy GOBLIN RAIDER Front", CARDS) == encode(
        DEPLOY, cid("Goblin Raider"), 0
    )
    assert parse_slot("op.b5") == 19


@NO_BACKEND
@pytest.mark.parametrize(
    "text",
    [
        "",
        "fly",
        "end now",
        "pass pass",
        "move",
        "move op.F1",
        "move F6",
        "move F0",
        "guard op.B1",
        "deploy Berserker",
        "deploy Berserker middle",
        "deploy front",
        "deploy Nobody back",
        "play",
        "play Fireball op.F2",
        "play Fireball on",
        "play Fireball on avatar",
        "play Fireball on op.F9",
        "retainer Mercenary",
        "retainer discard",
        "ability F1",
        "ability on",
        "ability on avatar",
        "target",
        "target avatar",
        "target F1 F2",
        "attack F1",
        "attack F1 > F2",
        "attack op.F1 > avatar",
        "attack F1 > op.F1 > avatar",
        "attack > avatar",
        "guard",
        "draw",
        "draw Retainer",
        "draw Firebal",
    ],
)
def test_malformed_notation_raises_notation_error(text):
    with pytest.raises(NotationError):
        parse_action(text, CARDS)


@NO_BACKEND
def test_notation_messages_help_the_player():
    with pytest.raises(NotationError, match="did you mean Fireball"):
        parse_action("play Firebal on op.F1", CARDS)
    with pytest.raises(NotationError, match="opponent's slot"):
        parse_action("move op.F1", CARDS)
    for bad in (
        encode(10),
        encode(MOVE, 0, 10),
        encode(ATTACK, 0, 5),
        encode(DRAW, 63),
        encode(TARGET, 0, NONE),
        encode(END, 1, 0),
    ):
        with pytest.raises(NotationError):
            format_action(bad, CARDS)


def test_notation_round_trip_for_every_legal_move_of_random_games(custom):
    cards, game = custom
    games = [
        (GAME, range(30)),
        (Backend(CARDS, DECKS["wild_grove"], DECKS["crimson_conqueror"]), range(10)),
        (game("Seer", "Beastmaster"), range(5)),
    ]
    seen = set()
    for g, seeds in games:
        for s, _ in random_states(seeds, game=g):
            for code in s.legal_actions():
                text = format_action(code, g.cards)
                assert parse_action(text, g.cards) == code, text
                seen.add(decode(code)[0])
    assert seen == {END, PASS, MOVE, DEPLOY, PLAY, RETAINER, ABILITY, TARGET, ATTACK, GUARD, DRAW}
