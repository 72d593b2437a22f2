"""Futile root moves (issue 47's wasted Flood): the moves a game names as
spending a card for nothing (GamePlugin.futile_moves), which a search with
`futile_moves=skip` (not the default) leaves out of its root unless every
legal move is one (docs/search.md, "Wasted Floods")."""

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


def issue_position(grid: dict | None = None, slot_card: str = "Flood Disaster"):
    """The issue's position, with characters added to the grid (square:
    (card, owner)) and another card face down in slot 3 if told."""
    data = json.loads(ISSUE_POSITION.read_text())
    data["players"][0]["slots"][2] = {"card": slot_card, "face_up": False}
    ready_militia = data["grid"]["b1"]  # seat 0's, undamaged
    for square, (card, owner) in (grid or {}).items():
        data["grid"][square] = dict(ready_militia, card=card, owner=owner)
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
    state = issue_position(slot_card="Rally")
    assert any(m.text.startswith("event 3") for m in state.legal_moves())
    assert futile_moves(state) == []


def test_skip_leaves_futile_floods_out_of_the_root_and_the_default_does_not():
    state = issue_position()
    futile = set(futile_moves(state))
    skipping = ISMCTSBot(iterations=300, seed=0, futile_moves="skip").analyse(state)
    assert [m.move.text for m in skipping.moves] == ["end"]
    by_default = ISMCTSBot(iterations=300, seed=0).analyse(state)
    assert futile <= {m.move.code for m in by_default.moves}


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
    searching = flood_waste.play("ismcts:iterations=300", 5)
    assert any(flood.futile and not flood.hit for flood in searching)
