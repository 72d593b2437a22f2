"""Parallel search: root parallelism (a tree each) and a shared tree (one
tree grown by all workers, with virtual loss and a root node each)."""

import pytest

from conftest import GAME_NAMES
from test_search import GAMES, TREE_VARIANTS, random_positions, twin_positions, visits
from xenophon.play.players import make_bot
from xenophon.search.bots import ISMCTSBot, SettingError
from xenophon.search.ismcts import SharedTree, Worker

#: the tree options a shared tree takes (not the halving root nor fused nodes)
SHARED_VARIANTS = {
    name: options
    for name, options in TREE_VARIANTS.items()
    if options.get("root_policy") != "halving" and options.get("opponent_nodes") != "fused"
}


def shared_workers(state, bot, count=2):
    return bot._workers_for(state, state.to_bytes(), state.current_player, count, bot.memory_bytes)


@pytest.mark.parametrize("count", [2, 4])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_shared_tree_counts_each_iteration_once_in_threads(name, count):
    """Threads on one tree (4: more than the cores, so a lock holder may be
    descheduled): every iteration's return reaches the root statistics once,
    the nodes are counted once, and the tree is sound afterwards (its table
    finds every node, no action has more visits than its node)."""
    for state in random_positions(GAMES[name], 3, seed=11, min_actions=8):
        bot = ISMCTSBot(iterations=20_000, workers=count, parallel="shared", seed=1)
        workers = shared_workers(state, bot, count)
        assert all(w.shared_tree is workers[0].shared_tree is not None for w in workers)
        bot._run(workers, 20_000, 0.0)
        assert sum(w.iterations for w in workers) == 20_000
        assert workers[0].check_tree() == []
        result = bot._result(state, state.current_player, workers, 1.0, worlds=20_000)
        assert sum(m.visits for m in result.moves) == 20_000
        assert result.nodes > 1000
        assert all(w.nodes == result.nodes for w in workers)
        assert result.tree_bytes == workers[0].tree_bytes


@pytest.mark.parametrize("variant", sorted(SHARED_VARIANTS))
@pytest.mark.parametrize("name", GAME_NAMES)
def test_shared_tree_never_reads_hidden_cards(name, variant):
    """The shared tree's workers run one after the other (so the search is
    repeatable): two states the searcher cannot tell apart give the same
    statistics, with each tree option a shared tree takes."""
    options = SHARED_VARIANTS[variant]
    pairs = twin_positions(GAMES[name], 12, seed=1)
    assert len(pairs) >= 3, "the test needs positions whose hidden cards really differ"
    for state, twin in pairs:
        found = []
        for position in (state, twin):
            bot = ISMCTSBot(iterations=300, workers=2, parallel="shared", seed=5, **options)
            workers = shared_workers(position, bot)
            for worker in workers:
                worker.run(150, 0.0)
            found.append(
                visits(bot._result(position, state.current_player, workers, 1.0, worlds=300))
            )
        assert found[0] == found[1]


def test_shared_tree_keeps_its_memory_cap_and_goes_on_when_full():
    state = random_positions(GAMES["anabasis"], 1, seed=4)[0]
    result = ISMCTSBot(
        iterations=20_000, workers=2, parallel="shared", seed=1, memory_mb=0.25
    ).analyse(state)
    assert result.iterations == 20_000
    assert result.tree_bytes <= 0.25 * 1024 * 1024
    assert any("tree full" in note for note in result.notes)


def test_shared_tree_search_keeps_a_time_budget():
    """Both threads stop at the deadline (the slack allows for a thread the
    system schedules late on a busy machine; a missed deadline would run on)."""
    state = random_positions(GAMES["hero"], 1, seed=5)[0]
    result = ISMCTSBot(
        iterations=None, time_limit=0.2, workers=2, parallel="shared", seed=1
    ).analyse(state)
    assert result.workers == 2 and result.iterations > 0
    assert result.seconds <= 0.2 * 1.05 + 0.1


def test_one_worker_keeps_a_tree_of_its_own():
    state = random_positions(GAMES["anabasis"], 1, seed=6)[0]
    bot = ISMCTSBot(iterations=500, workers=1, parallel="shared", seed=3)
    assert shared_workers(state, bot, count=1)[0].shared_tree is None
    assert visits(bot.analyse(state)) == visits(
        ISMCTSBot(iterations=500, workers=1, seed=3).analyse(state)
    )


def test_parallel_is_a_bot_setting():
    assert make_bot("ismcts:iterations=100,workers=2,parallel=shared", seed=1).parallel == "shared"
    assert make_bot("ismcts:iterations=100,workers=2", seed=1).parallel == "root"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ismcts:parallel=threads", "'parallel' must be one of root, shared"),
        ("ismcts:workers=2,parallel=shared,root_policy=halving", "neither root_policy halving"),
        ("ismcts:workers=2,parallel=shared,opponent_nodes=fused", "nor opponent_nodes fused"),
    ],
)
def test_shared_tree_settings_it_cannot_take_are_refused(spec, message):
    with pytest.raises(SettingError, match=message):
        make_bot(spec, seed=1)


def test_a_worker_refuses_a_shared_tree_with_halving():
    state = random_positions(GAMES["hero"], 1, seed=7)[0]
    bot = ISMCTSBot(iterations=100, seed=1, root_policy="halving")
    api, tables = state.game.search_interface(bot.evaluation, bot.weights)
    with pytest.raises(ValueError, match="shared tree"):
        Worker(
            api,
            tables,
            state.to_bytes(),
            state.current_player,
            1,
            bot.search_settings.for_game(state.game),
            True,
            1 << 20,
            2,
            shared_tree=SharedTree(1 << 20),
        )
