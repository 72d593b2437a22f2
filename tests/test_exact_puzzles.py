"""Issue 64's exact puzzles (bench/exact_puzzles.py, bench/puzzles/exact-GAME.jsonl):
each answer is the solver's exact chance of winning within the turn, the
halves split by deal, the random mover's score the share of best moves."""

from __future__ import annotations

import pytest

from harness import bench_script
from xenophon.kernel.registry import GAMES, make_game
from xenophon.search.solver import Budget

exact = bench_script("exact_puzzles")
#: the harvest's position cap without its time cap, so that a loaded machine
#: cannot stop a solve the harvest finished
RECHECK = Budget(seconds=600.0, nodes=exact.BUDGET.nodes)


def suite(game_name: str) -> list[dict]:
    puzzles = exact.load(game_name)
    assert puzzles, f"no exact puzzles of {game_name}"
    return puzzles


def cheapest(game_name: str, count: int) -> list[dict]:
    """The puzzles with the fewest legal first moves (the quickest to solve)."""
    return sorted(suite(game_name), key=lambda p: (len(p["values"]), p["id"]))[:count]


@pytest.mark.parametrize("game_name", GAMES)
def test_a_few_answers_are_the_solvers(game_name):
    for puzzle in cheapest(game_name, 2):
        state = make_game(game_name).state_from_dict(puzzle["state"])
        answer = exact.proven_answer(state, RECHECK)
        assert answer is not None
        assert answer["winning"] == puzzle["winning"]
        assert answer["values"] == pytest.approx(puzzle["values"], abs=1e-6)


@pytest.mark.parametrize("game_name", GAMES)
def test_no_deal_is_in_both_halves_and_the_floor_is_the_share_of_best_moves(game_name):
    puzzles = suite(game_name)
    assert len({p["id"] for p in puzzles}) == len(puzzles)
    assert all(p["held_out"] == (p["deal"] % 2 == 1) for p in puzzles)
    for puzzle in puzzles:
        assert puzzle["random_score"] == pytest.approx(
            len(puzzle["winning"]) / len(puzzle["values"]), abs=1e-6
        )
        best = max(puzzle["values"].values())
        others = [v for m, v in puzzle["values"].items() if m not in puzzle["winning"]]
        assert best > 0 and best - max(others) >= exact.MARGIN - 1e-6


def test_best_moves_stand_out_by_the_margin():
    assert exact.best_moves({"a": 0.5, "b": 0.5, "c": 0.3}) == ["a", "b"]
    assert exact.best_moves({"a": 0.5, "b": 0.45}) is None  # within the margin
    assert exact.best_moves({"a": 0.0, "b": 0.0}) is None  # no chance to win
    assert exact.best_moves({"a": 1.0, "b": 1.0}) is None  # every move wins


def test_a_level_is_scored_on_the_best_moves(monkeypatch):
    """`measure` counts a puzzle right when the chosen move is a best move."""
    puzzle = cheapest("hero", 1)[0]
    monkeypatch.setattr(exact, "load", lambda game_name: [puzzle])
    chosen = {"move": puzzle["winning"][0]}

    class Chooser:
        def choose(self, state):
            return state.move(chosen["move"])

    monkeypatch.setattr(exact, "bot_for", lambda *args: Chooser())
    half = "held-out" if puzzle["held_out"] else "open"
    assert exact.measure(["hero"], "normal", False)[("hero", half, "all")] == (1, 1)
    chosen["move"] = next(m for m in puzzle["values"] if m not in puzzle["winning"])
    assert exact.measure(["hero"], "normal", False)[("hero", half, "all")] == (0, 1)
