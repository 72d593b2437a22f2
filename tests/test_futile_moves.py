"""Futile root moves (issue 47's wasted Flood, issue 64's wasted actions):
the moves a game names as spending AP or a card for nothing
(GamePlugin.futile_moves), which a search with `futile_moves=skip` (the
default) leaves out of its root unless every legal move is one
(docs/search.md, "Futile moves")."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness import bench_script
from xenophon.anabasis.futile import futile_moves
from xenophon.kernel.registry import make_game
from xenophon.search import bots
from xenophon.search.bots import ISMCTSBot, SettingError

#: seed 5's first Flood of bench/flood_waste.py (3,000 iterations): turn 1,
#: seat 0 to act with Flood Disaster face down in slot 3 and no enemy
#: character on the grid; the search chose `event 3 rank 1`
ISSUE_POSITION = Path(__file__).parent / "data" / "anabasis-flood-turn1.json"


def issue_position(
    grid: dict | None = None, slot_card: str = "Flood Disaster", ap: int = 0, **changes
):
    """The issue's position (seat 0 to act, 0 AP), with characters added to
    the grid (square: (card, owner)), another card face down in slot 3 and
    AP if told, and `changes` to the added pieces (moved=True, ...)."""
    data = json.loads(ISSUE_POSITION.read_text())
    data["players"][0]["slots"][2] = {"card": slot_card, "face_up": False}
    data["players"][0]["ap"] = ap
    ready_militia = data["grid"]["b1"]  # seat 0's, undamaged
    for square, (card, owner) in (grid or {}).items():
        data["grid"][square] = dict(ready_militia, card=card, owner=owner, **changes)
    return make_game("anabasis").state_from_dict(data)


def texts(state, codes) -> list[str]:
    return sorted(state.format_code(code) for code in codes)


def test_every_flood_is_futile_without_an_enemy_character():
    state = issue_position()
    assert texts(state, futile_moves(state)) == [f"event 3 rank {rank}" for rank in range(1, 7)]
    kept = {m.text for m in state.legal_moves()} - set(texts(state, futile_moves(state)))
    assert kept == {"end"}


def test_a_rank_with_an_enemy_character_is_not_futile():
    state = issue_position({"c4": ("Militia", 1), "d2": ("Militia", 0), "e6": ("Militia", 1)})
    assert texts(state, futile_moves(state)) == [f"event 3 rank {rank}" for rank in (1, 2, 3, 5)]


def test_other_events_are_never_futile():
    state = issue_position(slot_card="Forced March")
    assert any(m.text.startswith("event 3") for m in state.legal_moves())
    assert futile_moves(state) == []


def test_a_rally_on_a_character_that_cannot_strike_is_futile():
    """0 AP, no enemy card in reach of b1 or f1 (the issue's Rally on a Militia
    that could reach nothing)."""
    state = issue_position(slot_card="Rally")
    assert texts(state, futile_moves(state)) == ["event 3 b1", "event 3 f1"]


def test_a_rally_on_a_character_in_reach_of_an_enemy_is_not_futile():
    state = issue_position({"b2": ("Militia", 1)}, slot_card="Rally")
    assert texts(state, futile_moves(state)) == ["event 3 f1"]


@pytest.mark.parametrize(
    ("ap", "forced_march", "futile"),
    [(1, False, True), (2, False, False), (0, True, False)],
)
def test_a_rally_counts_the_moves_the_ap_buys(ap, forced_march, futile):
    """An enemy on b5 (which an Emergency Evasion may move to b4) is struck on
    b4 from b3, two Militia moves from b1: 2 AP, or a face-down Forced March
    (+2 AP), reach it; 1 AP does not."""
    state = issue_position({"b5": ("Militia", 1)}, slot_card="Rally", ap=ap)
    data = state.to_dict()
    if forced_march:
        data["players"][0]["slots"][0] = {"card": "Forced March", "face_up": False}
        state = state.game.state_from_dict(data)
    assert ("event 3 b1" in texts(state, futile_moves(state))) == futile


def test_an_exhausted_character_pays_to_ready_before_it_strikes():
    """e3 strikes e4 where it stands, once ready again: 1 AP (and its attack
    1 more, which the rule does not count: it errs towards searching)."""
    pieces = {"e4": ("Militia", 1), "e3": ("Militia", 0)}
    exhausted = issue_position(pieces, slot_card="Rally", ready=False)
    assert "event 3 e3" in texts(exhausted, futile_moves(exhausted))
    with_ap = issue_position(pieces, slot_card="Rally", ap=2, ready=False)
    assert "event 3 e3" not in texts(with_ap, futile_moves(with_ap))


def test_a_move_straight_back_is_futile():
    state = issue_position(ap=3)
    state.apply("move b1-b2")
    assert "move b2-b1" in texts(state, futile_moves(state))


def test_a_move_back_after_another_action_is_not_futile():
    state = issue_position(ap=3)
    state.apply("move b1-b2")
    state.apply("move f1-f2")
    futile = texts(state, futile_moves(state))
    assert "move b2-b1" not in futile and "move f2-f1" in futile


def test_a_move_back_that_marks_a_charge_character_moved_is_not_futile():
    """A CHARGE character's first move makes it *moved*: +1 ATK on its next
    attack (RULES.md A8), which two AP may buy; already moved, it gains nothing."""
    fresh = issue_position({"c2": ("Cavalry", 0)}, ap=3)
    fresh.apply("move c2-c3")
    assert "move c3-c2" not in texts(fresh, futile_moves(fresh))
    moved = issue_position({"c2": ("Cavalry", 0)}, ap=3, moved=True)
    moved.apply("move c2-c3")
    assert "move c3-c2" in texts(moved, futile_moves(moved))


def test_a_position_without_a_history_names_no_move_futile():
    state = issue_position(ap=3)
    state.apply("move b1-b2")
    fresh = state.game.state_from_dict(state.to_dict())
    assert not any(text.startswith("move") for text in texts(fresh, futile_moves(fresh)))


def test_the_history_is_left_as_it_was():
    state = issue_position(ap=3)
    state.apply("move b1-b2")
    before = (state.to_bytes(), state.backend.history_size())
    futile_moves(state)
    assert (state.to_bytes(), state.backend.history_size()) == before


def test_the_default_skips_futile_moves_and_search_keeps_them():
    state = issue_position()
    futile = set(futile_moves(state))
    by_default = ISMCTSBot(iterations=300, seed=0).analyse(state)
    assert [m.move.text for m in by_default.moves] == ["end"]
    searching = ISMCTSBot(iterations=300, seed=0, futile_moves="search").analyse(state)
    assert futile <= {m.move.code for m in searching.moves}


def test_the_default_search_does_not_move_straight_back():
    state = issue_position(ap=3)
    state.apply("move b1-b2")
    result = ISMCTSBot(iterations=300, seed=0).analyse(state)
    assert "move b2-b1" not in {m.move.text for m in result.moves}


def test_a_root_of_futile_moves_only_is_searched_whole(monkeypatch):
    state = issue_position()
    every_move = SimpleNamespace(futile_moves=lambda s: [m.code for m in s.legal_moves()])
    monkeypatch.setattr(bots, "find_plugin", lambda name: every_move)
    result = ISMCTSBot(iterations=200, seed=0, futile_moves="skip").analyse(state)
    assert len(result.moves) == len(state.legal_moves())


def test_a_wrong_futile_setting_is_one_clear_error():
    with pytest.raises(SettingError, match="'futile_moves' must be one of search, skip"):
        ISMCTSBot(futile_moves="never")


def test_the_flood_count_tells_futile_floods_apart():
    """bench/flood_waste.py: self-play that skips futile Floods plays none;
    the search that does not skip them plays some on seed 5's turn 1."""
    flood_waste = bench_script("flood_waste")
    skipping = flood_waste.play("ismcts:iterations=300,futile_moves=skip", 5)
    assert skipping and not any(flood.futile for flood in skipping)
    searching = flood_waste.play("ismcts:iterations=300,futile_moves=search", 5)
    assert any(flood.futile and not flood.hit for flood in searching)


