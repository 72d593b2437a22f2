"""The learned evaluation's network (`xenophon tune --model mlp`, weights
files of version 2): the C forward pass against the numpy one, the file's
round trip and its refusals in one line, the loss of the fit (JAX's), a fit
that finds what a linear one cannot, and the command end to end."""

import contextlib
import io
import json
import math
import random

import numpy as np
import pytest

from conftest import GAME_NAMES
from test_search import GAMES, random_positions, visits
from xenophon.anabasis import Game as AnabasisGame
from xenophon.cli.main import main
from xenophon.hero import Game as HeroGame
from xenophon.kernel.evaluation import (
    MAX_HIDDEN_UNITS,
    NETWORK_VERSION,
    HiddenUnit,
    Weights,
    WeightsError,
    read_weights,
    tables_for,
    write_weights,
)
from xenophon.lab import tune
from xenophon.search.bots import ISMCTSBot

MAKERS = {"anabasis": AnabasisGame, "hero": HeroGame}


def random_network(game, seed, hidden=6, scale=0.3):
    rng = random.Random(seed)
    names = tuple(game.tables.feature_names)

    def numbers(count):
        return tuple(rng.uniform(-scale, scale) for _ in range(count))

    units = tuple(
        HiddenUnit(numbers(len(names)), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-2, 2))
        for _ in range(hidden)
    )
    return Weights(
        game.name, names, numbers(len(names)), numbers(len(names)), 20, {"note": "test"}, units
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_c_and_numpy_forward_passes_agree(name, tmp_path):
    game = MAKERS[name](seed=2)
    weights = random_network(game, 7)
    tables = tables_for(game, "learned", str(write_weights(tmp_path / "n.json", weights)))
    linear_only = Weights(game.name, weights.features, weights.opening, weights.ending, 20)
    differs = 0
    for state in random_positions(GAMES[name], 12, seed=5):
        backend = game.state_from_bytes(state.to_bytes()).backend
        twin = type(backend).from_bytes(tables, backend.to_bytes())
        x = np.array([twin.features(0)])
        turn = np.array([float(state.to_dict()["turn"])])
        z = tune.learned_z(weights, x, turn)[0]
        assert twin.evaluate_learned(0) == pytest.approx(math.tanh(z / 2), abs=1e-9)
        assert twin.evaluate_learned(1) == pytest.approx(-twin.evaluate_learned(0), abs=1e-9)
        differs += abs(z - tune.learned_z(linear_only, x, turn)[0]) > 1e-3
    assert differs >= 6, "the hidden layer should change the value"


def test_the_network_is_antisymmetric_in_numpy_too():
    game = HeroGame(seed=1)
    weights = random_network(game, 8)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(50, len(weights.features)))
    turn = rng.integers(0, 40, 50).astype(float)
    assert np.allclose(tune.learned_z(weights, -x, turn), -tune.learned_z(weights, x, turn))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_network_file_round_trips(name, tmp_path):
    game = MAKERS[name](seed=1)
    weights = random_network(game, 3)
    path = write_weights(tmp_path / "n.json", weights)
    assert json.loads(path.read_text())["version"] == NETWORK_VERSION
    again = read_weights(path, name)
    assert again == weights and again.made == {"note": "test"}
    tables = tables_for(game, "learned", str(path))
    assert tables.weights == (list(weights.opening), list(weights.ending), 20)
    hidden_weights, bias, phase, output = tables.network
    assert hidden_weights == [list(unit.weights) for unit in weights.hidden]
    assert (bias, phase, output) == (
        [u.bias for u in weights.hidden],
        [u.phase for u in weights.hidden],
        [u.output for u in weights.hidden],
    )
    assert game.tables.network is None  # the shipped linear weights


def one_line(error):
    text = str(error.value)
    assert "\n" not in text and len(text) < 300
    return text


def _unit(d, **change):
    return {**d, "hidden": [{**d["hidden"][0], **change}] + d["hidden"][1:]}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: {**d, "hidden": "x"}, "'hidden' must be a list of 1 to"),
        (lambda d: {**d, "hidden": []}, "'hidden' must be a list of 1 to"),
        (lambda d: {**d, "hidden": d["hidden"][:1] * (MAX_HIDDEN_UNITS + 1)}, "hidden units"),
        (lambda d: {k: v for k, v in d.items() if k != "hidden"}, "'hidden' must be a list"),
        (lambda d: {**d, "hidden": [3] + d["hidden"][1:]}, "hidden[0] is not an object"),
        (lambda d: _unit(d, weights=d["hidden"][0]["weights"][:-1]), "one per feature"),
        (lambda d: _unit(d, bias=None), "'bias' is not a finite number"),
        (lambda d: _unit(d, phase=True), "'phase' is not a finite number"),
        (lambda d: _unit(d, output="1"), "'output' is not a finite number"),
        (lambda d: {**d, "version": 1}, "a hidden layer in a file of version 1"),
        (lambda d: {**d, "version": 3}, "versions 1 and 2"),
    ],
)
def test_broken_network_files_are_refused_in_one_line(tmp_path, change, message):
    data = change(random_network(HeroGame(seed=1), 4).to_json())
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError) as error:
        read_weights(path, "hero")
    assert message in one_line(error) and str(path) in str(error.value)


def test_the_tables_refuse_a_mismatched_network():
    tables = HeroGame(seed=1).tables
    arguments = random_network(HeroGame(seed=1), 5, hidden=2).table_arguments()
    with pytest.raises(ValueError, match="hidden unit 1 has"):
        tables.with_weights(
            **{**arguments, "hidden_weights": [arguments["hidden_weights"][0], [0.5]]}
        )
    with pytest.raises(ValueError, match="its biases 1"):
        tables.with_weights(**{**arguments, "hidden_bias": [0.0]})
    with pytest.raises(ValueError, match="not a finite number"):
        tables.with_weights(**{**arguments, "output": [0.0, math.nan]})
    assert tables.network is None


