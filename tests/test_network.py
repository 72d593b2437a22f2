"""The sparse-input network (eval=net): Hero's raw inputs in C against the
Python reference, the C value against numpy's, antisymmetry, network files
refused in one line when broken or mismatched, the search with it, and the
training (its loss the model's, the same seed giving the same weights,
and one line without the train extra)."""

import json

import numpy as np
import pytest

from test_search import GAMES, random_positions, twin_positions, visits
from xenophon.anabasis import net_inputs as anabasis_inputs
from xenophon.hero.net_inputs import side_inputs
from xenophon.kernel.evaluation import (
    WeightsError,
    read_network,
    read_weights,
    shipped_weights_file,
    tables_for,
    write_network,
)
from xenophon.lab import network as net
from xenophon.lab.gradient import TrainingUnavailable
from xenophon.lab.learnlog import logged_game, read_log, write_shard
from xenophon.play.players import make_bot
from xenophon.search.ismcts import Worker
from xenophon.search.settings import SearchSettings

HERO = GAMES["hero"]


def random_network(game, hidden=16, seed=3, scale=0.3):
    """A network file's contents with every weight drawn at random (output
    weights too, so the hidden layer counts)."""
    tables = game.tables
    linear = read_weights(shipped_weights_file(game.name), game.name)
    params = net.new_params(
        len(tables.net_input_names), len(tables.feature_names), hidden, 8, linear, seed
    )
    rng = np.random.default_rng(seed)
    for key in ("w_own", "w_enemy", "w_feature", "bias", "phase", "output"):
        params[key] = rng.normal(0, scale, params[key].shape)
    return net.to_network(
        params,
        game.name,
        tables.net_input_names,
        tables.feature_names,
        linear.taper_turns,
        {"command": "test"},
    )


def written(tmp_path, network, name="net.npz"):
    path = tmp_path / name
    write_network(path, network)
    return path


def positions(game="hero"):
    return random_positions(GAMES[game], 30, seed=9, min_actions=10 if game == "hero" else 40)


def reference_inputs(state, seat):
    """The Python reference's raw inputs of `seat`'s side of `state`."""
    if state.game.name == "hero":
        return side_inputs(state.to_dict(), seat, state.game.tables.card_names)
    return anabasis_inputs.side_inputs(state.to_dict(), seat, state.game.cards.cards)


