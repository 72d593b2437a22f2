"""OpenSpiel interop: random games played through OpenSpiel's API agree with
our own API, for the Python-registered games and for the native C++ games;
OpenSpiel's ISMCTS (Python and C++) plays them."""

import random
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (pip install 'xenophon[openspiel]')"
)

from conftest import GAME_NAMES  # noqa: E402
from xenophon.interop import native  # noqa: E402
from xenophon.interop import openspiel as interop  # noqa: E402
from xenophon.kernel.registry import make_game  # noqa: E402

GAMES = GAME_NAMES
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"


def random_code(spiel_state, rng):
    if spiel_state.is_chance_node():
        codes, weights = zip(*spiel_state.chance_outcomes())
        return rng.choices(codes, weights=weights)[0]
    return rng.choice(spiel_state.legal_actions())


def play_alongside(spiel_state, ours, rng, check, every=1):
    """Plays random codes on both states to the end, calling check every `every` steps."""
    step = 0
    while not ours.is_terminal():
        if step % every == 0:
            check(spiel_state, ours)
        code = random_code(spiel_state, rng)
        spiel_state.apply_action(code)
        ours.apply_code(code)
        step += 1
    check(spiel_state, ours)
    assert spiel_state.is_terminal()
    return step


def assert_same_node(spiel_state, ours):
    assert spiel_state.current_player() == ours.current_player
    assert spiel_state.is_chance_node() == ours.is_chance()
    assert spiel_state.returns() == ours.returns()
    if ours.is_chance():
        assert spiel_state.chance_outcomes() == [(m.code, p) for m, p in ours.chance_outcomes()]
    elif not ours.is_terminal():
        assert spiel_state.legal_actions() == ours.legal_actions()


def check_tensors(spiel_state, ours, resample_seed: int) -> int:
    """OpenSpiel's tensors of both players equal the core's, and a world
    resampled for the player to move has its information-state tensor; the
    player to move (negative: chance or the end)."""
    for player in (0, 1):
        info = np.asarray(spiel_state.information_state_tensor(player), dtype=np.float32)
        assert np.array_equal(info, ours.backend.information_state_tensor(player))
        obs = np.asarray(spiel_state.observation_tensor(player), dtype=np.float32)
        assert np.array_equal(obs, ours.backend.observation_tensor(player))
    player = ours.current_player
    if player >= 0:
        world = spiel_state.resample_from_infostate(player, random.Random(resample_seed).random)
        assert world.information_state_tensor(player) == spiel_state.information_state_tensor(
            player
        )
    return player


@pytest.mark.parametrize("name", GAMES)
def test_python_game_agrees_with_our_api(name):
    game = pyspiel.load_game(interop.GAME_NAMES[name])
    assert game.get_type().short_name == interop.GAME_NAMES[name]
    assert game.num_players() == 2 and game.num_distinct_actions() == 1 << 16

    def check(spiel_state, ours):
        assert_same_node(spiel_state, ours)
        xstate = spiel_state.xstate
        assert xstate.to_dict() == ours.to_dict()
        for player in (0, 1):
            key = f"{ours.information_set_key(player):016x}"
            assert spiel_state.information_state_string(player) == key
            assert spiel_state.observation_string(player) == key
        if ours.current_player >= 0:
            code = ours.legal_actions()[0]
            assert spiel_state.action_to_string(ours.current_player, code) == ours.format_code(code)
            player = ours.current_player
            world = spiel_state.resample_from_infostate(player, random.Random(5).random)
            assert world.information_state_string(player) == spiel_state.information_state_string(
                player
            )
            assert world.legal_actions() == spiel_state.legal_actions()

    for seed in range(2):
        ours = game.xgame.new_initial_state()
        play_alongside(game.new_initial_state(), ours, random.Random(seed), check, every=7)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_simulation_test(name):
    pyspiel.random_sim_test(
        pyspiel.load_game(interop.GAME_NAMES[name]), num_sims=1, serialize=False, verbose=False
    )


@pytest.mark.parametrize("name", GAMES)
def test_python_game_serves_the_cores_tensors(name):
    """Both tensors are provided, of the layout's sizes, the core's own
    (docs/tensors.md), named block by block in the observer's dict, and kept
    by OpenSpiel's resampling."""
    game = pyspiel.load_game(interop.GAME_NAMES[name])
    kind = game.get_type()
    assert kind.provides_information_state_tensor and kind.provides_observation_tensor
    tables = game.xgame.tables
    assert game.information_state_tensor_shape() == [tables.tensor_size("information_state")]
    assert game.observation_tensor_shape() == [tables.tensor_size("observation")]
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert list(observer.dict) == [block for block, *_ in tables.tensor_layout]

    def check(spiel_state, ours):
        player = check_tensors(spiel_state, ours, resample_seed=3)
        if player >= 0:
            observer.set_from(spiel_state, player)
            assert np.array_equal(observer.tensor, ours.backend.information_state_tensor(player))

    ours = game.xgame.new_initial_state()
    play_alongside(game.new_initial_state(), ours, random.Random(1), check, every=11)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_rl_environment_sees_the_tensors(name):
    """OpenSpiel's RL environment (what its DQN, NFSP and policy-gradient
    agents step) plays a whole game, its observations the tensors."""
    from absl import logging as absl_logging
    from open_spiel.python import rl_environment

    # absl's handler keeps the stderr it first saw, this test's captured one:
    # later tests that log would write to a closed file
    absl_logging.get_absl_handler().python_handler.stream = sys.__stderr__
    env = rl_environment.Environment(
        pyspiel.load_game(interop.GAME_NAMES[name]),
        chance_event_sampler=rl_environment.ChanceEventSampler(seed=1),
    )
    size = env.game.xgame.tables.tensor_size("information_state")
    assert env.observation_spec()["info_state"] == (size,)
    rng = np.random.RandomState(2)
    time_step = env.reset()
    steps = 0
    while not time_step.last():
        player = time_step.observations["current_player"]
        assert len(time_step.observations["info_state"][player]) == size
        time_step = env.step([rng.choice(time_step.observations["legal_actions"][player])])
        steps += 1
    assert steps > 10 and sorted(time_step.rewards) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("name", GAMES)
