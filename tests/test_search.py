"""ISMCTS and the baseline bots, on both games: information is respected,
results are reproducible, budgets and memory caps hold, tactics are found."""

import math
import random
import threading
from types import SimpleNamespace

import pytest

from conftest import GAME_NAMES
from hero_decks import CARDS as HERO_CARDS
from hero_decks import PAIRINGS, hand_written
from xenophon.anabasis import Game as AnabasisGame
from xenophon.hero import Game as HeroGame
from xenophon.kernel.errors import XenophonError
from xenophon.lab.tournament import play_match
from xenophon.play.players import make_bot
from xenophon.search import settings as settings_module
from xenophon.search.bots import (
    PRESETS,
    CheatingUCTBot,
    GreedyBot,
    ISMCTSBot,
    MoveStat,
    PIMCBot,
    RandomBot,
    SearchResult,
    SettingError,
    wilson_lower_bound,
)
from xenophon.search.ismcts import stratified_outcomes
from xenophon.search.settings import HALVING_FROM_ITERATIONS, SearchSettings


def random_positions(make_game, count, seed, min_actions=30):
    """Decision positions reached by random play (chance with true odds)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = make_game(rng.randrange(10**6))
        state = game.new_initial_state()
        steps = rng.randrange(min_actions, min_actions * 8)
        for _ in range(steps):
            if state.is_terminal():
                break
            move = (
                state.sample_chance(rng) if state.is_chance() else rng.choice(state.legal_moves())
            )
            state.apply_code(move.code)
        state.resolve_chance(rng)
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            positions.append(state)
    return positions


def twin_positions(make_game, count, seed):
    """(state, twin) pairs from `count` random positions: the twin is the
    state with what its player cannot see dealt again, where that changed
    something; the player's information set is the same in both."""
    pairs = []
    for state in random_positions(make_game, count, seed=seed, min_actions=8):
        player = state.current_player
        twin = state.resample(player, random.Random(7))
        if twin.to_bytes() != state.to_bytes():
            assert twin.information_set_key(player) == state.information_set_key(player)
            pairs.append((state, twin))
    return pairs


GAMES = {
    "anabasis": lambda seed: AnabasisGame(seed=seed),
    "anabasis-expert": lambda seed: AnabasisGame(mode="expert", seed=seed),
    "hero": lambda seed: HeroGame(seed=seed),
    "hero-queen-sage": lambda seed: HeroGame(decks=PAIRINGS["queen-sage"], seed=seed),
}


def visits(result):
    return [(m.move.code, m.visits, round(m.win_probability, 9)) for m in result.moves]


#: each tree option alone, and the node options together (none: the v1 search;
#: the root's halving, alone: with every node option as well it plays an event
#: instead of the castle attack, where every move wins at 0.996 to 0.999)
TREE_VARIANTS = {
    "v1": {},
    "range": {"value_scaling": "range", "c_uct": 1.0},
    "spread": {"value_scaling": "spread", "c_uct": 1.0},
    "transpositions": {"transpositions": True},
    "prior": {"prior_weight": 1.0},
    "halving": {"root_policy": "halving"},
    "forced": {"root_policy": "forced"},
    "auto": {"root_policy": "auto"},
    "stratified": {"chance": "stratified"},
    "opponent-searcher": {"opponent_nodes": "searcher"},
    "opponent-fused": {"opponent_nodes": "fused"},
    "proofs": {"solver": True, "root_solver": True},
    "all": {"value_scaling": "spread", "transpositions": True, "prior_weight": 1.0, "c_uct": 1.0},
}


@pytest.mark.parametrize("variant", sorted(TREE_VARIANTS))
@pytest.mark.parametrize("name", sorted(GAMES))
def test_hidden_cards_are_never_read(name, variant):
    """Two states the searcher cannot tell apart give the same search, with
    every tree option (the priors are drawn in the sampled worlds, the
    transpositions follow the nodes the searcher's information keys)."""
    options = TREE_VARIANTS[variant]
    pairs = twin_positions(GAMES[name], 40, seed=1)
    assert len(pairs) >= 10, "the test needs positions whose hidden cards really differ"
    for state, twin in pairs:
        first = ISMCTSBot(iterations=300, seed=5, **options).analyse(state)
        second = ISMCTSBot(iterations=300, seed=5, **options).analyse(twin)
        assert visits(first) == visits(second)


