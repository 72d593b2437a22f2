"""Tuning the learned evaluation (Texel's method): self-play positions
labelled with the game's final result, a regularised logistic regression of
the result on the C core's features with phase-tapered weights (or that and
a network's hidden layer, `--model mlp`), a held-out set of whole games, and
a report comparing the fit with the hand-set evaluation and a constant (and
a network with the linear fit) on the same held-out positions.

One module for both games: the features and the C evaluation are the
game's (src/engine_c/*/features.c), the rest is written once here.

Generation is one job of `xenophon.lab.jobs` per game (parallel, seeded,
resumable through the results file); a game is kept as its action codes and
a position as an index into them, so games played once can be refitted when
the features change, on any build of the core.

>>> from xenophon.kernel.registry import GAMES
>>> [game] = positions_job(GAMES[-1], {}, "ismcts:iterations=20", 0.1, 4, seed=3)
>>> game["seed"], len(game["positions"]) <= 4
(3, True)
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.evaluation import HiddenUnit, Weights
from xenophon.kernel.game import CHANCE, Game
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.gradient import AdamTrainer, jax_modules
from xenophon.lab.jobs import Job, RunError, read_results, results_config, results_header
from xenophon.play.players import make_bot

#: the L2 penalties tried (per position, on standardised features); the one
#: with the lowest validation log-loss is refitted on all training games. None
#: below 1e-3: validation positions are drawn like the training ones, so they
#: cannot see how a fit extrapolates to positions self-play rarely reaches;
#: with 1e-5 a fit on 5,792 games put +16 on sqrt(HP) and +15 on
#: 1 / (1 + HP) in the opening, and scored an avatar at 1 HP facing a lethal
#: flyer on turn 3 as a 47% win (6% at 1e-3, whose held-out log-loss was
#: 0.3557 against 0.3545: docs/evaluation.md)
L2_GRID = (1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0)
NEWTON_STEPS = 30
PROBABILITY_FLOOR = 1e-6  # log-loss of a probability clipped to [floor, 1 - floor]
TAPER_QUANTILE = 0.9  # taper_turns: this quantile of the training games' lengths


# -- generation -----------------------------------------------------------------


def positions_job(
    game: str, options: dict[str, str], bot: str, explore: float, positions: int, seed: int
) -> list[dict[str, Any]]:
    """One self-play game (the job of `xenophon.lab.jobs`): the bot plays both
    seats, a uniformly random move instead of its choice with probability
    `explore`. The game is kept as its action codes (chance outcomes
    included), so it replays on any build of the core; up to `positions` of
    its decisions with two or more legal moves are kept (drawn uniformly),
    each as the index of the code played there, its turn, and the search's
    root value for seat 0 (None after a random move)."""
    played = game_from_texts(game, options, seed=seed)
    bots = [make_bot(bot, seed * 2 + seat) for seat in range(2)]
    rng = random.Random(seed)
    state = played.new_initial_state()
    codes: list[int] = []
    kept: list[list[Any]] = []
    decisions = 0
    while not state.is_terminal():
        player = state.current_player
        legal = state.legal_actions()
        if player == CHANCE or len(legal) == 1:
            code = state.sample_chance(played.rng).code if player == CHANCE else legal[0]
        else:
            value: float | None = None
            if rng.random() < explore:
                code = rng.choice(legal)
            else:
                result = bots[player].analyse(state)
                code = result.best.move.code
                p = result.best.win_probability
                value = round(p if player == 0 else 1 - p, 4)
            decisions += 1
            row = [len(codes), state.backend.turn(), value]
            if len(kept) < positions:  # reservoir sampling
                kept.append(row)
            else:
                slot = rng.randrange(decisions)
                if slot < positions:
                    kept[slot] = row
        codes.append(code)
        state.apply_code(code)
    kept.sort()
    return [
        {
            "seed": seed,
            "returns": state.returns(),
            "decisions": decisions,
            "codes": codes,
            "positions": kept,
        }
    ]


def positions_jobs(
    game: str, options: dict[str, str], bot: str, explore: float, positions: int, seeds: list[int]
) -> list[Job]:
    return [
        Job(
            str(seed),
            "tune_positions",
            {
                "game": game,
                "options": options,
                "bot": bot,
                "explore": explore,
                "positions": positions,
                "seed": seed,
            },
        )
        for seed in seeds
    ]


def earlier_games(path: str, game: str, options: dict[str, str]) -> list[dict[str, Any]]:
    """The finished self-play games of an earlier `xenophon tune` results
    file of the same game and options (another generation: its own bot,
    budget and seeds), in job order, to fit on together with this run's."""
    config = results_config(path, "tune")
    if config.get("game") != game or config.get("options") != options:
        raise RunError(
            f"{path}: self-play games of {shown(repr(config.get('game')))} with options "
            f"{shown(repr(config.get('options')))}, not of {game!r} with {options!r}"
        )
    finished = read_results(path, results_header("tune", config), None)
    return [finished[key][0] for key in sorted(finished, key=_job_order)]


