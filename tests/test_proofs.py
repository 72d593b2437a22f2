"""Proven results: in the tree (the `solver` setting) and from the exact
solver at the root (`root_solver`), proven only where they hold in every
world the searcher cannot tell apart (docs/search.md, "Proven results")."""

from __future__ import annotations

import random

import pytest

from conftest import GAME_NAMES
from harness import decision_positions
from xenophon.kernel.registry import make_game
from xenophon.search.bots import ISMCTSBot
from xenophon.search.solver import Budget, proven_best, solve

#: the standard mode's cemetery limit: one more card there loses
CEMETERY_LIMIT = 8
CHECK_BUDGET = Budget(seconds=600, nodes=400_000)


def militia(owner: int, damage: int) -> dict:
    """A Militia (3 HP) on the grid as the state dict writes it."""
    return {
        "card": "Militia",
        "owner": owner,
        "damage": damage,
        "ready": True,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }


def flood_position(seed: int = 1, grid=None, cemeteries=(0, 7), opponent_event=None, ap=3):
    """An Anabasis field phase where seat 0 holds Flood Disaster (2 damage to
    every character on a rank, no roll) face down; `grid` adds characters,
    `cemeteries` the Militia in each seat's cemetery, `opponent_event` a
    face-down event of seat 1 (which opens a window to answer the Flood)."""
    state = make_game("anabasis", seed=seed).new_initial_state()
    state.resolve_chance(random.Random(0))
    data = state.to_dict()
    data["phase"] = "field"
    data["players"][0].update(ap=ap)
    data["players"][0]["slots"] = [{"card": "Flood Disaster", "face_up": False}, None, None]
    data["players"][1]["slots"] = [
        {"card": opponent_event, "face_up": False} if opponent_event else None,
        None,
        None,
    ]
    for seat, count in enumerate(cemeteries):
        data["players"][seat]["cemetery"] = {"Militia": count} if count else {}
    data["grid"].update(grid if grid is not None else {"c4": militia(1, 1)})
    return state.game.state_from_dict(data)


def win_in_two():
    """The Flood on rank 4 would take one Militia of each seat to a full
    cemetery; moving seat 0's off the rank first wins."""
    return flood_position(grid={"c4": militia(1, 1), "f4": militia(0, 1)}, cemeteries=(7, 7))


def test_a_win_in_one_is_proven_in_the_tree_and_ends_the_search():
    for seed in range(4):
        result = ISMCTSBot(iterations=50, seed=seed, solver=True).analyse(flood_position())
        assert result.proven and result.best.move.text == "event 1 rank 4"
        assert result.iterations < 50
        assert any("proven win in the tree" in note for note in result.notes)


def test_without_the_solver_setting_nothing_is_proven():
    result = ISMCTSBot(iterations=50, seed=0).analyse(flood_position())
    assert not result.proven and result.iterations == 50


def test_the_root_solver_plays_a_win_in_two_without_searching():
    state = win_in_two()
    full = solve(state, 0, budget=CHECK_BUDGET)
    winning = {value.move.text for value in full.moves if value.win == 1.0 and value.exact}
    assert winning and "event 1 rank 4" not in winning  # that one takes both Militia
    for seed in range(3):
        result = ISMCTSBot(iterations=20, seed=seed, root_solver=True).analyse(state)
        assert result.proven and result.iterations == 0
        assert result.best.move.text in winning


def test_a_window_the_opponent_may_answer_is_no_proof():
    """With a face-down event the opponent may answer the Flood with Nullify
    in some worlds: the solver's answer is no proof, the search runs."""
    state = flood_position(opponent_event="Nullify")
    assert proven_best(solve(state, 0, worlds=1, public_only=True)) is None
    result = ISMCTSBot(iterations=30, seed=0, root_solver=True).analyse(state)
    assert not result.proven and result.iterations == 30