def test_same_seed_same_result():
    state = random_positions(GAMES["anabasis"], 1, seed=2)[0]
    first = ISMCTSBot(iterations=2000, seed=3).analyse(state)
    second = ISMCTSBot(iterations=2000, seed=3).analyse(state)
    assert visits(first) == visits(second)
    assert first.iterations == 2000 and first.worlds == 2000
    assert [m.principal_variation for m in first.moves] == [
        m.principal_variation for m in second.moves
    ]


def test_time_budget_stops_a_search_without_an_iteration_limit():
    # Not a speed assertion: with no iteration limit only the clock can stop
    # the search, so a search that ignored its budget would never return. The
    # thread's generous deadline turns that into a failure instead of a hang
    # and does not depend on the machine's load.
    state = random_positions(GAMES["anabasis"], 1, seed=3)[0]
    for budget in (0.05, 0.3):
        results = []
        search = threading.Thread(
            target=lambda: results.append(
                ISMCTSBot(iterations=None, time_limit=budget, seed=1).analyse(state)
            ),
            daemon=True,
        )
        search.start()
        search.join(timeout=budget + 30)
        assert not search.is_alive(), f"a {budget} s search still ran after {budget + 30} s"
        assert results[0].iterations > 0


def test_memory_cap_holds_and_search_goes_on():
    state = random_positions(GAMES["anabasis"], 1, seed=4)[0]
    result = ISMCTSBot(iterations=20000, seed=1, memory_mb=0.25).analyse(state)
    assert result.iterations == 20000
    assert result.tree_bytes <= 0.25 * 1024 * 1024
    assert any("tree full" in note for note in result.notes)


def test_single_move_and_terminal_shortcuts():
    game = AnabasisGame(seed=1)
    state = game.new_initial_state()
    with pytest.raises(XenophonError, match="chance"):
        ISMCTSBot(iterations=10).analyse(state)
    state.resolve_chance(game.rng)
    position = state.to_dict()
    position["players"][0]["ap"] = 0
    position["players"][0]["hand"] = {}
    position["players"][0]["funds"] = 0
    only_end = game.state_from_dict(position)
    result = ISMCTSBot(iterations=1000).analyse(only_end)
    assert [m.move.text for m in result.moves] == ["end"] and result.iterations == 0


def castle_attack_position(game):
    """Seat 0's Swordsman next to seat 1's castle, which has 1 HP left."""
    d = game.new_initial_state()
    d.resolve_chance(random.Random(0))
    data = d.to_dict()
    data["phase"] = "field"
    data["players"][1]["castle_hp"] = 1
    data["players"][0]["ap"] = 3
    data["grid"]["d5"] = {
        "card": "Swordsman",
        "owner": 0,
        "damage": 0,
        "ready": True,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }
    data["players"][1]["slots"] = [None, None, None]
    return game.state_from_dict(data)


def turn_of(line):
    """The moves of a principal variation up to the end of the turn."""
    return line[: line.index("end")] if "end" in line else line


@pytest.mark.parametrize("variant", sorted(TREE_VARIANTS))
def test_finds_the_attack_that_takes_the_castle(variant):
    """The chosen line attacks the castle this turn: from d5 at once, or
    (some variants, where every move wins at 0.99 or more) after a step."""
    game = AnabasisGame(seed=1)
    state = castle_attack_position(game)
    result = ISMCTSBot(iterations=1000, seed=2, **TREE_VARIANTS[variant]).analyse(state)
    line = result.best.principal_variation
    assert any(step.startswith("attack") and step.endswith("xd6") for step in turn_of(line)), line


