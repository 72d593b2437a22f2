"""One notation for every action of both games: parse(format(m)) == m for every
legal move and chance outcome met in random games, and bad input raises
NotationError or IllegalMoveError with a message a player understands."""

import random

import pytest

from hero_decks import PAIRINGS
from xenophon.anabasis import Game as AnabasisGame
from xenophon.hero import Game as HeroGame
from xenophon.kernel.errors import IllegalMoveError, NotationError
from xenophon.kernel.game import Move

GAMES = {
    "anabasis": lambda seed: AnabasisGame(seed=seed),
    "anabasis-expert": lambda seed: AnabasisGame(mode="expert", seed=seed),
    "hero": lambda seed: HeroGame(seed=seed),
    "hero-queen-sage": lambda seed: HeroGame(decks=PAIRINGS["queen-sage"], seed=seed),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_legal_move_round_trips(name):
    checked = 0
    for seed in range(6):
        game = GAMES[name](seed)
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            moves = (
                [m for m, _ in state.chance_outcomes()]
                if state.is_chance()
                else state.legal_moves()
            )
            for move in moves:
                assert state.parse_code(move.text) == move.code, move.text
                assert state.move(move.text) == move
            checked += len(moves)
            pick = state.sample_chance(rng) if state.is_chance() else rng.choice(moves)
            assert state.apply(pick.text) == pick
    assert checked > 1000


def test_move_repr_and_equality():
    assert repr(Move(0, "end")) == "Move('end')"
    assert Move(5, "a") == Move(5, "b") and str(Move(5, "a")) == "a"


@pytest.mark.parametrize(
    "name,text,error,fragment",
    [
        ("anabasis", "jump c2", NotationError, "unknown move 'jump'"),
        ("anabasis", "move c2c3", NotationError, "move c2-c3"),
        ("anabasis", "buy Unicorn", NotationError, "unknown card 'Unicorn'"),
        ("anabasis", "move c2-c3", IllegalMoveError, "not legal now"),
        ("anabasis", "ready h9", NotationError, "not a square"),
        ("hero", "deploy Unicorn front", NotationError, "Unicorn"),
        ("hero", "fly away", NotationError, "fly"),
        ("hero", "attack F1 > avatar", IllegalMoveError, "not legal"),
    ],
)
def test_bad_input_is_explained(name, text, error, fragment):
    game = GAMES[name](1)
    state = game.new_initial_state()
    state.resolve_chance(game.rng)
    with pytest.raises(error) as caught:
        state.apply(text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("game", ["anabasis", "hero"])
def test_kind_numbers_are_the_cores(game):
    """The notation's kinds are the C core's, one for one, and every kind the
    core names formats to text whose first word parses back to that kind."""
    import importlib

    core = getattr(importlib.import_module("xenophon._core"), game)
    notation = importlib.import_module(f"xenophon.{game}.notation")
    names = (
        notation.KIND_NAMES.values()
        if isinstance(notation.KIND_NAMES, dict)
        else notation.KIND_NAMES
    )
    assert {name: getattr(notation, name) for name in names} == core.KINDS


def test_protocol_constants_are_the_cores():
    from xenophon._core import anabasis, hero
    from xenophon.kernel import codes, game

    assert game.CHANCE == codes.CHANCE == anabasis.CHANCE == hero.CHANCE
    assert game.TERMINAL == codes.TERMINAL == anabasis.TERMINAL == hero.TERMINAL
    assert codes.decode(codes.encode(15, 63, 1)) == (15, 63, 1)
    with pytest.raises(ValueError):
        codes.encode(16, 0, 0)