def test_c_raw_inputs_agree_with_the_reference():
    nonzero = set()
    for state in positions():
        names = state.game.tables.card_names
        for seat in (0, 1):
            c = state.backend.net_inputs(seat)
            assert c == side_inputs(state.to_dict(), seat, names)
            nonzero.update(i for i, v in enumerate(c) if v)
    zones = {i // len(HERO(1).tables.card_names) for i in nonzero}
    assert zones == set(range(7)), "the positions should reach every zone"


def test_anabasis_c_raw_inputs_agree_with_the_reference():
    make_game = GAMES["anabasis"]
    nonzero = set()
    for state in random_positions(make_game, 30, seed=9, min_actions=40):
        cards = state.game.cards.cards
        names = state.game.tables.net_input_names
        for seat in (0, 1):
            c = state.backend.net_inputs(seat)
            assert len(c) == len(names)
            assert c == anabasis_inputs.side_inputs(state.to_dict(), seat, cards)
            nonzero.update(names[i].split(":")[0] for i, v in enumerate(c) if v)
    zones = anabasis_inputs.CARD_ZONES + anabasis_inputs.SQUARE_ZONES
    assert nonzero == set(zones), "the positions should reach every zone"


def test_anabasis_squares_are_turned_for_seat_1():
    state = GAMES["anabasis"](1).new_initial_state()
    names = state.game.tables.net_input_names
    assert "character:a1" in names and "damage:g6" in names
    assert anabasis_inputs.turned_square("d1", 0) == anabasis_inputs.turned_square("d6", 1) == 3


@pytest.mark.parametrize("game", ["hero", "anabasis"])
def test_c_and_numpy_agree_on_the_value(tmp_path, game):
    state0 = positions(game)[0]
    # the C value runs in integers (network_int.h): within 0.002 of the
    # float one's win probability (tests/test_network_int.py)
    network = read_network(
        written(tmp_path, random_network(state0.game, hidden=32, scale=0.1)), game
    )
    checked = 0
    for state in positions(game):
        tables = tables_for(state.game, "net", str(tmp_path / "net.npz"))
        on_net = state.game._core().CoreState.from_bytes(tables, state.to_bytes())
        for player in (0, 1):
            python = net.network_batch(
                network,
                [reference_inputs(state, player)],
                [reference_inputs(state, 1 - player)],
                [state.backend.features(player)],
                np.asarray([state.backend.turn()]),
            )[0]
            c = on_net.evaluate_net(player)
            assert c == pytest.approx(python, abs=0.004)
            assert c != pytest.approx(state.backend.evaluate_learned(player), abs=1e-3)
            checked += 1
        assert on_net.evaluate_net(0) == pytest.approx(-on_net.evaluate_net(1), abs=1e-12)
    assert checked == 60


def test_a_network_with_zero_output_weights_is_the_learned_evaluation(tmp_path):
    game = HERO(1)
    network = random_network(game)
    network.arrays["output"][:] = 0
    tables = tables_for(game, "net", str(written(tmp_path, network)))
    for state in positions()[:10]:
        on_net = game._core().CoreState.from_bytes(tables, state.to_bytes())
        # the shipped linear weights, rounded to float32 in the file
        assert on_net.evaluate_net(0) == pytest.approx(state.backend.evaluate_learned(0), abs=1e-5)


@pytest.mark.parametrize(
    "spoil, says",
    [
        (lambda p, n: p.write_bytes(b"garbage"), "not a network file"),
        (lambda p, n: n.meta.update(game="anabasis"), "a network for 'anabasis'"),
        (lambda p, n: n.meta.update(version=9), "version 9"),
        (lambda p, n: n.arrays.update(output=np.zeros(3)), "'output' must be an array"),
        (lambda p, n: n.arrays["bias"].__setitem__(0, np.nan), "not finite"),
        (lambda p, n: n.meta.update(inputs=n.meta["inputs"][::-1]), "other inputs"),
        (lambda p, n: n.meta.update(buckets=5000), "'buckets' must be a whole number from 1"),
    ],
)
def test_a_broken_or_mismatched_network_file_is_one_line(tmp_path, spoil, says):
    game = HERO(1)
    network = random_network(game)
    path = tmp_path / "net.npz"
    if spoil(path, network) is None and not path.exists():
        write_network(path, network)
    with pytest.raises(WeightsError) as error:
        tables_for(game, "net", str(path))
    message = str(error.value)
    assert says in message and "\n" not in message and str(path) in message


def test_a_network_of_another_game_is_refused_in_one_line(tmp_path):
    game = GAMES["anabasis"](1)
    path = written(tmp_path, random_network(HERO(1)))
    with pytest.raises(WeightsError) as error:
        tables_for(game, "net", str(path))
    assert "\n" not in str(error.value)


def with_random_policy(network, seed=5, scale=0.5):
    """The network with its policy head drawn at random (a trained one's
    logits differ between moves; new_params leaves them 0)."""
    rng = np.random.default_rng(seed)
    for key in ("policy", "policy_bias"):
        network.arrays[key] = rng.normal(0, scale, network.arrays[key].shape)
    return network


@pytest.mark.parametrize("game", ["hero", "anabasis"])
def test_c_and_numpy_agree_on_the_policy_logits(tmp_path, game):
    network = with_random_policy(random_network(GAMES[game](1)))
    path = written(tmp_path, network)
    network = read_network(path, game)  # as the file holds it (float32)
    checked = 0
    for state in positions(game)[:15]:
        tables = tables_for(state.game, "net", str(path))
        on_net = state.game._core().CoreState.from_bytes(tables, state.to_bytes())
        player = state.current_player
        codes = state.legal_actions()
        python = net.network_logits(
            network,
            reference_inputs(state, player),
            reference_inputs(state, 1 - player),
            state.backend.features(player),
            state.backend.turn(),
            np.asarray(codes),
        )
        c = on_net.policy_logits(codes)
        assert c == pytest.approx(python, abs=1e-5)
        checked += len(set(np.round(c, 9))) > 1
    assert checked >= 5, "the logits should differ between moves"
    assert state.backend.policy_logits(codes) is None  # the game's tables: no network


def root_priors(state, path, resample):
    """The root's priors with priors=net after a few iterations of one worker
    (a perfect-information one, without `resample`, expands its root on the
    state itself)."""
    settings = SearchSettings(
        iterations=10, evaluation="net", weights=str(path), priors="net", prior_weight=1.0
    ).for_game(state.game)
    api, tables = state.game.search_interface("net", str(path))
    player = state.current_player
    worker = Worker(api, tables, state.to_bytes(), player, 1, settings, resample, 1 << 20, 0)
    worker.run(10, 0)
    return dict(worker.root_priors())


def test_the_network_priors_are_the_softmax_of_the_logits(tmp_path):
    path = written(tmp_path, with_random_policy(random_network(HERO(1))))
    tables = tables_for(HERO(1), "net", str(path))
    for state in positions()[:8]:
        codes = state.legal_actions()
        logits = np.asarray(
            state.game._core().CoreState.from_bytes(tables, state.to_bytes()).policy_logits(codes)
        )
        softmax = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        on_state = root_priors(state, path, resample=False)
        assert [on_state[code] for code in codes] == pytest.approx(softmax, abs=1e-6)
        sampled = root_priors(state, path, resample=True)  # on a world sampled from the seat's view
        assert sorted(sampled) == sorted(codes)
        assert sum(sampled.values()) == pytest.approx(1, abs=1e-6)
        assert min(sampled.values()) > 0


def net_priors_spec(path, iterations=300, **more):
    extra = "".join(f",{key}={value}" for key, value in more.items())
    return f"ismcts:iterations={iterations},eval=net,weights={path},prior_weight=2{extra}"


def test_the_network_priors_change_the_search_and_repeat_with_the_seed(tmp_path):
    path = written(tmp_path, with_random_policy(random_network(HERO(1))))
    changed = 0
    for state in positions()[:5]:
        net_priors = make_bot(net_priors_spec(path, priors="net"), 1).analyse(state)
        again = make_bot(net_priors_spec(path, priors="net"), 1).analyse(state)
        playout = make_bot(net_priors_spec(path), 1).analyse(state)
        assert visits(net_priors) == visits(again)
        changed += visits(net_priors) != visits(playout)
    assert changed >= 3


@pytest.mark.parametrize("game", ["hero", "anabasis"])
def test_the_network_priors_read_nothing_hidden(tmp_path, game):
    """Two states the searcher cannot tell apart give the same search with
    the network's priors: they are computed on the worlds it samples."""
    path = written(tmp_path, with_random_policy(random_network(GAMES[game](1))))
    pairs = twin_positions(GAMES[game], 20, seed=1)
    assert len(pairs) >= 5
    for state, twin in pairs:
        first = make_bot(net_priors_spec(path, priors="net"), 5).analyse(state)
        second = make_bot(net_priors_spec(path, priors="net"), 5).analyse(twin)
        assert visits(first) == visits(second)


def test_a_network_of_an_earlier_feature_set_loads_with_the_rest_at_0(tmp_path):
    game = HERO(1)
    network = random_network(game)
    names = list(network.meta["features"])
    full = written(tmp_path, network, "full.npz")
    dropped = [3, names.index("castable")]  # castable came after this file's kind
    for key in ("opening", "ending", "w_feature"):
        network.arrays[key][dropped] = 0
    zeroed = written(tmp_path, network, "zeroed.npz")
    kept = [i for i in range(len(names)) if i not in dropped]
    for key in ("opening", "ending", "w_feature"):
        network.arrays[key] = network.arrays[key][kept]
    network.meta["features"] = [names[i] for i in kept]
    earlier = written(tmp_path, network, "earlier.npz")
    differs = 0
    for state in positions()[:10]:
        values = []
        for path in (full, zeroed, earlier):
            tables = tables_for(game, "net", str(path))
            on_net = game._core().CoreState.from_bytes(tables, state.to_bytes())
            values.append(on_net.evaluate_net(0))
        assert values[1] == values[2]
        differs += values[1] != values[0]
    assert differs >= 3, "the features left out should count in the full network"


def test_the_search_plays_with_the_network(tmp_path):
    path = written(tmp_path, random_network(HERO(1)))
    state = positions()[0]
    with_net = make_bot(f"ismcts:iterations=300,eval=net,weights={path}", 1).analyse(state)
    learned = make_bot("ismcts:iterations=300,eval=learned", 1).analyse(state)
    assert with_net.iterations == 300
    assert [m.visits for m in with_net.moves] != [m.visits for m in learned.moves]


def test_the_shipped_network_is_read_by_eval_net_alone():
    # Hero ships the kept generation's file (docs/learning.md); it is a valid
    # network of Hero's inputs, and eval=net without weights= searches with it
    from xenophon.kernel.evaluation import shipped_network_file

    network = read_network(str(shipped_network_file("hero")), "hero")
    assert network.meta["made"]["command"].startswith("python bench/learn.py train hero")
    state = positions()[0]
    shipped = make_bot("ismcts:iterations=200,eval=net", 1).analyse(state)
    named = make_bot(
        f"ismcts:iterations=200,eval=net,weights={shipped_network_file('hero')}", 1
    ).analyse(state)
    assert [m.visits for m in shipped.moves] == [m.visits for m in named.moves]


def test_eval_net_without_a_shipped_network_is_one_line():
    [state] = random_positions(GAMES["anabasis"], 1, seed=2)
    with pytest.raises(WeightsError, match="no network is shipped for anabasis"):
        make_bot("ismcts:iterations=20,eval=net", 1).analyse(state)


def small_log(tmp_path):
    for seed in (1, 2, 3):
        game = HERO(seed)
        arrays, _ = logged_game(game, "ismcts:iterations=40", "", 3, 0.0, seed)
        write_shard(tmp_path / f"shard-{seed}.npz", arrays)
    return read_log(tmp_path, [{"shard": f"shard-{s}.npz"} for s in (1, 2, 3)])


def numpy_root_losses(params, batch):
    """The training loss's two terms written plainly: the mean log-loss of
    sigmoid(z) and, decision by decision, the cross-entropy of the policy's
    softmax against the visit shares."""
    p = 1 / (1 + np.exp(-net.value_z(params, batch)))
    value = -np.mean(batch.target * np.log(p) + (1 - batch.target) * np.log(1 - p))
    mine, _ = net._accumulators(params, batch)
    policy = 0.0
    for row in range(len(batch.target)):
        moves = slice(batch.start[row], batch.start[row + 1])
        bucket = batch.bucket[moves]
        logits = params["policy"][bucket] @ np.clip(mine[row], 0, 1) + params["policy_bias"][bucket]
        log_soft = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
        policy -= (batch.share[moves] * log_soft).sum()
    return value, policy / len(batch.target)


def jax_losses(params, roots, moves):
    """The training loss's terms and its total at a policy weight of 0.3 (run
    in the JAX process)."""
    value, policy = net.root_losses(params, roots, moves)
    total = net.training_loss(0.3, 0.0)(params, roots, moves, roots)
    return float(value), float(policy), float(total)


def test_the_training_loss_is_the_models(tmp_path, jax_process):
    log = small_log(tmp_path)
    linear = read_weights(shipped_weights_file("hero"), "hero")
    params = net.new_params(log["own"].shape[1], log["features"].shape[1], 6, 16, linear, 2)
    rng = np.random.default_rng(4)
    for key in ("output", "policy", "policy_bias", "bias"):
        params[key] = rng.normal(0, 0.5, params[key].shape)
    batch = net.batch_of(log, np.arange(40), linear.taper_turns, 0.5, 16)
    assert len(batch.bucket) > 40 and (batch.share > 0).any()
    # padded to 64 rows and a multiple of MOVE_PADDING moves: the padding weighs nothing
    roots, moves = net.training_rows(batch, 64)
    trained = {k: v.astype(np.float32) for k, v in params.items()}
    value, policy, total = jax_process.submit(jax_losses, trained, roots, moves).result()
    expected = numpy_root_losses(params, batch)
    assert value == pytest.approx(expected[0], rel=1e-5)
    assert policy == pytest.approx(expected[1], rel=1e-5)
    assert total == pytest.approx(expected[0] + 0.3 * expected[1], rel=1e-5)


def test_training_without_the_extra_is_one_line(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_jax(name, *args, **kwargs):
        if name.split(".")[0] in ("jax", "optax"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jax)
    linear = read_weights(shipped_weights_file("hero"), "hero")
    with pytest.raises(TrainingUnavailable, match=r"pip install '\.\[train\]'") as error:
        net.train(small_log(tmp_path), linear, hidden=4, epochs=1)
    assert "\n" not in str(error.value)


def test_the_same_seed_trains_the_same_network(tmp_path, jax_process):
    log = small_log(tmp_path)
    linear = read_weights(shipped_weights_file("hero"), "hero")
    options = {"hidden": 8, "buckets": 32, "epochs": 2, "held_out": 0.34, "seed": 5}
    runs = [jax_process.submit(net.train, log, linear, **options).result() for _ in range(2)]
    for key in runs[0][0]:
        assert np.array_equal(runs[0][0][key], runs[1][0][key])
    assert json.dumps(runs[0][1]) == json.dumps(runs[1][1])
    assert runs[0][1]["positions"]["held_out"] > 0


def test_sibling_concordance_counts_pairs_within_a_decision_only():
    z = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    target = np.array([0.1, 0.2, 0.3, 0.9, 0.1])
    # decision 0 ordered as its targets (3 pairs), decision 1 reversed (1 pair)
    assert net.sibling_concordance(z, target, np.array([0, 0, 0, 1, 1])) == pytest.approx(3 / 4)
    # a tie in z counts half; a tie in the target is no pair
    assert net.sibling_concordance(
        np.array([1.0, 1.0, 2.0]), np.array([0.2, 0.4, 0.4]), np.zeros(3, dtype=int)
    ) == pytest.approx(1.5 / 2)
    assert np.isnan(net.sibling_concordance(z[:1], target[:1], np.zeros(1, dtype=int)))


def leafy_log(tmp_path):
    for seed in (1, 2, 3):
        game = HERO(seed)
        # the search's nodes named, so the log (and which epoch trains best
        # on it) stays the one this test was written on
        bot = "ismcts:iterations=40,opponent_nodes=own"
        arrays, _ = logged_game(game, bot, "", 3, 0.0, seed, leaves=3)
        write_shard(tmp_path / f"shard-{seed}.npz", arrays)
    return read_log(tmp_path, [{"shard": f"shard-{s}.npz"} for s in (1, 2, 3)])


def test_training_on_leaves_fits_the_leaves_and_reports_them(tmp_path, jax_process):
    log = leafy_log(tmp_path)
    linear = read_weights(shipped_weights_file("hero"), "hero")
    options = {"hidden": 8, "buckets": 32, "epochs": 3, "held_out": 0.34, "seed": 5}
    runs = {
        weight: jax_process.submit(net.train, log, linear, leaf_weight=weight, **options).result()
        for weight in (0.0, 3.0)
    }
    leaves = np.flatnonzero(~net.held_out_mask(log["game"], 0.34, 5)[log["leaf_row"]])
    fitted = {
        weight: net.leaf_report(log, leaves, linear.taper_turns, {"n": params})["n"]["log_loss"]
        for weight, (params, _) in runs.items()
    }
    # the leaves of the training games are fitted better when they are trained on
    assert fitted[3.0] < fitted[0.0]
    report = runs[3.0][1]["held_out_leaves"]
    assert report["leaves"] > 0 and set(report) == {"leaves", "network", "learned"}
    assert 0 <= report["learned"]["sibling_concordance"] <= 1


def test_a_correction_constant_over_each_side_is_all_per_side():
    rng = np.random.default_rng(1)
    side = np.repeat(np.arange(20), 15)
    z_linear = rng.normal(0, 2, len(side))
    target = (rng.random(len(side)) < 1 / (1 + np.exp(-z_linear))).astype(float)
    constant = net.correction_split(z_linear + rng.normal(0, 1, 20)[side], z_linear, side, target)
    assert constant["variance_within"] == pytest.approx(0, abs=1e-12)
    assert constant["variance_per_side"] == pytest.approx(constant["variance"])
    assert constant["log_loss_linear_plus_within"] == pytest.approx(
        net.log_loss(1 / (1 + np.exp(-z_linear)), target)
    )
    varying = net.correction_split(z_linear + rng.normal(0, 1, len(side)), z_linear, side, target)
    assert varying["variance_within"] > 5 * varying["variance_per_side"]