@pytest.mark.parametrize("variant", sorted(TREE_VARIANTS))
def test_finds_the_only_move_that_avoids_losing(variant):
    """Two enemy Militia with 2 HP left threaten seat 0's castle (1 HP); only the
    Flood on rank 2 removes them both before they strike."""
    game = AnabasisGame(seed=1)
    start = game.new_initial_state()
    start.resolve_chance(random.Random(0))
    data = start.to_dict()
    data["phase"] = "field"
    data["players"][0].update(castle_hp=1, ap=0, hand={})
    data["players"][0]["slots"] = [{"card": "Flood Disaster", "face_up": False}, None, None]
    data["players"][1]["slots"] = [None, None, None]
    for square in ("c2", "e2"):
        data["grid"][square] = {
            "card": "Militia",
            "owner": 1,
            "damage": 1,
            "ready": True,
            "moved": False,
            "face_down": False,
            "atk_bonus": 0,
        }
    state = game.state_from_dict(data)
    result = ISMCTSBot(iterations=1000, seed=3, **TREE_VARIANTS[variant]).analyse(state)
    assert result.best.move.text == "event 1 rank 2"


def hero_unit(name, **changes):
    unit = {
        "card": name,
        "token": False,
        "damage": 0,
        "used": False,
        "can_move": True,
        "pump_power": 0,
        "pump_attack": 0,
    }
    unit.update(changes)
    return unit


@pytest.mark.parametrize("variant", sorted(TREE_VARIANTS))
def test_finds_the_hero_attack_that_brings_the_avatar_to_zero(variant):
    decks = PAIRINGS["crimson-wild"]
    game = HeroGame(decks=decks, seed=1)
    data = hand_written(
        decks,
        HERO_CARDS,
        (
            {
                "front": [hero_unit("Mercenary"), hero_unit("Berserker")],
                "hand": {"War Cry": 1, "Goblin Raider": 1},
            },
            {"hp": 2, "back": [hero_unit("Forest Guardian", used=True)]},
        ),
        phase="battle",
    )
    result = ISMCTSBot(iterations=1000, seed=4, **TREE_VARIANTS[variant]).analyse(
        game.state_from_dict(data)
    )
    assert result.best.move.text == "attack F2 > avatar"


@pytest.mark.parametrize("variant", sorted(TREE_VARIANTS))
def test_finds_the_only_hero_move_that_avoids_losing(variant):
    """At 1 HP, facing a FLYING Sky Scout that no unit of ours can guard, only
    Death Curse on it saves Night Queen next turn: the chosen line plays it
    this turn (moving the Skeleton Soldier first is the same turn in another
    order, which some variants choose)."""
    decks = PAIRINGS["queen-sage"]
    game = HeroGame(decks=decks, seed=1)
    data = hand_written(
        decks,
        HERO_CARDS,
        (
            {
                "hp": 1,
                "back": [hero_unit("Skeleton Soldier", used=True)],
                "hand": {"Death Curse": 1},
            },
            {"front": [hero_unit("Sky Scout", used=True)]},
        ),
        phase="action",
    )
    result = ISMCTSBot(iterations=1000, seed=5, **TREE_VARIANTS[variant]).analyse(
        game.state_from_dict(data)
    )
    line = result.best.principal_variation
    assert "play Death Curse on op.F1" in turn_of(line), line


def hero_two_deploys_position():
    """Seat 0 in its action phase with two cheap units in hand: deploying
    both, in either order, reaches the same state."""
    decks = PAIRINGS["crimson-wild"]
    game = HeroGame(decks=decks, seed=1)
    data = hand_written(
        decks, HERO_CARDS, ({"hand": {"Goblin Raider": 1, "Mercenary": 1}}, {}), phase="action"
    )
    return game.state_from_dict(data)


def transpositions_followed(state, **options):
    """How often a search of 2,000 iterations descended into a node another order reached."""
    bot = ISMCTSBot(iterations=2000, seed=1, **options)
    workers = bot._workers_for(state, state.to_bytes(), state.current_player, 1, bot.memory_bytes)
    bot._run(workers, 2000, 0.0)
    return workers[0].transpositions


