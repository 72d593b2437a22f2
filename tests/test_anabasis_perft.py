"""Perft: leaf counts of the Anabasis action tree (chance expanded) from fixed
positions, pinned in tests/data/anabasis.perft.json, for the C core and the
oracle. A mismatch prints the count of every first move."""
import json
from pathlib import Path

import pytest

from xenophon.anabasis import Game
from xenophon.reference.anabasis import perft as oracle_perft

POSITIONS = json.loads((Path(__file__).parent / "data" / "anabasis.perft.json").read_text())


def replayed(entry, engine):
    game = Game(mode=entry["mode"], engine=engine)
    state = game.new_initial_state()
    for move in entry["moves"]:
        state.apply(move)
    return state


def per_move_difference(expected, found):
    lines = [f"  {move}: expected {expected.get(move)}, found {found.get(move)}"
             for move in sorted(set(expected) | set(found)) if expected.get(move) != found.get(move)]
    return "\n".join(lines)


@pytest.mark.parametrize("entry", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_core_perft(entry):
    state = replayed(entry, "c")
    found = {}
    for move in state.legal_moves():
        state.apply_code(move.code)
        found[move.text] = state.backend.perft(entry["depth"] - 1)
        state.undo()
    assert found == entry["per_move"], "\n" + per_move_difference(entry["per_move"], found)
    assert state.backend.perft(entry["depth"]) == entry["total"]


@pytest.mark.parametrize("entry", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_oracle_perft(entry):
    state = replayed(entry, "oracle")
    assert oracle_perft(state.backend, entry["depth"]) == entry["total"]
