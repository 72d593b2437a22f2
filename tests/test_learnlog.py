"""Self-play logging of the learning loop (xenophon.lab.learnlog): what a
decision logs reads only what its player knows, a shard holds the search's
answer and the result, and an interrupted log resumes without losing or
repeating a game."""

from types import SimpleNamespace

import numpy as np
import pytest

from test_search import GAMES, twin_positions
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.jobs import read_results, results_header, run_jobs
from xenophon.lab.learnlog import (
    COMMAND,
    INDEX_NAME,
    KEYS,
    LogError,
    decision_view,
    log_jobs,
    logged_game,
    network_inputs,
    read_log,
    read_shard,
    write_shard,
)

BOT, DEEP = "ismcts:iterations=60", "ismcts:iterations=120"


def config(folder):
    return {
        "game": "hero",
        "options": {},
        "bot": BOT,
        "deep_bot": DEEP,
        "explore": 4,
        "deep_share": 0.25,
        "folder": str(folder),
    }


def run(folder, seeds, resume=False):
    header_config = {k: v for k, v in config(folder).items() if k != "folder"}
    return run_jobs(
        log_jobs(config(folder), seeds),
        folder / INDEX_NAME,
        command=COMMAND,
        config=header_config,
        resume=resume,
        progress=False,
    )


@pytest.mark.parametrize("game", ["hero", "anabasis"])
def test_twins_the_player_cannot_tell_apart_log_the_same_view(game):
    pairs = twin_positions(GAMES[game], 12, seed=5)
    assert len(pairs) >= 6
    differing_enemies = 0
    for state, twin in pairs:
        player = state.current_player
        seen = [decision_view(s, player, seed=11) for s in (state, twin)]
        for a, b in zip(*seen):
            assert np.array_equal(a, b)
        # the true worlds differ in the other seat's cards: read directly,
        # their inputs would differ, so the test could fail
        true = [s.backend.net_inputs(1 - player) for s in (state, twin)]
        differing_enemies += true[0] != true[1]
    assert differing_enemies >= 3


def test_a_game_logs_every_decision_with_its_search_and_result():
    game = game_from_texts("hero", {}, seed=4)
    arrays, returns = logged_game(game, BOT, DEEP, explore=4, deep_share=0.25, seed=4)
    n = len(arrays["turn"])
    assert n > 20 and set(arrays) == set(KEYS)
    assert arrays["own"].shape == (n, len(game.tables.net_input_names))
    assert arrays["features"].shape == (n, len(game.tables.feature_names))
    searched = np.diff(arrays["move_start"]) > 1
    assert searched.sum() > n // 3
    for i in range(n):
        visits = arrays["move_visits"][arrays["move_start"][i] : arrays["move_start"][i + 1]]
        # a forced move is not searched: one move, no visits
        assert visits.sum() == 60 or (len(visits) == 1 and visits.sum() == 0)
        assert -1 <= arrays["root_value"][i] <= 1
    expected = [(returns[p] + 1) / 2 for p in arrays["player"]]
    assert np.array_equal(arrays["result"], np.asarray(expected, dtype=np.float32))
    deep = ~np.isnan(arrays["deep_value"])
    assert 0 < deep.sum() < n
    assert np.array_equal(arrays["decision"], np.arange(n))


def test_an_interrupted_log_resumes_without_losing_or_repeating_a_game(tmp_path):
    whole, torn = tmp_path / "whole", tmp_path / "torn"
    whole.mkdir()
    torn.mkdir()
    seeds = [1, 2, 3]
    run(whole, seeds)
    first = run(torn, seeds)
    assert first.played == 3
    # an interruption: the last game's row never reached the index, its shard is torn
    index = torn / INDEX_NAME
    lines = index.read_text().splitlines(keepends=True)
    index.write_text("".join(lines[:-1]))
    (torn / "shard-3.npz").write_bytes(b"torn")
    resumed = run(torn, seeds, resume=True)
    assert resumed.played == 1
    assert run(torn, seeds, resume=True).played == 0
    header = results_header(COMMAND, {k: v for k, v in config(torn).items() if k != "folder"})
    rows = [r[0] for r in read_results(index, header, None).values()]
    assert sorted(r["seed"] for r in rows) == seeds
    a, b = read_log(whole, rows), read_log(torn, rows)
    assert len(a["turn"]) == sum(r["positions"] for r in rows)
    for key in KEYS:
        assert np.array_equal(a[key], b[key], equal_nan=key == "deep_value"), key


def test_a_broken_shard_is_one_line(tmp_path):
    path = tmp_path / "shard-1.npz"
    path.write_bytes(b"not a shard")
    with pytest.raises(LogError) as error:
        read_shard(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_a_game_without_raw_inputs_is_refused_in_one_line():
    # every installed game has raw inputs: a stand-in state of one without
    state = SimpleNamespace(backend=object(), game=SimpleNamespace(name="nameless"))
    with pytest.raises(LogError, match="nameless has no raw inputs"):
        network_inputs(state, 0)


def test_leaves_are_the_root_moves_applied_to_the_decisions_world_and_leave_the_game_alone():
    game = lambda: game_from_texts("hero", {}, seed=3)  # noqa: E731
    plain, returns = logged_game(game(), BOT, DEEP, 4, 0.25, seed=3)
    leafy, leafy_returns = logged_game(game(), BOT, DEEP, 4, 0.25, seed=3, leaves=2)
    # the same game, the same decisions: the leaves draw from their own generator
    assert returns == leafy_returns
    for key in KEYS:
        assert np.array_equal(plain[key], leafy[key], equal_nan=True), key
    rows, values = leafy["leaf_row"], leafy["leaf_value"]
    assert len(rows) > len(plain["turn"])  # two a searched decision, most of them
    assert np.all(np.bincount(rows) <= 2) and np.all((values >= 0) & (values <= 1))
    # a leaf is its decision's position one move on: its own counts differ from the root's
    moved = [not np.array_equal(leafy["leaf_own"][i], leafy["own"][r]) for i, r in enumerate(rows)]
    moved += [
        not np.array_equal(leafy["leaf_enemy"][i], leafy["enemy"][r]) for i, r in enumerate(rows)
    ]
    assert sum(moved) > len(rows) // 2
    # a leaf's visits are those its decision logged for one of its moves
    for i, r in enumerate(rows[:50]):
        start, end = leafy["move_start"][r], leafy["move_start"][r + 1]
        assert leafy["leaf_visits"][i] in leafy["move_visits"][start:end]


def test_a_joined_log_points_each_leaf_at_its_decision(tmp_path):
    for seed in (1, 2):
        arrays, _ = logged_game(game_from_texts("hero", {}, seed=seed), BOT, DEEP, 4, 0, seed, 2)
        write_shard(tmp_path / f"shard-{seed}.npz", arrays)
    shards = [read_shard(tmp_path / f"shard-{seed}.npz") for seed in (1, 2)]
    log = read_log(tmp_path, [{"shard": "shard-1.npz"}, {"shard": "shard-2.npz"}])
    first = len(shards[0]["turn"])
    assert len(log["leaf_row"]) == sum(len(s["leaf_row"]) for s in shards)
    assert np.array_equal(log["leaf_row"][: len(shards[0]["leaf_row"])], shards[0]["leaf_row"])
    assert np.array_equal(
        log["leaf_row"][len(shards[0]["leaf_row"]) :], shards[1]["leaf_row"] + first
    )
    assert np.all(
        log["game"][log["leaf_row"]] == np.repeat([0, 1], [len(s["leaf_row"]) for s in shards])
    )
