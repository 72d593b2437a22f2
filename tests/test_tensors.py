"""The tensors of both games (docs/tensors.md): over random games, a seat's
information-state tensor is equal for two states exactly when the seat
cannot tell them apart (its information-set key), resampled worlds keep it,
the observation tensor is the information-state tensor without its
remembered blocks; numpy arrays are written in place; Batch steps N games
into one buffer and restarts those that end."""

import importlib
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import GAME_NAMES
from xenophon.kernel.registry import make_game

GAMES = GAME_NAMES
KINDS = ("information_state", "observation")
STEPS = 1500  # random games of either game end within it


def tensor(state, player, kind):
    return getattr(state.backend, f"{kind}_tensor")(player)


def random_states(game, seed, n_games):
    """Every state of n_games uniformly random games (chance by its weights)."""
    rng = random.Random(seed)
    for _ in range(n_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield state
            if state.is_chance():
                codes, weights = zip(*state.chance_probabilities())
                state.apply_code(rng.choices(codes, weights=weights)[0])
            else:
                state.apply_code(rng.choice(state.legal_actions()))
        yield state


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return make_game(request.param, seed=1)


def test_the_layout_tiles_the_tensors(game):
    layout = game.tables.tensor_layout
    offset = 0
    for _name, start, size, _remembered in layout:
        assert start == offset and size > 0
        offset += size
    assert offset == game.tables.tensor_size("information_state")
    seen = sum(size for *_, size, remembered in layout if not remembered)
    assert seen == game.tables.tensor_size("observation")
    assert any(remembered for *_, remembered in layout)
    assert len({name for name, *_ in layout}) == len(layout)


def test_information_state_tensor_is_equal_exactly_when_the_key_is(game):
    """Both ways, for both seats: one tensor per key and one key per tensor."""
    by_key, by_tensor = {}, {}
    for state in random_states(game, seed=3, n_games=4):
        for player in (0, 1):
            key = (player, state.information_set_key(player))
            data = tensor(state, player, "information_state").tobytes()
            assert by_key.setdefault(key, data) == data
            assert by_tensor.setdefault(data, key) == key
    assert len(by_key) > 1000


def test_resampled_worlds_keep_the_seats_tensors(game):
    """Worlds redrawn from a seat's information (the search's sampler) give
    it the same tensors; where the redraw changed what the other seat holds,
    the other seat's information-state tensor tells."""
    rng = random.Random(7)
    other_differs = 0
    for i, state in enumerate(random_states(game, seed=5, n_games=2)):
        if i % 3:
            continue
        for player in (0, 1):
            world = state.resample(player, rng)
            for kind in KINDS:
                assert np.array_equal(tensor(world, player, kind), tensor(state, player, kind))
            if world.information_set_key(1 - player) != state.information_set_key(1 - player):
                other_differs += 1
                assert not np.array_equal(
                    tensor(world, 1 - player, "information_state"),
                    tensor(state, 1 - player, "information_state"),
                )
    assert other_differs > 10


def test_the_observation_is_the_information_state_without_what_is_remembered(game):
    seen = np.concatenate(
        [
            np.arange(start, start + size)
            for _, start, size, remembered in game.tables.tensor_layout
            if not remembered
        ]
    )
    for i, state in enumerate(random_states(game, seed=9, n_games=1)):
        if i % 5:
            continue
        for player in (0, 1):
            full = tensor(state, player, "information_state")
            assert np.array_equal(tensor(state, player, "observation"), full[seen])


def test_the_observation_differs_where_what_the_seat_sees_differs(game):
    """Along a game, every action that changes what a seat sees (the
    information-state tensor outside its remembered blocks) changes its
    observation tensor; and some actions change it."""
    remembered = np.zeros(game.tables.tensor_size("information_state"), dtype=bool)
    for _, start, size, flag in game.tables.tensor_layout:
        remembered[start : start + size] = flag
    changes = 0
    previous = None
    for state in random_states(game, seed=11, n_games=1):
        now = [
            (tensor(state, p, "information_state"), tensor(state, p, "observation")) for p in (0, 1)
        ]
        if previous is not None:
            for (full0, obs0), (full1, obs1) in zip(previous, now):
                sees_change = not np.array_equal(full0[~remembered], full1[~remembered])
                assert sees_change == (not np.array_equal(obs0, obs1))
                changes += sees_change
        previous = now
    assert changes > 50


def test_the_tensor_is_seat_relative(game):
    """Seat 1's tensor differs from seat 0's at the start only in what is
    the seat's own (the first block names the seat)."""
    state = next(iter(random_states(game, seed=1, n_games=1)))
    zero, one = (tensor(state, p, "information_state") for p in (0, 1))
    assert zero[0] == 0.0 and one[0] == 1.0


def test_a_given_array_is_written_in_place(game):
    state = game.new_initial_state()
    for kind in KINDS:
        out = np.full(game.tables.tensor_size(kind), -1.0, dtype=np.float32)
        result = getattr(state.backend, f"{kind}_tensor")(1, out)
        assert np.shares_memory(result, out)
        assert np.array_equal(out, tensor(state, 1, kind))
        for bad in (
            np.zeros(out.size, dtype=np.float64),
            np.zeros(out.size + 1, dtype=np.float32),
            np.zeros(2 * out.size, dtype=np.float32)[::2],
        ):
            with pytest.raises(ValueError):
                getattr(state.backend, f"{kind}_tensor")(1, bad)
    with pytest.raises(ValueError):
        state.backend.observation_tensor(2)


@pytest.mark.parametrize("kind", KINDS)
def test_batch_steps_games_into_one_buffer_and_restarts_them(game, kind):
    core = type(game.new_initial_state().backend)
    batch = importlib.import_module(core.__module__).Batch(game.tables, 8, 123, kind)
    rng = np.random.default_rng(0)
    ended = 0
    tensors = batch.tensors
    for _ in range(STEPS):
        pick = (rng.random(8) * batch.n_legal).astype(np.int64)
        actions = batch.legal[np.arange(8), pick]
        batch.step(actions)
        assert batch.tensors is tensors or np.shares_memory(batch.tensors, tensors)
        for i in range(8):
            state = core.from_bytes(game.tables, batch.state_bytes(i))
            player = int(batch.players[i])
            assert player == state.current_player() and player in (0, 1)
            assert list(batch.legal[i, : batch.n_legal[i]]) == state.legal_actions()
            expected = getattr(state, f"{kind}_tensor")(player)
            assert np.array_equal(batch.tensors[i], expected)
            if batch.dones[i]:
                ended += 1
                assert batch.rewards[i].sum() == 0 and abs(batch.rewards[i][0]) <= 1
                assert state.turn() <= 1  # a new game
            else:
                assert not batch.rewards[i].any()
    assert ended > 0
    with pytest.raises(ValueError, match="game 0: illegal"):
        batch.step(np.full(8, 0xFFFF))
    with pytest.raises(ValueError):
        batch.step(np.zeros(3, dtype=np.int64))


def test_a_batchs_arrays_are_read_only_and_its_legality_its_own(game):
    """The rows' one-hot planes are cleared where the last write set them,
    not whole (tensor.h, "Marks"), and an action is checked against the
    codes the batch listed: so the arrays cannot be changed from Python."""
    core = importlib.import_module(type(game.new_initial_state().backend).__module__)
    batch = core.Batch(game.tables, 4, 5, "observation")
    for array in (batch.tensors, batch.legal, batch.n_legal, batch.players, batch.rewards):
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array.flat[0] = 1
    codes = [set(batch.legal[i, : batch.n_legal[i]]) for i in range(4)]
    others = sorted(set.union(*codes[1:]) - codes[0])
    if others:  # a code legal in another game only
        actions = batch.legal[:, 0].astype(np.int64)
        actions[0] = others[0]
        with pytest.raises(ValueError, match="game 0: illegal"):
            batch.step(actions)


def test_batch_threads_step_the_same_games(game):
    """Each game has its own generator: splitting the batch over threads
    changes nothing of what is played."""
    core = importlib.import_module(type(game.new_initial_state().backend).__module__)
    batches = [core.Batch(game.tables, 5, 9, "observation", threads) for threads in (1, 2, 3)]
    rng = np.random.default_rng(2)
    for _ in range(300):
        first = batches[0]
        actions = first.legal[np.arange(5), (rng.random(5) * first.n_legal).astype(np.int64)]
        for batch in batches:
            batch.step(actions)
        for batch in batches[1:]:
            assert np.array_equal(batch.tensors, first.tensors)
            assert np.array_equal(batch.dones, first.dones)
            assert np.array_equal(batch.rewards, first.rewards)
    with pytest.raises(ValueError, match="threads"):
        core.Batch(game.tables, 5, 9, "observation", 0)
    with pytest.raises(ValueError, match="unknown tensor"):
        core.Batch(game.tables, 5, 9, "pixels")


def test_the_throughput_bench_runs(tmp_path):
    """bench/tensor_throughput.py measures every setting of both games (how
    fast is its own business: docs/tensors.md gives the figures)."""
    out = tmp_path / "throughput.json"
    bench = Path(__file__).resolve().parents[1] / "bench" / "tensor_throughput.py"
    args = ["--seconds", "0.05", "--rounds", "1", "--batch", "4", "--out", str(out)]
    subprocess.run([sys.executable, str(bench), *args], check=True, capture_output=True)
    results = json.loads(out.read_text())
    assert set(results["games"]) == set(GAMES)
    for row in results["games"].values():
        assert row["xenophon-batched"] > 0 and row["xenophon-batched / openspiel-py"] > 0