def test_a_move_that_loses_at_once_is_not_searched_again():
    """Flooding rank 4 sends seat 0's own Militia to a full cemetery (a futile
    move the default prunes at the root: searched here, to be proven lost)."""
    state = flood_position(grid={"f4": militia(0, 1), "c2": militia(1, 0)}, cemeteries=(7, 0))
    result = ISMCTSBot(iterations=400, seed=0, solver=True, futile_moves="search").analyse(state)
    flood = next(m for m in result.moves if m.move.text == "event 1 rank 4")
    assert flood.visits == 1 and flood.win_probability == 0.0
    assert result.best.move.text != "event 1 rank 4"


def random_flood_positions(count: int):
    """Flood positions with characters, damage, cemeteries, AP and the
    opponent's events drawn at random: some with a proof, some without."""
    rng = random.Random(47)
    squares = [f"{column}{rank}" for column in "abcdefg" for rank in range(2, 6)]
    for index in range(count):
        chosen = rng.sample(squares, rng.randint(1, 4))
        grid = {square: militia(rng.randint(0, 1), rng.randint(0, 2)) for square in chosen}
        yield flood_position(
            seed=index,
            grid=grid,
            cemeteries=(rng.randint(5, 7), rng.randint(5, 7)),
            opponent_event=rng.choice([None, None, "Nullify", "Rally"]),
            ap=rng.randint(0, 2),
        )


def played_positions(game_name: str, seed: int, every: int = 7):
    """Every `every`-th decision of a random game, where it offers a choice."""
    state = make_game(game_name, seed=seed).new_initial_state()
    rng = random.Random(seed)
    positions = decision_positions(state, rng, lambda s: rng.choice(s.legal_actions()), every)
    yield from (position for position in positions if len(position.legal_actions()) > 1)


def check_against_the_exact_solver(state, proven_move: str, win_only: bool) -> None:
    """The proven move is best by the solver in 4 worlds drawn from the
    seat's information, exactly (and a win, for a proof in the tree)."""
    full = solve(state, state.current_player, worlds=4, budget=CHECK_BUDGET, seed=3)
    value = full.value_of(proven_move)
    assert value.win is not None and value.exact
    best = max(v.win for v in full.moves if v.win is not None)
    assert value.win == pytest.approx(best)
    if win_only:
        assert value.win == 1.0


@pytest.mark.parametrize("source", ["flood", *GAME_NAMES])
def test_no_proof_is_ever_wrong(source):
    if source == "flood":
        positions = list(random_flood_positions(40))
    else:
        positions = [s for seed in range(3) for s in played_positions(source, seed)][:60]
    proofs = 0
    for state in positions:
        seat = state.current_player
        at_root = proven_best(
            solve(state, seat, worlds=1, budget=Budget(seconds=600, nodes=20_000), public_only=True)
        )
        if at_root is not None:
            proofs += 1
            check_against_the_exact_solver(state, at_root.move.text, win_only=False)
        result = ISMCTSBot(iterations=300, seed=1, solver=True).analyse(state)
        if result.proven:
            proofs += 1
            check_against_the_exact_solver(state, result.best.move.text, win_only=True)
    if source == "flood":
        assert proofs >= 5, "the random Flood positions should hold proofs"


def test_a_proven_move_is_played_whatever_the_temperature():
    for settings in ({"solver": True}, {"root_solver": True}):
        bot = ISMCTSBot(iterations=50, seed=0, temperature=5.0, **settings)
        for _ in range(5):
            assert bot.choose(flood_position()).text == "event 1 rank 4"


def test_where_nothing_is_proven_the_search_is_unchanged():
    """The root solver draws nothing from the bot's generator: where it
    proves nothing, the search is the one without it."""
    for state in list(played_positions("anabasis", 5))[:6] + list(played_positions("hero", 5))[:6]:
        plain = ISMCTSBot(iterations=200, seed=2).analyse(state)
        with_solver = ISMCTSBot(iterations=200, seed=2, root_solver=True).analyse(state)
        assert not with_solver.proven
        assert [(m.move.code, m.visits) for m in plain.moves] == [
            (m.move.code, m.visits) for m in with_solver.moves
        ]