def test_transpositions_descend_into_the_node_another_order_reached():
    state = hero_two_deploys_position()
    assert transpositions_followed(state, transpositions=True) > 0
    assert transpositions_followed(state) == 0


def test_preset_v1_is_the_search_without_tree_options():
    state = random_positions(GAMES["hero"], 1, seed=2)[0]
    explicit = ISMCTSBot(
        iterations=800,
        seed=3,
        c_uct=0.4,
        cutoff_turns=None,
        value_scaling="none",
        transpositions=False,
        prior_weight=0.0,
        root_policy="uct",
        opponent_nodes="own",
        ties="first",
        chance="sampled",
    )
    named = make_bot("ismcts:preset=v1,iterations=800", seed=3)
    assert visits(named.analyse(state)) == visits(explicit.analyse(state))
    assert set(PRESETS["v1"]) == {
        "c_uct",
        "cutoff_turns",
        "value_scaling",
        "transpositions",
        "prior_weight",
        "root_policy",
        "opponent_nodes",
        "ties",
        "chance",
    }


def won_result(state):
    """A search result where every move won every iteration: equal visits
    and values (as in a won position searched with playouts to the end)."""
    moves = [MoveStat(move, 10, 1.0, 0.9) for move in state.legal_moves()]
    return SearchResult(state.current_player, moves, 10 * len(moves), 0, 0, 0, 0.0)


def test_ties_first_plays_the_lowest_code_of_moves_equal_in_visits_and_value():
    state = random_positions(GAMES["anabasis"], 1, seed=4)[0]
    result = won_result(state)
    codes = [m.move.code for m in result.moves]
    assert len(codes) > 2 and result.best.move.code == min(codes)
    chosen = {
        make_bot("ismcts:iterations=10,ties=first", seed).choose_from(result).code
        for seed in range(20)
    }
    assert chosen == {min(codes)}
    assert make_bot("ismcts:iterations=10,preset=v1", 1).ties == "first"


def test_ties_random_draws_among_the_moves_equal_in_visits_and_value_only():
    state = random_positions(GAMES["anabasis"], 1, seed=4)[0]
    result = won_result(state)
    tied = {m.move.code for m in result.moves}
    assert make_bot("ismcts:iterations=10", 1).ties == "random"  # v2, the default
    chosen = [make_bot("ismcts:iterations=10", seed).choose_from(result).code for seed in range(60)]
    assert set(chosen) <= tied and len(set(chosen)) > len(tied) // 2
    # a move ahead in visits, or in value at equal visits, is played alone
    for ahead in (
        MoveStat(result.moves[-1].move, 11, 1.0, 0.9),
        MoveStat(result.moves[-1].move, 10, 1.0 + 1e-9, 0.9),
    ):
        lead = SearchResult(result.player, [ahead] + result.moves[:-1], 0, 0, 0, 0, 0.0)
        assert {
            make_bot("ismcts:iterations=10,ties=random", seed).choose_from(lead).code
            for seed in range(20)
        } == {ahead.move.code}


def test_an_option_given_overrides_the_preset():
    bot = make_bot("ismcts:preset=v1,transpositions=true,c_uct=0.9,iterations=10", seed=1)
    assert bot.transpositions and bot.c_uct == 0.9 and bot.cutoff_turns is None
    assert bot.value_scaling == "none" and bot.prior_weight == 0.0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ismcts:preset=v0", "'preset' must be one of"),
        ("ismcts:prior_weight=-1", "'prior_weight' must be a number at least 0"),
        ("ismcts:value_scaling=maybe", "'value_scaling' must be one of none, range, spread"),
        ("ismcts:root_policy=ucb", "'root_policy' must be one of uct, halving, forced, auto"),
        ("ismcts:chance=expected", "'chance' must be one of sampled, stratified"),
        ("ismcts:opponent_nodes=mine", "'opponent_nodes' must be one of own, searcher, fused"),
        ("ismcts:ties=last", "'ties' must be one of first, random"),
    ],
)
def test_bad_tree_options_are_refused(spec, message):
    with pytest.raises(SettingError, match=message):
        make_bot(spec, seed=1)