def _job_order(key: str) -> tuple[int, str]:
    """Jobs are keyed by their seed: numeric order, the way they were played."""
    return (int(key), key) if key.isdigit() else (0, key)


# -- the data set -----------------------------------------------------------------


@dataclass
class Positions:
    """Labelled positions from seat 0's side: features, hand-set evaluation,
    turn, label (1 win, 0.5 draw, 0 loss), game index."""

    x: np.ndarray
    hand: np.ndarray
    turn: np.ndarray
    y: np.ndarray
    game: np.ndarray
    value: np.ndarray  # the search's root value for seat 0 (nan: none)
    last_turn: np.ndarray  # per game: its final turn

    def subset(self, mask: np.ndarray) -> Positions:
        return Positions(
            self.x[mask],
            self.hand[mask],
            self.turn[mask],
            self.y[mask],
            self.game[mask],
            self.value[mask],
            self.last_turn,
        )


def load_positions(game: Game, games: list[dict[str, Any]]) -> Positions:
    """The positions of finished self-play games (job order), replayed and
    featurised by the C core of `game`."""
    xs, hands, turns, ys, ids, values, last = [], [], [], [], [], [], []
    for index, played in enumerate(games):
        label = (played["returns"][0] + 1) / 2
        state = game.new_initial_state().backend
        done = 0
        for at, turn, value in played["positions"]:
            for code in played["codes"][done:at]:
                state.apply(code)
            done = at
            xs.append(state.features(0))
            hands.append(state.evaluate(0))
            turns.append(turn)
            ys.append(label)
            ids.append(index)
            values.append(math.nan if value is None else value)
        last.append(max((row[1] for row in played["positions"]), default=0))
    n_features = len(game.tables.feature_names)
    return Positions(
        np.array(xs, dtype=float).reshape(-1, n_features),
        np.array(hands),
        np.array(turns, dtype=float),
        np.array(ys),
        np.array(ids, dtype=int),
        np.array(values),
        np.array(last, dtype=float),
    )


def held_out_games(n_games: int, fraction: float, seed: int) -> np.ndarray:
    """A boolean per game: True for the held-out ones (a seeded draw of whole games)."""
    order = np.random.default_rng(seed).permutation(n_games)
    held = np.zeros(n_games, dtype=bool)
    held[order[: int(round(n_games * fraction))]] = True
    return held


# -- the fit --------------------------------------------------------------------


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def accuracy(p: np.ndarray, y: np.ndarray) -> float:
    """The share of decided games' positions whose winner p > 1/2 names."""
    decided = y != 0.5
    if not decided.any():
        return float("nan")
    return float(np.mean((p[decided] > 0.5) == (y[decided] > 0.5)))


def tapered(x: np.ndarray, turn: np.ndarray, taper_turns: int) -> np.ndarray:
    """[x * (1 - ph), x * ph]: the design matrix of opening and ending weights."""
    ph = np.minimum(turn, taper_turns)[:, None] / taper_turns
    return np.hstack([x * (1 - ph), x * ph])