def test_the_wasted_action_count_tells_the_rule_apart():
    """bench/wasted_actions.py, seed 2 at 30 iterations: the search that keeps
    futile moves wastes Floods and moves back, the default does neither."""
    wasted = bench_script("wasted_actions")
    searching = wasted.play("beginner", "futile_moves=search", 2)
    assert searching["flood wasted"] and searching["move-then-undo pairs"]
    skipping = wasted.play("beginner", "futile_moves=skip", 2)
    assert skipping["flood fired"]
    assert not skipping["flood wasted"] and not skipping["move-then-undo pairs"]


def test_a_pair_is_a_move_and_its_reverse():
    wasted = bench_script("wasted_actions")
    assert wasted.undoes("move b2-b1", "move b1-b2")
    assert not wasted.undoes("move b2-b1", "move b1-c1")
    assert not wasted.undoes(None, "move b1-b2")
    assert not wasted.undoes("end", "move b1-b2")


def test_the_turn_depth_rows_compare_the_rules():
    """bench/turn_depth.py: one row per futile-move rule and budget, the
    turns a descent reached at most bounding their mean."""
    from xenophon.lab.benchmarks import load_positions

    turn_depth = bench_script("turn_depth")
    rows = turn_depth.position_rows(load_positions()[0], [50])
    assert [row["futile_moves"] for row in rows] == ["search", "skip"]
    assert all(0 <= row["mean_turns"] <= row["most_turns"] for row in rows)
