"""`suggest` and `analyse` say the same share of worlds for the move they
both put first (issue 66 item 2): the share is of the worlds whose own
search puts the move first among all moves, whatever number of moves is
shown (suggest shows one)."""

import random

from xenophon.kernel.registry import make_game
from xenophon.play.explain import explain_search
from xenophon.play.players import make_bot


def a_decision(game_name, seed, steps):
    """A position of a random game after `steps` steps, a player to move
    with several legal moves."""
    state = make_game(game_name, seed=seed).new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        move = state.sample_chance(rng) if state.is_chance() else rng.choice(state.legal_moves())
        state.apply(move)
    while state.is_chance() or len(state.legal_moves()) < 4:
        move = state.sample_chance(rng) if state.is_chance() else rng.choice(state.legal_moves())
        state.apply(move)
    return state


def test_the_first_moves_share_is_the_same_with_one_move_shown_or_five():
    state = a_decision("hero", 5, 40)
    seat = state.current_player
    result = make_bot("ismcts:iterations=400", seed=1).analyse(state)
    shares = [
        explain_search(state, seat, result, worlds=12, top=top).moves[0].best_share
        for top in (1, 5)
    ]
    assert shares[0] == shares[1]
    assert shares[0] < 1  # the position is one where the worlds disagree