def jax_loss(l2_linear, l2, params, *data):
    """The fit's training loss (run in the JAX process)."""
    return float(tune._training_loss(l2_linear, l2)(params, *data))


def test_the_training_loss_is_the_models(jax_process):
    rng = np.random.default_rng(2)
    n, features, hidden = 40, 5, 3
    x = rng.normal(size=(n, features))
    ph = rng.random(n)
    design = tune.Design(np.hstack([x * (1 - ph)[:, None], x * ph[:, None]]), x, ph)
    y = rng.integers(0, 3, n) / 2
    net = tune.Network(
        rng.normal(size=2 * features),
        rng.normal(size=(hidden, features)),
        rng.normal(size=hidden),
        rng.normal(size=hidden),
        rng.normal(size=hidden),
    )
    p = tune.sigmoid(tune.network_z(net, design))
    penalty = 0.01 / 2 * np.sum(net.linear**2) + 0.1 / 2 * (
        np.sum(net.weights**2) + np.sum(net.output**2)
    )
    expected = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)) + penalty
    as32 = {k: v.astype(np.float32) for k, v in vars(net).items()}
    data = [a.astype(np.float32) for a in (design.a, design.x, design.ph, y)]
    loss = jax_process.submit(jax_loss, 0.01, 0.1, as32, *data).result()
    assert loss == pytest.approx(expected, rel=1e-5)


def synthetic_positions(n_games, seed):
    """Positions whose result is a saturating function of a feature (the
    chance of winning levels off near 95% once |x0| passes 1), which no
    linear fit can follow and a hidden layer can."""
    rng = np.random.default_rng(seed)
    per_game = 10
    n = n_games * per_game
    x = rng.normal(size=(n, 3))
    turn = rng.integers(0, 30, n).astype(float)
    y = (rng.random(n) < tune.sigmoid(3 * np.tanh(2 * x[:, 0]) + 0.5 * x[:, 1])).astype(float)
    games = np.repeat(np.arange(n_games), per_game)
    return tune.Positions(
        x, np.zeros(n), turn, y, games, np.full(n, np.nan), np.full(n_games, 30.0)
    )


def test_a_network_fits_what_the_linear_fit_cannot(jax_process):
    data = synthetic_positions(2000, 1)
    train = data.subset(data.game < 1500)
    held = data.subset(data.game >= 1500)
    a = tune.tapered(train.x, train.turn, 30)
    w = tune._scaled_fit(a, train.y, 1e-4, "feature")
    linear = Weights("hero", ("a", "b", "c"), tuple(w[:3]), tuple(w[3:]), 30)
    fitting = jax_process.submit(tune.fit_network, linear, train, train.y, 1e-4, "feature", 4, 1)
    network, details = fitting.result()
    assert len(network.hidden) == 4 and details["epochs"] > 0
    losses = [
        tune.log_loss(tune.sigmoid(tune.learned_z(weights, held.x, held.turn)), held.y)
        for weights in (linear, network)
    ]
    assert losses[1] < losses[0] - 0.005, losses


def main_printing(args):
    """`xenophon ARGS` (run in the JAX process): its exit code and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(args)
    return code, printed.getvalue()


def test_tune_mlp_end_to_end_at_a_tiny_budget(tmp_path, jax_process):
    out, report = tmp_path / "n.json", tmp_path / "r.json"
    args = [
        "tune",
        "hero",
        "--games",
        "6",
        "--bot",
        "ismcts:iterations=8",
        "--positions",
        "4",
        "--processes",
        "1",
        "--model",
        "mlp",
        "--hidden",
        "3",
        "--out",
        str(out),
        "--report",
        str(report),
    ]
    code, printed = jax_process.submit(main_printing, args).result()
    assert code == 0
    assert "a network of 3 hidden units" in printed and "linear fit" in printed
    weights = read_weights(out, "hero")
    assert len(weights.hidden) == 3 and weights.made["hidden"] == 3
    assert "--model mlp --hidden 3" in weights.made["command"]
    summary = json.loads(report.read_text())
    assert set(summary["held_out"]) == {"learned", "linear", "hand", "constant"}
    assert "log_loss_reduction_vs_linear" in summary
    first = out.read_bytes()
    # same command and seed, same file
    assert jax_process.submit(main_printing, args + ["--force"]).result()[0] == 0
    assert out.read_bytes() == first
    [state] = random_positions(GAMES["hero"], 1, seed=2)
    bot = ISMCTSBot(iterations=50, seed=1, evaluation="learned", weights=str(out))
    assert sum(count for _, count, _ in visits(bot.analyse(state))) > 0  # it searches


def test_hidden_without_the_network_is_one_line(tmp_path, capsys):
    code = main(
        [
            "tune",
            "hero",
            "--games",
            "2",
            "--hidden",
            "8",
            "--processes",
            "1",
            "--out",
            str(tmp_path / "w.json"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--model mlp" in err
    assert not (tmp_path / "w.json").exists()
    with pytest.raises(SystemExit) as exit_code:
        main(
            [
                "tune",
                "hero",
                "--model",
                "mlp",
                "--hidden",
                str(MAX_HIDDEN_UNITS + 1),
                "--out",
                str(tmp_path / "w.json"),
            ]
        )
    err = capsys.readouterr().err.strip()
    assert exit_code.value.code == 2 and len(err.splitlines()) == 1 and "out of range" in err