def test_python_game_clones_are_independent_and_parameters_load(name):
    xgame = make_game(name, seed=1)
    game = interop.spiel_game(xgame)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(40):
        state.apply_action(random_code(state, rng))
    copy = state.clone()
    before = copy.xstate.to_dict()
    state.apply_action(random_code(state, rng))
    assert copy.xstate.to_dict() == before
    assert copy.history() == state.history()[:-1]
    loaded = pyspiel.load_game(interop.GAME_NAMES[name], game.get_parameters())
    assert loaded.new_initial_state().xstate.to_dict() == xgame.new_initial_state().to_dict()


def test_python_game_parameters():
    game = pyspiel.load_game("python_xenophon_anabasis", {"mode": "expert"})
    assert game.xgame.mode == "expert"
    with pytest.raises(Exception, match="unknown mode"):
        pyspiel.load_game("python_xenophon_anabasis", {"mode": "blitz"})


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_python_ismcts_plays_our_rules(name):
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    xgame = make_game(name, seed=2)
    ours = xgame.new_initial_state()
    ours.resolve_chance(random.Random(2))
    game = interop.spiel_game(xgame)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
        1.0,
        8,
        random_state=np.random.RandomState(1),
    )
    assert bot.step(interop.spiel_state(game, ours)) in ours.legal_actions()


native_reason = native.unavailable_reason()
needs_native = pytest.mark.skipif(native_reason is not None, reason=str(native_reason))


def decode_key(text):
    value = 0
    for char in text:
        value = value * 64 + DIGITS.index(char)
    return value


@needs_native
@pytest.mark.parametrize("name", GAMES)
def test_native_game_agrees_with_our_api(name):
    xgame = make_game(name, seed=1)
    game = native.NativeGame(xgame)

    def check(spiel_state, ours):
        assert_same_node(spiel_state, ours)
        assert spiel_state.serialize() == ours.to_bytes().hex()
        for player in (0, 1):
            key = spiel_state.information_state_string(player)
            assert len(key) == 11 and decode_key(key) == ours.information_set_key(player)
        player = ours.current_player
        if player >= 0:
            world = spiel_state.resample_from_infostate(player, random.Random(7).random)
            assert world.information_state_string(player) == spiel_state.information_state_string(
                player
            )
            assert world.history() == []

    for seed in range(3):
        ours = xgame.new_initial_state()
        play_alongside(game.spiel.new_initial_state(), ours, random.Random(seed), check)
    assert game.state(ours).serialize() == ours.to_bytes().hex()


@needs_native
@pytest.mark.parametrize("name", GAMES)
def test_native_game_serves_the_cores_tensors(name):
    """Both tensors, of the layout's sizes, equal to the core's at every few
    decisions of random games, and kept by OpenSpiel's resampling."""
    xgame = make_game(name, seed=1)
    game = native.NativeGame(xgame)
    kind = game.spiel.get_type()
    assert kind.provides_information_state_tensor and kind.provides_observation_tensor
    assert game.spiel.information_state_tensor_shape() == [
        xgame.tables.tensor_size("information_state")
    ]
    assert game.spiel.observation_tensor_shape() == [xgame.tables.tensor_size("observation")]

    def check(spiel_state, ours):
        check_tensors(spiel_state, ours, resample_seed=5)

    ours = xgame.new_initial_state()
    play_alongside(game.spiel.new_initial_state(), ours, random.Random(2), check, every=7)


@needs_native
@pytest.mark.parametrize("name", GAMES)
def test_native_game_passes_openspiel_random_simulation_test(name):
    game = native.NativeGame(make_game(name))
    pyspiel.random_sim_test(game.spiel, num_sims=2, serialize=True, verbose=False)


@needs_native
def test_native_game_needs_tables():
    native.load()
    with pytest.raises(pyspiel.SpielError, match="tables"):
        pyspiel.load_game("xenophon_hero")


@needs_native
@pytest.mark.parametrize("name", GAMES)
def test_openspiel_cc_ismcts_bot_plays_a_legal_move(name):
    from xenophon.lab.tournament import make_bot

    xgame = make_game(name, seed=4)
    ours = xgame.new_initial_state()
    ours.resolve_chance(random.Random(4))
    for bot in (
        native.OpenSpielISMCTSBot(iterations=50, seed=1),
        native.OpenSpielISMCTSBot(time_limit=0.001, seed=1),
        make_bot("openspiel:iterations=20,c_uct=2", 3),
    ):
        assert bot.choose(ours).code in ours.legal_actions()