def hero_opening():
    """Hero's opening of deal 1 (the position where v1 locks in: docs/strength.md)."""
    state = HeroGame(seed=1).new_initial_state()
    state.resolve_chance(random.Random(1))
    return state


def searched_workers(state, iterations=0, time_limit=0.0, workers=1, **options):
    """A bot and its workers after one search of `state`."""
    bot = ISMCTSBot(
        iterations=iterations or None,
        time_limit=time_limit or None,
        workers=workers,
        seed=1,
        **options,
    )
    searched = bot._workers_for(
        state, state.to_bytes(), state.current_player, workers, bot.memory_bytes
    )
    bot._run(searched, iterations, time_limit)
    return bot, searched


def root_statistics(state, iterations=0, time_limit=0.0, **options):
    """The root's (code, visits, value_sum, halvings) of one worker's search."""
    return searched_workers(state, iterations, time_limit, **options)[1][0].root_statistics()


def rounds_for(moves):
    """ceil(log2 moves): the halving rounds of a root with that many moves."""
    return (moves - 1).bit_length()


def test_halving_keeps_every_root_move_gaining_visits():
    """Where UCB1 freezes the moves behind the first leader, each halving
    round gives every move still in an equal share, and a larger budget
    gives every move more visits."""
    state = hero_opening()
    small = {s[0]: s[1] for s in root_statistics(state, 1000, root_policy="halving")}
    large = {s[0]: s[1] for s in root_statistics(state, 4000, root_policy="halving")}
    assert len(small) >= 4
    assert all(large[code] > small[code] for code in small)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_halving_rounds_compare_moves_at_equal_visits(name):
    """A move dropped in a round had, as every move still in then, the same
    visits (within one) as the others dropped with it; the better half by
    value went on; the search plays the finalists' better value."""
    state = random_positions(GAMES[name], 1, seed=12, min_actions=2)[0]
    bot, workers = searched_workers(state, 3000, root_policy="halving")
    stats = workers[0].root_statistics()
    rounds = rounds_for(len(stats))
    assert max(s[3] for s in stats) == rounds - 1  # the last round is the choice itself
    for survived in range(rounds):
        group = [s for s in stats if s[3] == survived]
        assert group and max(s[1] for s in group) - min(s[1] for s in group) <= 1
        beaten = [s for s in stats if s[3] == survived - 1]
        # at that halving, every one kept had a mean no worse than every one dropped
        # (the kept ones' means here include later visits, so only the visit shares
        # are checked beyond the first round)
        if survived >= 1:
            assert min(s[1] for s in group) > max(s[1] for s in beaten)
    finalists = [s for s in stats if s[3] == rounds - 1]
    best = bot._result(state, state.current_player, workers, 0.0, 3000).best
    assert best.move.code == max(finalists, key=lambda s: s[2] / s[1])[0]


def test_halving_rounds_divide_a_time_budget():
    """With a time budget only, the rounds are equal shares of the time: all
    but the last halving are done when the time is up (the last one too when
    a cycle ends after the time is up, before the search notices it)."""
    state = hero_opening()
    stats = root_statistics(state, time_limit=0.3, root_policy="halving")
    assert max(s[3] for s in stats) >= rounds_for(len(stats)) - 1


def test_forced_visits_keep_every_root_move_at_its_share():
    """root_policy=forced: each root move has at least sqrt(2 N / k) visits
    (within the one the last iterations may still owe it), where UCB1 alone
    leaves a move below it."""
    state = hero_opening()
    for iterations in (1000, 4000):
        stats = root_statistics(state, iterations, root_policy="forced")
        share = math.sqrt(2 * iterations / len(stats))
        assert min(s[1] for s in stats) >= share - 1
    stats = root_statistics(state, 4000)
    assert min(s[1] for s in stats) < math.sqrt(2 * 4000 / len(stats)) - 1


