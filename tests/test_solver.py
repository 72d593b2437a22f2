"""The exact solver (`xenophon.search.solver`) and `xenophon solve`."""

from __future__ import annotations

import json
import random
import re

import pytest

from xenophon.cli.main import main
from xenophon.kernel.registry import GAMES, make_game
from xenophon.search.solver import Budget, solve, win_from_returns

SMALL = Budget(seconds=600, nodes=4000)


def decisions(game_name: str, seed: int, steps: int = 400):
    """The decision positions of one random game, in order."""
    state = make_game(game_name, seed=seed).new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        yield state.copy()
        state.apply_code(rng.choice(state.legal_actions()))


def small_positions(game_name: str, count: int = 4):
    """Positions with more than one move whose whole horizon the small budget solves."""
    found = []
    for state in decisions(game_name, seed=11):
        if len(state.legal_actions()) < 2:
            continue
        result = solve(state, state.current_player, worlds=1, budget=SMALL)
        if not result.exhausted:
            found.append(state)
        if len(found) == count:
            break
    assert found, "no small position found"
    return found


def brute_force(backend, seat: int, last_turn: int, evaluate) -> float:
    """Expectimax written plainly: no table, no proven-result cut."""
    if backend.is_terminal():
        return win_from_returns(backend.returns(), seat)
    if backend.turn() > last_turn:
        return evaluate(backend, seat)
    if backend.is_chance():
        total = 0.0
        for code, probability in backend.chance_outcomes():
            backend.apply(code)
            total += probability * brute_force(backend, seat, last_turn, evaluate)
            backend.undo()
        return total
    values = []
    for code in backend.legal_actions():
        backend.apply(code)
        values.append(brute_force(backend, seat, last_turn, evaluate))
        backend.undo()
    return max(values) if backend.current_player() == seat else min(values)


@pytest.mark.parametrize("game_name", GAMES)
def test_solver_agrees_with_brute_force_in_one_world(game_name):
    from xenophon.search.solver import evaluator

    for state in small_positions(game_name):
        seat = state.current_player
        world = state.resample(seat, random.Random(5))
        result = solve(state, seat, worlds=1, budget=SMALL, draw=lambda *_: (world, 1.0))
        for value in result.moves:
            backend = world.backend.clone()
            backend.apply(value.move.code)
            expected = brute_force(backend, seat, state.backend.turn(), evaluator(state))
            assert value.win == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("game_name", GAMES)
def test_horizon_loses_gives_the_exact_chance_of_winning_within_the_turn(game_name):
    """With `horizon_loses`, a position past the turn scores 0 (brute force
    with a zero evaluation) and every value is exact."""
    for state in small_positions(game_name):
        seat = state.current_player
        world = state.resample(seat, random.Random(5))
        result = solve(
            state, seat, worlds=1, budget=SMALL, draw=lambda *_: (world, 1.0), horizon_loses=True
        )
        for value in result.moves:
            backend = world.backend.clone()
            backend.apply(value.move.code)
            expected = brute_force(backend, seat, state.backend.turn(), lambda *_: 0.0)
            assert value.win == pytest.approx(expected, abs=1e-9)
            assert value.exact


@pytest.mark.parametrize("game_name", GAMES)
def test_values_are_probabilities_best_first(game_name):
    for state in small_positions(game_name):
        result = solve(state, state.current_player, worlds=3, budget=SMALL)
        wins = [value.win for value in result.moves]
        assert all(win is not None and 0.0 <= win <= 1.0 for win in wins)
        assert wins == sorted(wins, reverse=True)
        assert result.worlds == (3 if result.hidden_matters else 1)
        assert {value.move.code for value in result.moves} == set(state.legal_actions())


@pytest.mark.parametrize("game_name", GAMES)
def test_solver_reads_nothing_the_seat_cannot_see(game_name):
    for state in small_positions(game_name):
        seat = state.current_player
        other = state.resample(seat, random.Random(99))  # another truth the seat cannot tell apart
        assert other.information_set_key(seat) == state.information_set_key(seat)
        first = solve(state, seat, worlds=4, budget=SMALL, seed=3)
        second = solve(other, seat, worlds=4, budget=SMALL, seed=3)
        assert [(v.move.text, v.win, v.exact) for v in first.moves] == [
            (v.move.text, v.win, v.exact) for v in second.moves
        ]


