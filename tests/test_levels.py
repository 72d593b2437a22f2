"""The levels' order, budgets, former names and ladder (docs/play.md "Levels"):
names read weakest first with budgets growing in every game, the top levels
think with their game's own iteration budget and a time cap, a former name
still plays (as the level it became), and every level has an Elo on the
ladder, an estimate said as such."""

import json
import random
import sys

import pytest

from conftest import run_cli
from harness import bench_script
from test_play_cli import GAMES, flat
from xenophon.kernel.registry import game_from_spec
from xenophon.play import levels
from xenophon.play.levels import (
    ALIASES,
    LADDER,
    LEVELS,
    Level,
    LevelBot,
    bot_for_level,
    estimated_levels,
    ladder_elos,
    level_description,
    level_for_elo,
    step_intervals,
)


def decision(game, seed):
    """The first position of a deal where the player to move has a choice."""
    state, rng = game_from_spec(game, seed=seed).new_initial_state(), random.Random(seed)
    while state.is_chance() or len(state.legal_actions()) < 2:
        state.apply(state.sample_chance(rng) if state.is_chance() else state.legal_moves()[0])
    return state


def bench_levels():
    return bench_script("levels")


@pytest.mark.parametrize("game", GAMES)
def test_levels_read_in_order_of_budget_and_elo(game):
    budgets = [level.iterations_in(game) for level in LADDER]
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)
    elos = ladder_elos(game)
    assert set(elos) == set(LEVELS)  # --elo reaches every level
    # in order of Elo, except a measured step whose 95% interval holds 0:
    # a level measured below the one under it only within the match's noise
    steps, estimated = step_intervals(game), estimated_levels(game)
    for lower, upper in zip(LADDER, LADDER[1:]):
        if elos[upper.name] <= elos[lower.name]:
            assert upper.name not in estimated, (upper.name, "an estimate out of order")
            low, high = steps[upper.name]
            assert low <= 0 <= high, (upper.name, "measured below the level under it")
    measured = [level.name for level in LADDER if level.name not in estimated]
    assert set(steps) == set(measured) - {LADDER[0].name}  # every measured step has its interval
    assert level_for_elo(game, 5000)[0] == LADDER[-1].name


def test_the_top_levels_have_a_time_cap_and_seconds_of_search():
    for name in ("strong", "expert", "max"):
        level = LEVELS[name]
        assert level.seconds and level.temperature == 0
        for game in GAMES:  # about 1 s or more of this machine's ~200,000 to 500,000 a second
            assert level.iterations_in(game) >= 200_000
    assert [n for n, level in LEVELS.items() if level.all_cores] == ["max"]


def test_a_level_searches_with_its_games_own_budget(monkeypatch):
    data = {"iterations": {"hero": {"tiny": 40}}}
    monkeypatch.setattr(levels, "_ladder_data", lambda: data)
    bot = LevelBot(Level("tiny", 20, None, 0.0), seed=3)
    assert bot.analyse(decision("hero", 1)).iterations == 40
    assert bot.analyse(decision("anabasis", 1)).iterations == 20
    assert "40 iterations" in Level("tiny", 20, None, 0.0).budget_text("hero")


def test_a_level_bot_reseeds_every_games_search(monkeypatch):
    data = {"iterations": {"hero": {"tiny": 60}}}
    monkeypatch.setattr(levels, "_ladder_data", lambda: data)
    state = decision("hero", 2)

    def visits(bot):
        return [m.visits for m in bot.analyse(state).moves]

    bot = LevelBot(Level("tiny", 20, None, 0.0), seed=3)
    first = visits(bot)
    bot.analyse(state)
    bot.reseed(3)
    assert visits(bot) == first


def test_a_former_name_plays_as_the_level_it_became():
    assert ALIASES == {"hard": "expert"}
    bot = bot_for_level("hard", 0)
    assert bot.level is LEVELS["expert"]
    for game in GAMES:
        text = level_description("hard", game)
        assert text.startswith("expert, the level called 'hard' before (")
        assert "called" not in level_description("expert", game)


@pytest.mark.parametrize("game", GAMES)
def test_an_estimated_elo_is_said_to_be_one(game):
    estimated = estimated_levels(game)
    assert estimated <= set(LEVELS) and "beginner" not in estimated
    for name in LEVELS:
        text = level_description(name, game)
        assert ("estimated" in text) == (name in estimated), text


def test_the_cli_plays_a_former_level_name(tmp_path):
    command = "play anabasis --seed 3 --seat 0 --level hard".split()
    result = run_cli(*command, input_text="quit\n", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "level expert, the level called 'hard' before" in flat(result.stdout)


def test_the_ladder_counts_only_games_at_todays_budgets():
    bench = bench_levels()
    budget = LEVELS["strong"].iterations_in("hero")

    def row(seed, first, iterations, stronger="strong", weaker="normal"):
        returns = [1.0, -1.0] if first == 0 else [-1.0, 1.0]  # the stronger level wins
        return {
            "game": "hero",
            "stronger": stronger,
            "weaker": weaker,
            "seed": seed,
            "first_seat_of_a": first,
            "returns": returns,
            "turns": 10,
            "actions": 50,
            "iterations": iterations,
        }

    below = [
        row(seed, first, [LEVELS[s].iterations, LEVELS[w].iterations], s, w)
        for s, w in (("easy", "beginner"), ("casual", "easy"), ("normal", "casual"))
        for seed in (1, 2)
        for first in (0, 1)
    ]
    pairs = [(LADDER[i + 1].name, LADDER[i].name) for i in range(len(LADDER) - 1)]
    old = [row(seed, first, [12000, 3000]) for seed in (1, 2) for first in (0, 1)]
    ladder, _ = bench.ladder_of("hero", below + old, pairs)
    assert "normal" in ladder and "strong" not in ladder  # an old budget's games do not count
    today = [row(seed, first, [budget, 3000]) for seed in (3, 4) for first in (0, 1)]
    ladder, _ = bench.ladder_of("hero", below + old + today, pairs)
    assert ladder["strong"] > ladder["normal"]


def test_a_stopped_ladder_run_resumes_without_playing_a_game_twice(tmp_path, monkeypatch):
    bench = bench_levels()
    monkeypatch.setitem(sys.modules, "bench_levels", bench)  # the pool's workers find it
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "levels-results.json")
    monkeypatch.setattr(bench, "LADDER_FILE", tmp_path / "levels.json")
    results = tmp_path / "levels-results-hero.json"
    command = "levels.py --game hero --more easy --deals 1 --seed 7".split()
    first = bench.play_game(("hero", "easy", "beginner", 7, 0))  # as if stopped after one game
    results.write_text(json.dumps({"commands": [], "games": [first]}))
    monkeypatch.setattr(sys, "argv", command)
    bench.main()
    saved = json.loads(results.read_text())
    assert sorted((r["seed"], r["first_seat_of_a"]) for r in saved["games"]) == [(7, 0), (7, 1)]
    assert saved["games"][0] == first and len(saved["commands"]) == 1
    bench.main()  # the same command again: nothing left to play
    assert json.loads(results.read_text())["games"] == saved["games"]
    assert set(json.loads((tmp_path / "levels.json").read_text())["elo"]["hero"]) == {
        "beginner",
        "easy",
    }
