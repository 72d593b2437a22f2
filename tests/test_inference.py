"""Opponent-move inference (xenophon.search.world_sampling, inference.pyx) and the
belief it gives (xenophon.search.belief)."""

import random

import pytest

from test_fair_play import GAMES, played_positions
from xenophon.kernel.errors import XenophonError
from xenophon.play.players import make_bot
from xenophon.search.belief import InferredWorldDraw, opponent_belief
from xenophon.search.bots import SettingError
from xenophon.search.inference import infer_worlds
from xenophon.search.world_sampling import observation_window, policy_worlds


@pytest.fixture(scope="module", params=sorted(GAMES))
def positions(request):
    return request.param, played_positions(request.param, 6, seed=21)


def test_the_window_leaves_the_position_as_it_was(positions):
    _, states = positions
    for state in states:
        before, history = state.to_bytes(), state.backend.history_size()
        window = observation_window(state, state.current_player)
        assert state.to_bytes() == before and state.backend.history_size() == history
        assert window.steps and window.steps[-1][1] == state.information_set_key(
            state.current_player
        )


def test_a_position_without_history_has_an_empty_window(positions):
    _, states = positions
    state = states[0]
    bare = state.game.state_from_bytes(state.to_bytes())
    assert observation_window(bare, state.current_player).steps == []


def test_policy_worlds_are_in_the_searchers_information_set(positions):
    _, states = positions
    for state in states:
        searcher = state.current_player
        worlds = policy_worlds(state, searcher, 64, seed=2)
        assert worlds.states and sum(worlds.weights) == pytest.approx(1)
        for data in worlds.states:
            world = state.game.state_from_bytes(data)
            assert world.information_set_key(searcher) == state.information_set_key(searcher)


def test_a_contradicted_window_gives_no_world(positions):
    """A shown code that is illegal at its step rules every world out."""
    _, states = positions
    state = states[0]
    searcher = state.current_player
    window = observation_window(state, searcher)
    api, tables = state.game.search_interface()
    steps = [(0xFFFF, key) for _, key in window.steps[:1]] + window.steps[1:]
    assert infer_worlds(api, tables, window.start, steps, searcher, 16, "uniform", 1.0, 1) == (
        [],
        [],
    )
    with pytest.raises(ValueError, match="likelihood model"):
        infer_worlds(api, tables, window.start, steps, searcher, 16, "psychic", 1.0, 1)


def test_belief_is_a_distribution_over_the_hidden_cards(positions):
    name, states = positions
    for state in states:
        player = state.current_player
        opponent = state.to_dict()["players"][1 - player]
        face_down = {
            f"slot {i + 1}"
            for i, slot in enumerate(opponent.get("slots", []))
            if slot and not slot["face_up"]
        }
        for sampler in ("uniform", "policy"):
            belief = opponent_belief(state, sampler=sampler, worlds=200, seed=4)
            assert set(belief) - {"hand"} == face_down
            assert ("hand" in belief) == bool(opponent["hand"])
            assert all(0 < p <= 1 + 1e-9 for p in belief.get("hand", {}).values())
            for place in face_down:
                assert sum(belief[place].values()) == pytest.approx(1)


def test_uniform_belief_counts_the_uniform_worlds(positions):
    _, states = positions
    state = states[0]
    player = state.current_player
    belief = opponent_belief(state, sampler="uniform", worlds=50, seed=8)
    rng = random.Random(8)
    held = [state.resample(player, rng).to_dict()["players"][1 - player]["hand"] for _ in range(50)]
    for card, probability in belief.get("hand", {}).items():
        assert probability == pytest.approx(sum(card in h for h in held) / 50)


def test_policy_sampler_draws_the_inferred_worlds(positions):
    _, states = positions
    state = states[0]
    player = state.current_player
    inferred = set(policy_worlds(state, player, 64, seed=0).states)
    sampler = InferredWorldDraw(particles=64, seed=0)
    rng = random.Random(2)
    for _ in range(20):
        world, weight = sampler(state, player, rng)
        assert world.to_bytes() in inferred and weight == 1.0


def test_inference_moves_the_belief_somewhere():
    """Across positions of both games the opponent's observed moves make
    some hidden cards more or less likely than uniform sampling says."""
    moved = 0
    for name in sorted(GAMES):
        for state in played_positions(name, 4, seed=31):
            uniform = opponent_belief(state, sampler="uniform", worlds=400, seed=1)
            policy = opponent_belief(state, sampler="policy", worlds=400, seed=1)
            moved += any(
                abs(policy[place].get(card, 0) - p) > 0.15
                for place in uniform
                for card, p in uniform[place].items()
            )
    assert moved >= 2


def test_belief_refuses_a_bad_request(positions):
    _, states = positions
    with pytest.raises(XenophonError, match="sampler"):
        opponent_belief(states[0], sampler="magic")
    with pytest.raises(XenophonError, match="player 0 or 1"):
        opponent_belief(states[0], player=2)


def test_sampler_settings_in_a_bot_spec():
    bot = make_bot("ismcts:iterations=50,sampler=policy,likelihood=uniform,particles=32", 1)
    assert (bot.sampler, bot.likelihood, bot.particles) == ("policy", "uniform", 32)
    with pytest.raises(SettingError, match="'sampler' must be one of uniform, policy"):
        make_bot("ismcts:sampler=oracle", 1)
    with pytest.raises(SettingError, match="particles"):
        make_bot("ismcts:particles=0", 1)


def test_policy_bot_plays_a_game(positions):
    name, _ = positions
    [state] = played_positions(name, 1, seed=41)
    bot = make_bot("ismcts:iterations=100,sampler=policy,particles=32", 3)
    rng = random.Random(1)
    for _ in range(30):
        if state.is_terminal():
            break
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
        else:
            state.apply_code(bot.choose(state).code)