@pytest.mark.parametrize(
    "budget, rule",
    [
        ({"iterations": 9_999}, "uct"),
        ({"iterations": 10_000}, "halving"),
        ({"iterations": None, "time_limit": 0.5}, "uct"),
        ({"iterations": None, "time_limit": 1.0}, "halving"),
        ({"iterations": 50_000, "time_limit": 0.5}, "uct"),
        ({"iterations": 50_000, "workers": 2, "parallel": "shared"}, "uct"),
    ],
)
def test_auto_root_halves_from_its_budget_on(budget, rule):
    """root_policy=auto is UCB1 below HALVING_FROM_ITERATIONS iterations (or
    HALVING_FROM_SECONDS, whichever budget ends the search first) and
    sequential halving from there on, except in a shared tree."""
    assert SearchSettings(root_policy="auto", **budget).root_rule == rule
    assert SearchSettings(root_policy="forced", **budget).root_rule == "forced"


def test_auto_root_halves_above_its_budget_only():
    """Below the budget, root_policy=auto searches as uct does; from it on,
    as halving does (the same visits, and the halving's rounds)."""
    state = hero_opening()
    small = {"iterations": 600, "seed": 2}
    assert visits(ISMCTSBot(root_policy="auto", **small).analyse(state)) == visits(
        ISMCTSBot(root_policy="uct", **small).analyse(state)
    )
    large = {"iterations": HALVING_FROM_ITERATIONS, "seed": 2}
    halved = ISMCTSBot(root_policy="auto", **large).analyse(state)
    assert visits(halved) == visits(ISMCTSBot(root_policy="halving", **large).analyse(state))
    assert visits(halved) != visits(ISMCTSBot(root_policy="uct", **large).analyse(state))


@pytest.mark.parametrize(
    "game, policy, nodes",
    [(AnabasisGame(seed=1), "auto", "own"), (HeroGame(seed=1), "uct", "fused")],
)
def test_the_default_tree_options_are_the_games_own(game, policy, nodes):
    """The default preset leaves the root policy and the opponent nodes to the
    game (each rule where it won its match); a value given, preset v2's, and
    the perfect-information baselines' are kept."""
    large = SearchSettings(iterations=HALVING_FROM_ITERATIONS)
    assert large.for_game(game).root_policy == policy
    assert large.for_game(game).opponent_nodes == nodes
    assert large.for_game(game).root_rule == ("halving" if policy == "auto" else "uct")
    assert large.for_game(game, own=False).root_rule == "uct"
    assert large.for_game(game, own=False).opponent_nodes == "own"
    assert SearchSettings(iterations=50_000, preset="v2").for_game(game).root_rule == "uct"
    assert SearchSettings(iterations=50_000, preset="v2").for_game(game).opponent_nodes == "own"
    assert SearchSettings(iterations=50_000, root_policy="forced").for_game(game).root_rule == (
        "forced"
    )
    assert SearchSettings(iterations=9, opponent_nodes="own").for_game(game).opponent_nodes == (
        "own"
    )


def test_a_games_own_tree_option_a_shared_tree_cannot_take_is_left_out(monkeypatch):
    """A game's own `opponent_nodes=fused` (or halving) does not reach a
    shared tree, which cannot take it: that search keeps v2's value."""
    monkeypatch.setattr(
        settings_module,
        "find_plugin",
        lambda name: SimpleNamespace(tree_defaults={"opponent_nodes": "fused"}),
    )
    game = SimpleNamespace(name="a game with fused nodes")
    alone = SearchSettings(iterations=50_000).for_game(game)
    shared = SearchSettings(iterations=50_000, workers=2, parallel="shared").for_game(game)
    assert (alone.opponent_nodes, shared.opponent_nodes) == ("fused", "own")