@pytest.mark.parametrize("game_name", GAMES)
def test_a_budget_too_small_solves_nothing_and_says_so(game_name):
    state = next(
        s
        for s in decisions(game_name, seed=3)
        if s.backend.turn() == 1 and len(s.legal_actions()) > 3
    )
    result = solve(state, state.current_player, budget=Budget(seconds=600, nodes=20))
    assert result.exhausted
    assert all(value.win is None and not value.solved for value in result.moves)


def test_solve_command(tmp_path, capsys):
    out = tmp_path / "records"
    assert (
        main(
            [
                "selfplay",
                "anabasis",
                "--bots",
                "greedy;greedy",
                "--games",
                "1",
                "--seed",
                "4",
                "--out",
                str(out),
                "--processes",
                "1",
            ]
        )
        == 0
    )
    record = next(out.glob("*.jsonl"))
    lines = record.read_text().splitlines()
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines[:-3]) + "\n")
    capsys.readouterr()
    assert main(["solve", str(short), "--as", "0", "--json", "--seconds", "1"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["seat"] == 0 and answer["moves"]
    assert all(m["win"] is None or 0 <= m["win"] <= 1 for m in answer["moves"])


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["solve", "missing.jsonl"], "cannot read record"),
        (["solve", "missing.jsonl", "--seconds", "0"], "out of range"),
    ],
)
def test_solve_command_bad_input_is_one_line(arguments, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(arguments)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


@pytest.mark.parametrize("game_name", GAMES)
def test_deepening_ends_at_the_plain_solve_where_the_budget_reaches_the_horizon(game_name):
    """solve(estimate=True) deepens a ply at a time: a move it takes to the
    horizon has the plain solve's value, marked with no depth."""
    for state in small_positions(game_name, count=2):
        seat = state.current_player
        plain = solve(state, seat, worlds=1, budget=SMALL)
        deep = solve(
            state, seat, worlds=1, budget=Budget(seconds=600, nodes=400_000), estimate=True
        )
        assert deep.stopped_by is None
        assert {(v.move.text, v.exact, v.depth) for v in deep.moves} == {
            (v.move.text, v.exact, None) for v in plain.moves
        }
        for value in deep.moves:
            assert value.win == pytest.approx(plain.value_of(value.move.text).win, abs=1e-9)


@pytest.mark.parametrize("game_name", GAMES)
def test_an_ordinary_decision_has_every_move_valued_and_says_which_bound_stopped(game_name):
    """Issue 66 item 3: where the budget ends before the horizon (here the
    positions bound, as --positions sets it), every move is valued as far as
    it got, marked with the depth reached, and the bound is named."""
    state = next(
        s
        for s in decisions(game_name, seed=3)
        if s.backend.turn() == 2 and len(s.legal_actions()) > 3
    )
    result = solve(
        state, state.current_player, budget=Budget(seconds=600, nodes=3000), estimate=True
    )
    assert result.stopped_by == "positions" and result.exhausted
    assert all(value.win is not None and 0 <= value.win <= 1 for value in result.moves)
    assert any(value.depth is not None for value in result.moves)
    assert all(value.depth is None or value.depth >= 1 for value in result.moves)


def test_solve_command_answers_within_its_seconds_with_each_move_valued(tmp_path, capsys):
    record = tmp_path / "game.jsonl"
    assert (
        main(["selfplay", "hero", "--bots", "random;random", "--seed", "3", "--out", str(tmp_path)])
        == 0
    )
    record = next(tmp_path.glob("*.jsonl"))
    capsys.readouterr()
    assert main(["solve", str(record), "--as", "0", "--turn", "3", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "not solved" not in out and "not reached" not in out
    assert re.search(
        r"stopped by the time bound \(--seconds\)|every move solved to the horizon", out
    )
    assert (
        main(["solve", str(record), "--as", "0", "--turn", "3", "--positions", "500", "--json"])
        == 0
    )
    answer = json.loads(capsys.readouterr().out)
    assert answer["stopped_by"] == "positions"
    assert all(move["win"] is not None for move in answer["moves"])
