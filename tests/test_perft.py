"""Perft: leaf counts of each game's action tree (chance expanded) from fixed
positions, pinned in tests/data/<game>.perft.json, for the C core and the
oracle. A mismatch prints the count of every first move."""

import json
from pathlib import Path

import pytest

from hero_decks import PAIRINGS
from xenophon.anabasis import Game as AnabasisGame
from xenophon.anabasis.oracle import perft as anabasis_oracle_perft
from xenophon.hero import Game as HeroGame
from xenophon.hero.oracle import perft as hero_oracle_perft

DATA = Path(__file__).parent / "data"


def anabasis_game(entry, engine):
    return AnabasisGame(mode=entry["mode"], engine=engine)


def hero_game(entry, engine):
    return HeroGame(decks=PAIRINGS[entry["pairing"]], engine=engine)


GAMES = {"anabasis": (anabasis_game, anabasis_oracle_perft), "hero": (hero_game, hero_oracle_perft)}
CASES = [
    (name, entry)
    for name in GAMES
    for entry in json.loads((DATA / f"{name}.perft.json").read_text())
]
IDS = [f"{name}-{entry['name']}" for name, entry in CASES]


def replayed(name, entry, engine):
    state = GAMES[name][0](entry, engine).new_initial_state()
    for move in entry["moves"]:
        state.apply(move)
    return state


def per_move_difference(expected, found):
    return "\n".join(
        f"  {move}: expected {expected.get(move)}, found {found.get(move)}"
        for move in sorted(set(expected) | set(found))
        if expected.get(move) != found.get(move)
    )


@pytest.mark.parametrize("name,entry", CASES, ids=IDS)
def test_core_perft(name, entry):
    state = replayed(name, entry, "c")
    found = {}
    for move in state.legal_moves():
        state.apply_code(move.code)
        found[move.text] = state.backend.perft(entry["depth"] - 1)
        state.undo()
    assert found == entry["per_move"], "\n" + per_move_difference(entry["per_move"], found)
    assert state.backend.perft(entry["depth"]) == entry["total"]


@pytest.mark.parametrize("name,entry", CASES, ids=IDS)
def test_oracle_perft(name, entry):
    state = replayed(name, entry, "oracle")
    assert GAMES[name][1](state.backend, entry["depth"]) == entry["total"]
