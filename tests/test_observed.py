"""What each seat is shown (State.observed_by): the rules of each spec's
"What each player sees", checked on random games of both games."""

from __future__ import annotations

import random

import pytest

from conftest import GAME_NAMES
from xenophon.kernel.registry import make_game

GAMES = GAME_NAMES


def random_lines(game_name: str, seed: int, length: int):
    """(state before, code) along a random game, uniformly chosen moves."""
    rng = random.Random(seed)
    state = make_game(game_name, seed=seed).new_initial_state()
    for _ in range(length):
        if state.is_terminal():
            return
        if state.is_chance():
            code = state.sample_chance(rng).code
        else:
            code = rng.choice(state.legal_actions())
        yield state, code
        state.apply_code(code)


def views_after(state, codes, seat):
    """{code: (seat's information-set key, full hash) after it}."""
    views = {}
    for code in codes:
        state.apply_code(code)
        views[code] = (state.information_set_key(seat), state.hash())
        state.undo()
    return views


@pytest.mark.parametrize("game_name", GAMES)
def test_a_seat_sees_its_own_decisions(game_name):
    for state, code in random_lines(game_name, 1, 400):
        if not state.is_chance():
            assert state.observed_by(code, state.current_player)


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seed", [2, 3])
def test_what_a_seat_is_shown_it_can_tell_apart(game_name, seed):
    # an action or outcome shown to a seat leaves it in another information
    # set than any other one would, unless both end in the same state (a hit
    # and a critical hit that both destroy the target); own decisions aside
    checked = 0
    for state, code in random_lines(game_name, seed, 300):
        for seat in (0, 1):
            if state.current_player == seat or not state.observed_by(code, seat):
                continue
            views = views_after(state, state.legal_actions(), seat)
            key, full = views[code]
            alike = [other for other, view in views.items() if view[0] == key and view[1] != full]
            assert not alike, (state.format_code(code), seat)
            checked += 1
    assert checked > 100


def test_anabasis_hides_what_the_rules_hide():
    # §9.1: an event set face down, a starting event dealt, a card drawn
    hidden_kinds = set()
    for state, code in random_lines("anabasis", 4, 600):
        text = state.format_code(code)
        for viewer in (0, 1):
            if not state.observed_by(code, viewer):
                hidden_kinds.add(text.split()[0])
                assert viewer != state.current_player
    assert hidden_kinds == {"set", "deal", "draw"}


def test_hero_hides_only_the_other_seats_draws():
    # §11.1: every decision is public; a draw is shown to the drawer alone
    draws = 0
    for state, code in random_lines("hero", 5, 600):
        shown = [state.observed_by(code, viewer) for viewer in (0, 1)]
        if state.is_chance():
            assert sorted(shown) == [False, True]
            draws += 1
        else:
            assert shown == [True, True]
    assert draws > 10


@pytest.mark.parametrize("game_name", GAMES)
def test_observed_by_refuses_an_illegal_code(game_name):
    state = make_game(game_name, seed=0).new_initial_state()
    illegal = max(state.legal_actions()) + 1
    with pytest.raises(ValueError):
        state.observed_by(illegal, 0)