def fit_logistic(a: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Weights w minimising mean log-loss of sigmoid(a @ w) + l2 / 2 * |w|^2
    (Newton's method; no intercept: the features are antisymmetric)."""
    n, d = a.shape
    w = np.zeros(d)
    for _ in range(NEWTON_STEPS):
        p = sigmoid(a @ w)
        gradient = a.T @ (p - y) / n + l2 * w
        hessian = (a * (p * (1 - p))[:, None]).T @ a / n + l2 * np.eye(d)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def fit_scale(v: np.ndarray, y: np.ndarray) -> float:
    """The single scale k for which sigmoid(k * v) fits y best (the hand-set
    evaluation mapped to a probability)."""
    return float(fit_logistic(v[:, None], y, 0.0)[0])


@dataclass
class Fit:
    weights: Weights
    l2: float
    hand_scale: float
    report: dict[str, Any] = field(default_factory=dict)


#: how the design matrix's columns are scaled before the L2 penalty applies:
#: "feature" gives a feature's opening and ending columns one scale (its RMS
#: over both), so a feature that barely varies in one phase cannot take a
#: large weight there; "column" scales each column to unit RMS alone (how
#: generation 0 was fitted: a deck_danger weight took +178 in the opening and
#: -46 in the ending)
SCALINGS = ("feature", "column")


def column_scales(a: np.ndarray, scaling: str) -> np.ndarray:
    """The scale of each column of the tapered design matrix `a`."""
    if scaling == "column":
        rms = np.sqrt(np.mean(a * a, axis=0))
    else:
        n = a.shape[1] // 2
        rms = np.tile(np.sqrt(np.mean(a[:, :n] ** 2 + a[:, n:] ** 2, axis=0)), 2)
    rms[rms == 0] = 1.0
    return rms


def _scaled_fit(a: np.ndarray, y: np.ndarray, l2: float, scaling: str) -> np.ndarray:
    """fit_logistic on scaled columns (`column_scales`), the weights scaled back."""
    rms = column_scales(a, scaling)
    return fit_logistic(a / rms, y, l2) / rms


def validation_games(games: np.ndarray, seed: int) -> np.ndarray:
    """True for the positions of a seeded fifth of the training games (the
    validation set of the L2 penalty and of the network's early stopping)."""
    unique = np.unique(games)
    return np.isin(games, unique[held_out_games(len(unique), 0.2, seed + 1)])


def choose_l2(a: np.ndarray, y: np.ndarray, games: np.ndarray, seed: int, scaling: str) -> float:
    """The L2 penalty of L2_GRID with the least log-loss on a validation fifth
    of the training games."""
    valid = validation_games(games, seed)
    losses = [
        log_loss(sigmoid(a[valid] @ _scaled_fit(a[~valid], y[~valid], l2, scaling)), y[valid])
        for l2 in L2_GRID
    ]
    return L2_GRID[int(np.argmin(losses))]


def _scores(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    return {"log_loss": round(log_loss(p, y), 5), "accuracy": round(accuracy(p, y), 5)}


def fit(
    game: Game,
    data: Positions,
    held_fraction: float,
    seed: int,
    blend: float = 0.0,
    scaling: str = "feature",
    model: str = "linear",
    hidden: int = 0,
    progress: bool = False,
) -> Fit:
    """The learned weights from the training games and the report on the
    held-out ones. `blend` mixes the search's root value into the label
    (0: the final result only); `scaling`: one of SCALINGS; `model`: one of
    MODELS ("mlp": the linear fit and a hidden layer of `hidden` units)."""
    held_games = held_out_games(len(data.last_turn), held_fraction, seed)
    test = held_games[data.game]
    train, held = data.subset(~test), data.subset(test)
    if len(train.y) == 0 or len(held.y) == 0:
        raise XenophonError(
            "too few games to fit: both the training and the held-out set "
            "need positions (play more games)"
        )
    target = train.y
    if blend > 0:
        known = ~np.isnan(train.value)
        target = np.where(
            known, (1 - blend) * train.y + blend * np.nan_to_num(train.value), train.y
        )
    taper = max(1, int(np.quantile(data.last_turn[~held_games], TAPER_QUANTILE)))
    a_train = tapered(train.x, train.turn, taper)
    l2 = choose_l2(a_train, target, train.game, seed, scaling)
    w = _scaled_fit(a_train, target, l2, scaling)
    n = train.x.shape[1]
    names = tuple(game.tables.feature_names)
    linear = Weights(
        game.name,
        names,
        tuple(round(float(v), 6) for v in w[:n]),
        tuple(round(float(v), 6) for v in w[n:]),
        taper,
    )
    details: dict[str, Any]
    weights, details = linear, {}
    if model == "mlp":
        weights, details = fit_network(linear, train, target, l2, scaling, hidden, seed, progress)
    hand_scale = fit_scale(train.hand, train.y)
    constant = np.full(len(held.y), float(np.mean(train.y)))
    held_out = {"learned": _scores(sigmoid(learned_z(weights, held.x, held.turn)), held.y)}
    if model == "mlp":
        held_out["linear"] = _scores(sigmoid(learned_z(linear, held.x, held.turn)), held.y)
    held_out["hand"] = _scores(sigmoid(hand_scale * held.hand), held.y)
    held_out["constant"] = _scores(constant, held.y)
    report = {
        "games": {"train": int((~held_games).sum()), "held_out": int(held_games.sum())},
        "positions": {"train": int(len(train.y)), "held_out": int(len(held.y))},
        "taper_turns": taper,
        "l2": l2,
        "hand_scale": round(hand_scale, 5),
        **details,
        "held_out": held_out,
        "train_log_loss": {
            "learned": round(
                log_loss(sigmoid(learned_z(weights, train.x, train.turn)), train.y), 5
            ),
            "hand": round(log_loss(sigmoid(hand_scale * train.hand), train.y), 5),
        },
    }
    for other in ("hand", "linear"):
        if other in held_out:
            loss = held_out[other]["log_loss"]
            report[f"log_loss_reduction_vs_{other}"] = (
                round(1 - held_out["learned"]["log_loss"] / loss, 5) if loss else None
            )
    return Fit(weights, l2, hand_scale, report)


# -- the network ------------------------------------------------------------------
#
# z = linear(x, ph) + sum_j v_j (tanh(c_j + a_j) - tanh(c_j - a_j)), with
# a = W x and c = b + ph u (learned.h): odd in x, so the value stays
# antisymmetric, and the phase an input of each unit. It starts as the linear
# fit (the output weights v at zero) and is trained whole, linear part
# included, by mini-batch Adam on the scaled features (optax; the gradients
# JAX's: the train extra, xenophon.lab.gradient), with early stopping on
# the validation fifth of the training games; the epochs and the L2 penalty
# found there are then trained again on all the training games.

MODELS = ("linear", "mlp")
DEFAULT_HIDDEN = 32
NETWORK_L2_GRID = (1e-4, 1e-3, 1e-2)  # on the hidden layer's weights
NETWORK_MAX_EPOCHS = 150
NETWORK_PATIENCE = 12  # epochs without a better validation loss
NETWORK_BATCH = 1024
NETWORK_LEARNING_RATE = 3e-4
NETWORK_INIT_SCALE = 1.0  # std of W · sqrt(features), on unit-RMS inputs
#: significant digits of a network's weights in its file (W is divided by
#: the features' scales, so its raw values span many orders of magnitude)
NETWORK_DIGITS = 8


@dataclass
class Network:
    """A network's parameters: the linear weights over the tapered design
    matrix [x (1 - ph), x ph], the hidden weights W (units x features), the
    hidden biases b, phase weights u and output weights v."""

    linear: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    phase: np.ndarray
    output: np.ndarray

    def arrays(self) -> list[np.ndarray]:
        return [self.linear, self.weights, self.bias, self.phase, self.output]

    def copy(self) -> Network:
        return Network(*(array.copy() for array in self.arrays()))


@dataclass
class Design:
    """What the network reads of some positions: the tapered design matrix
    `a`, the features `x` and the phase `ph`, each as the network sees them."""

    a: np.ndarray
    x: np.ndarray
    ph: np.ndarray

    def rows(self, index: np.ndarray) -> Design:
        return Design(self.a[index], self.x[index], self.ph[index])


def phase_of(turn: np.ndarray, taper_turns: int) -> np.ndarray:
    return np.minimum(turn, taper_turns) / taper_turns


def _forward(p: dict[str, Any], d: Design, xp: ModuleType = np) -> tuple[Any, Any, Any]:
    """z and the two tanh terms of each unit (rows: positions) of the
    network's arrays `p` (named as Network's fields); `xp` is numpy or
    jax.numpy (training)."""
    h = d.x @ p["weights"].T
    c = p["bias"] + d.ph[:, None] * p["phase"]
    plus, minus = xp.tanh(c + h), xp.tanh(c - h)
    return d.a @ p["linear"] + (plus - minus) @ p["output"], plus, minus


def network_z(net: Network, d: Design) -> np.ndarray:
    return _forward(vars(net), d)[0]


def learned_z(weights: Weights, x: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """z of the learned evaluation (learned.h; value = tanh(z / 2)) at rows
    of raw features x and their turns: the numpy forward pass of the C one."""
    a = tapered(x, turn, weights.taper_turns)
    linear = np.array(weights.opening + weights.ending)
    if not weights.hidden:
        return a @ linear
    units = weights.hidden
    net = Network(
        linear,
        np.array([unit.weights for unit in units]),
        np.array([unit.bias for unit in units]),
        np.array([unit.phase for unit in units]),
        np.array([unit.output for unit in units]),
    )
    return network_z(net, Design(a, x, phase_of(turn, weights.taper_turns)))


def _training_loss(l2_linear: float, l2: float) -> Any:
    """The mean log-loss plus the L2 penalties (the linear fit's on the
    linear weights, `l2` on W and v), in jax.numpy: what Adam minimises."""

    def loss(p: dict[str, Any], a: Any, x: Any, ph: Any, y: Any) -> Any:
        jax, jnp, _ = jax_modules()
        z = _forward(p, Design(a, x, ph), jnp)[0]
        log_loss = -(y * jax.nn.log_sigmoid(z) + (1 - y) * jax.nn.log_sigmoid(-z)).mean()
        penalty = l2_linear * (p["linear"] ** 2).sum() + l2 * (
            (p["weights"] ** 2).sum() + (p["output"] ** 2).sum()
        )
        return log_loss + penalty / 2

    return loss


def initial_network(linear: np.ndarray, n_features: int, hidden: int, seed: int) -> Network:
    """The linear fit and a hidden layer of seeded random weights whose
    output weights are zero: z starts as the linear fit's."""
    rng = np.random.default_rng(seed)
    scale = NETWORK_INIT_SCALE / math.sqrt(n_features)
    return Network(
        linear.copy(),
        rng.normal(0.0, scale, (hidden, n_features)),
        np.zeros(hidden),
        np.zeros(hidden),
        np.zeros(hidden),
    )


def train_network(
    net: Network,
    d: Design,
    y: np.ndarray,
    l2_linear: float,
    l2: float,
    epochs: int,
    seed: int,
    valid: tuple[Design, np.ndarray] | None = None,
    bar: Any = None,
) -> tuple[Network, int]:
    """Mini-batch Adam for up to `epochs` epochs (seeded shuffles). With
    `valid`, stops once NETWORK_PATIENCE epochs pass without a lower
    validation log-loss and returns the best epoch's network (epoch 0: the
    start); without, returns the last. Returns (network, its epoch)."""
    rng = np.random.default_rng(seed)
    trainer = AdamTrainer(_training_loss(l2_linear, l2), vars(net), NETWORK_LEARNING_RATE)
    best, best_epoch, best_loss = net.copy(), 0, math.inf
    if valid is not None:
        best_loss = log_loss(sigmoid(network_z(net, valid[0])), valid[1])
    data = [d.a, d.x, d.ph, y]
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(y))
        for start in range(0, len(y), NETWORK_BATCH):
            batch = order[start : start + NETWORK_BATCH]
            trainer.step(*(array[batch].astype(np.float32) for array in data))
        net = Network(**trainer.params())
        if bar is not None:
            bar.update(1)
        if valid is None:
            continue
        loss = log_loss(sigmoid(network_z(net, valid[0])), valid[1])
        if loss < best_loss:
            best, best_epoch, best_loss = net.copy(), epoch, loss
        elif epoch - best_epoch >= NETWORK_PATIENCE:
            break
    return (best, best_epoch) if valid is not None else (net, epochs)


def _significant(value: float) -> float:
    return float(f"{value:.{NETWORK_DIGITS}g}")


def network_weights(
    linear: Weights, net: Network, column_scale: np.ndarray, feature_scale: np.ndarray
) -> Weights:
    """The weights file's numbers of a network trained on scaled inputs."""
    n = len(linear.features)
    raw = net.linear / column_scale
    units = tuple(
        HiddenUnit(
            tuple(_significant(v) for v in net.weights[j] / feature_scale),
            _significant(net.bias[j]),
            _significant(net.phase[j]),
            _significant(net.output[j]),
        )
        for j in range(len(net.bias))
    )
    return Weights(
        linear.game,
        linear.features,
        tuple(_significant(v) for v in raw[:n]),
        tuple(_significant(v) for v in raw[n:]),
        linear.taper_turns,
        hidden=units,
    )


def fit_network(
    linear: Weights,
    train: Positions,
    target: np.ndarray,
    l2_linear: float,
    scaling: str,
    hidden: int,
    seed: int,
    progress: bool = False,
) -> tuple[Weights, dict[str, Any]]:
    """A network on the training positions, started from the linear fit
    `linear` (its L2 penalty `l2_linear`): the L2 penalty of the hidden layer
    and the epochs chosen on the validation fifth of the training games,
    then trained again on all of them. Returns its weights and what the
    report says of it."""
    from tqdm import tqdm

    taper = linear.taper_turns
    a = tapered(train.x, train.turn, taper)
    column_scale = column_scales(a, scaling)
    feature_scale = np.sqrt(np.mean(train.x**2, axis=0))
    feature_scale[feature_scale == 0] = 1.0
    design = Design(a / column_scale, train.x / feature_scale, phase_of(train.turn, taper))
    valid = validation_games(train.game, seed)
    fit_rows, valid_rows = np.flatnonzero(~valid), np.flatnonzero(valid)
    n_features = train.x.shape[1]
    total = NETWORK_MAX_EPOCHS * (len(NETWORK_L2_GRID) + 1)
    with tqdm(total=total, desc="network", unit="epoch", disable=not progress, leave=False) as bar:
        start = fit_logistic(design.a[fit_rows], target[fit_rows], l2_linear)
        tried = []
        for l2 in NETWORK_L2_GRID:
            net = initial_network(start, n_features, hidden, seed)
            trained, epoch = train_network(
                net,
                design.rows(fit_rows),
                target[fit_rows],
                l2_linear,
                l2,
                NETWORK_MAX_EPOCHS,
                seed,
                (design.rows(valid_rows), train.y[valid_rows]),
                bar,
            )
            loss = log_loss(
                sigmoid(network_z(trained, design.rows(valid_rows))), train.y[valid_rows]
            )
            tried.append((loss, l2, epoch))
        loss, l2, epochs = min(tried)
        net = initial_network(
            np.array(linear.opening + linear.ending) * column_scale, n_features, hidden, seed
        )
        net, _ = train_network(net, design, target, l2_linear, l2, epochs, seed, bar=bar)
    details = {
        "model": "mlp",
        "hidden": hidden,
        "network_l2": l2,
        "epochs": epochs,
        "validation_log_loss": {
            f"{l2_tried:g}": round(loss_tried, 5) for loss_tried, l2_tried, _ in tried
        },
    }
    return network_weights(linear, net, column_scale, feature_scale), details


def report_text(game_name: str, report: dict[str, Any]) -> str:
    """The report as a small table."""
    model = ""
    if report.get("model") == "mlp":
        model = (
            f"; a network of {report['hidden']} hidden units, L2 "
            f"{report['network_l2']:g}, {report['epochs']} epochs"
        )
    lines = [
        f"{game_name}: {report['games']['train']} training games "
        f"({report['positions']['train']} positions), {report['games']['held_out']} "
        f"held out ({report['positions']['held_out']} positions); taper "
        f"{report['taper_turns']} turns, L2 {report['l2']:g}{model}",
        f"{'held-out positions':<34} {'log-loss':>9} {'accuracy':>9}",
    ]
    names = {
        "learned": "learned evaluation",
        "linear": "linear fit",
        "hand": f"hand-set, best scale ({report['hand_scale']:g})",
        "constant": "constant (training mean)",
    }
    for key, label in names.items():
        if key in report["held_out"]:
            scores = report["held_out"][key]
            lines.append(f"{label:<34} {scores['log_loss']:>9.4f} {scores['accuracy']:>9.4f}")
    for other, label in (("hand", "the hand-set evaluation's"), ("linear", "the linear fit's")):
        reduction = report.get(f"log_loss_reduction_vs_{other}")
        if reduction is not None:
            side = "below" if reduction >= 0 else "above"
            lines.append(f"log-loss {100 * abs(reduction):.1f}% {side} {label}")
    return "\n".join(lines)


def timed(function: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start
