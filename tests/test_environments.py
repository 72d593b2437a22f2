"""The reinforcement-learning environments (xenophon.rl, docs/tensors.md):
PettingZoo's api_test on the AEC environment and Gymnasium's check_env on
the single-agent one, for both games, and whole games played through them."""

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from conftest import GAME_NAMES
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.registry import make_game
from xenophon.play.levels import LevelBot
from xenophon.rl.aec import AGENTS, env
from xenophon.rl.single import XenophonEnv

GAMES = GAME_NAMES


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test_passes(name):
    api_test(env(make_game(name, seed=1)), num_cycles=1000)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("tensor", ["information_state", "observation"])
def test_a_whole_game_through_the_aec_environment(name, tensor):
    e = env(name, tensor=tensor)
    e.reset(seed=3)
    rng = random.Random(3)
    steps, final = 0, {}
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        assert e.observation_space(agent).contains(observation)
        if termination:
            final[agent] = reward
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert list(legal) == e.state_.legal_actions()
        player = AGENTS.index(agent)
        core = getattr(e.state_.backend, f"{tensor}_tensor")(player)
        assert np.array_equal(observation["observation"], core)
        e.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 10
    assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="not a legal code"):
        e.reset(seed=3)
        e.step(0xFFFF)


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env_passes_against_a_level(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env reports its findings as warnings
        check_env(XenophonEnv(make_game(name, seed=1), opponent="beginner"), skip_render_check=True)


@pytest.mark.parametrize("name", GAMES)
def test_a_whole_episode_against_greedy(name):
    e = XenophonEnv(name, opponent="greedy", seat=None, tensor="observation")
    seats = set()
    for seed in (1, 2):
        observation, info = e.reset(seed=seed)
        seats.add(e.seat)
        terminated = False
        while not terminated:
            assert e.state.current_player == e.seat
            assert e.observation_space.contains(observation)
            action = e.action_space.sample(info["action_mask"])
            observation, reward, terminated, truncated, info = e.step(action)
            assert not truncated and not info["illegal"]
        assert reward == e.state.returns()[e.seat] and reward in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}


def test_an_illegal_action_loses_and_bad_settings_are_refused():
    e = XenophonEnv("hero", opponent="random")
    e.reset(seed=5)
    observation, reward, terminated, truncated, info = e.step(0xFFFF)
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError):
        e.step(0)
    with pytest.raises(XenophonError):
        XenophonEnv("hero", opponent="nobody")
    with pytest.raises(XenophonError):
        XenophonEnv("hero", tensor="pixels")
    with pytest.raises(ValueError):
        XenophonEnv("hero", seat=2)


@pytest.mark.parametrize("name", GAMES)
def test_a_level_plays_the_other_seat(name, monkeypatch):
    calls = []
    choose = LevelBot.choose
    monkeypatch.setattr(
        LevelBot, "choose", lambda bot, state: calls.append(1) or choose(bot, state)
    )
    e = XenophonEnv(name, opponent="beginner", seat=1)
    e.reset(seed=6)
    assert isinstance(e.opponent, LevelBot) and calls
    assert e.state.current_player == 1