def test_a_default_anabasis_search_halves_from_its_budget_on():
    """The workers and the ranking of a default search get the game's root
    policy: in Anabasis at 10,000 iterations, the halving's visits."""
    state = castle_attack_position(AnabasisGame(seed=1))
    large = {"iterations": HALVING_FROM_ITERATIONS, "seed": 2}
    default = ISMCTSBot(**large).analyse(state)
    assert visits(default) == visits(ISMCTSBot(root_policy="auto", **large).analyse(state))
    assert visits(default) != visits(ISMCTSBot(root_policy="uct", **large).analyse(state))


def strike_position():
    """The castle-attack position after the attack: the strike's chance node."""
    state = castle_attack_position(AnabasisGame(seed=1))
    state.apply(next(m for m in state.legal_moves() if m.text == "attack d5xd6"))
    assert state.is_chance()
    return state


def strike_draws(state, visits, k=0, edge=5, seed=1):
    api, tables = state.game.search_interface()
    return stratified_outcomes(api, tables, state.to_bytes(), edge, visits, k, seed)


def test_stratified_chance_gives_each_outcome_its_share_of_an_actions_visits():
    """In each block of 8 of an action's visits, a strike's outcomes come
    within less than 2 of their expected counts (independent draws: a
    standard deviation of 1.4 for the 57% hit, so some of 12 blocks would
    not), for the first and the second chance node after the action, each
    in an order of its own."""
    state = strike_position()
    chances = {m.code: p for m, p in state.chance_outcomes()}
    assert len(chances) >= 2
    first, second = strike_draws(state, 96, k=0), strike_draws(state, 96, k=1)
    for draws in (first, second):
        for block in range(0, 96, 8):
            for code, probability in chances.items():
                count = draws[block : block + 8].count(code)
                assert abs(count - 8 * probability) < 2, (block, code, probability)
    hit = max(chances, key=chances.get)
    both = sum(x == hit and y == hit for x, y in zip(first, second))
    assert abs(both - 96 * chances[hit] ** 2) <= 8


def test_stratified_chance_keeps_each_outcomes_probability():
    """One visit's outcome, over many actions (their random orders of the
    strata) and generators, is drawn with the outcome's true probability."""
    state = strike_position()
    chances = {m.code: p for m, p in state.chance_outcomes()}
    draws = [strike_draws(state, 1, edge=edge, seed=edge)[0] for edge in range(3000)]
    for code, probability in chances.items():
        assert abs(draws.count(code) / 3000 - probability) < 0.03


def test_stratified_chance_needs_a_chance_node():
    state = castle_attack_position(AnabasisGame(seed=1))
    with pytest.raises(ValueError, match="needs a chance node"):
        strike_draws(state, 3)


def test_halving_with_two_workers_ranks_by_rounds_survived_in_both():
    state = random_positions(GAMES["hero"], 1, seed=13, min_actions=2)[0]
    bot, workers = searched_workers(state, 2000, workers=2, root_policy="halving")
    survived = {}
    for worker in workers:
        for code, _, _, halvings in worker.root_statistics():
            survived[code] = survived.get(code, 0) + halvings
    result = bot._result(state, state.current_player, workers, 0.0, 2000)
    assert survived[result.best.move.code] == max(survived.values())
    assert sum(m.visits for m in result.moves) == 2000


def test_root_moves_can_be_restricted():
    state = random_positions(GAMES["anabasis"], 1, seed=6)[0]
    allowed = state.legal_actions()[:2]
    result = ISMCTSBot(iterations=500, seed=1).analyse(state, root_moves=allowed)
    assert {m.move.code for m in result.moves} <= set(allowed)


def test_streaming_reports_partial_results():
    state = random_positions(GAMES["anabasis"], 1, seed=7)[0]
    partial = []
    result = ISMCTSBot(iterations=None, time_limit=0.3, seed=1).analyse(
        state, on_progress=partial.append, every=0.05
    )
    assert len(partial) >= 2 and result.iterations >= partial[-1].iterations


def test_baselines_choose_legal_moves():
    for state in random_positions(GAMES["anabasis"], 3, seed=8):
        legal = set(state.legal_actions())
        for bot in (
            RandomBot(1),
            GreedyBot(1),
            PIMCBot(iterations=200, worlds=4, seed=1),
            CheatingUCTBot(iterations=200, seed=1),
            ISMCTSBot(iterations=200, seed=1),
        ):
            assert bot.choose(state).code in legal


def test_two_workers_merge_root_statistics():
    state = random_positions(GAMES["anabasis"], 1, seed=9)[0]
    result = ISMCTSBot(iterations=2000, workers=2, seed=1).analyse(state)
    assert result.iterations == 2000 and result.workers == 2
    assert sum(m.visits for m in result.moves) == 2000


def test_wilson_lower_bound():
    assert wilson_lower_bound(0.5, 0) == 0.0
    assert 0.4 < wilson_lower_bound(0.5, 1000) < 0.5
    assert wilson_lower_bound(1.0, 10) < 1.0


def test_tournament_reports_score_and_elo():
    report = play_match("anabasis", "greedy", "random", games=4, processes=1, progress=False)
    summary = report.summary()
    assert summary["games"] == 4 and summary["wins"] + summary["draws"] + summary["losses"] == 4
    low, high = summary["interval95"]
    assert 0 <= low <= summary["score"] <= high <= 1
    assert [r.first_seat_of_a for r in report.records] == [0, 1, 0, 1]


def searched_tree(state, iterations, **options):
    """The one worker of a search of `state` after `iterations` iterations."""
    bot = ISMCTSBot(iterations=iterations, seed=1, **options)
    workers = bot._workers_for(state, state.to_bytes(), state.current_player, 1, bot.memory_bytes)
    bot._run(workers, iterations, 0.0)
    return workers[0]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_fused_nodes_keep_sorted_statistics_of_the_opponent(name):
    """opponent_nodes=fused: only the other player's nodes are fused; each
    keeps its actions sorted, once each, and counts an action available at
    least as often as it was chosen and no more often than the node was
    visited; the actions' visits add up to at most the node's."""
    fused = 0
    for state in random_positions(GAMES[name], 6, seed=3, min_actions=8):
        worker = searched_tree(state, 3000, opponent_nodes="fused")
        for player, visits, stats in worker.fused_nodes():
            fused += 1
            assert player != state.current_player
            codes = [code for code, _, _ in stats]
            assert codes == sorted(set(codes))
            assert all(chosen <= available <= visits for _, chosen, available in stats)
            assert sum(chosen for _, chosen, _ in stats) <= visits
    assert fused > 0, "the searches reached no opponent node"


def test_fused_nodes_merge_the_opponents_hidden_hands():
    """In Hero, where the opponent's legal deploys follow from the hand each
    sampled world deals it, fused nodes gather many worlds' visits: the same
    iterations make fewer nodes, and some fused node was reached with
    different actions legal (its actions outnumber those legal at a visit)."""
    state = hero_opening()
    own = searched_tree(state, 5000, opponent_nodes="own")
    fused = searched_tree(state, 5000, opponent_nodes="fused")
    assert fused.nodes < own.nodes
    assert any(
        any(available < visits for _, _, available in stats)
        for _, visits, stats in fused.fused_nodes()
    )


def turn_end_position():
    """Seat 0 in its field phase with 0 AP (tests/data/anabasis-flood-turn1.json):
    `end` and the Floods only, so every descent crosses into the next turn."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "anabasis-flood-turn1.json").read_text())
    return AnabasisGame().state_from_dict(data)


def test_the_result_says_how_many_turns_the_tree_reached():
    state = turn_end_position()
    result = ISMCTSBot(iterations=400, seed=3).analyse(state)
    assert result.most_turns >= 1
    assert 0 < result.mean_turns <= result.most_turns


def test_a_search_of_one_iteration_stays_in_the_turn():
    """One iteration makes one tree step, the root's, and no field action
    ends the turn (`end` leads to Standby 2)."""
    result = ISMCTSBot(iterations=1, seed=3, futile_moves="search").analyse(turn_end_position())
    assert (result.mean_turns, result.most_turns) == (0.0, 0)
