"""The sparse-input network of the learning loop (docs/learning.md): its
value and policy on logged positions in numpy (the reference of the C
evaluation), and its training with JAX and optax (xenophon.lab.gradient).

The value is the one src/engine_c/network.h computes (its comment gives the
formula): two clipped-ReLU accumulators, one from each side's perspective,
over the raw inputs of both sides and the learned evaluation's features, made
antisymmetric by taking the difference of the two; beside it the learned
evaluation's tapered linear term, started from the shipped weights, so that
an untrained network (output weights 0) is today's evaluation.

The policy head scores each legal move of a decision from the perspective
of the player to move: logit = policy[bucket(code)] · h + policy_bias[bucket],
a move's code hashed to one of `buckets` rows (a hashed embedding: moves of
one game share rows by chance). The search may take its softmax over a
node's moves as its priors (priors=net, src/engine_c/network.h).

Training: mini-batch Adam (optax) on the value's log-loss against a target that
blends the game's result with the search's root value, plus the policy's
cross-entropy against the root visit shares; seeded (same data and seed,
same file); the best epoch on held-out games is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from xenophon.kernel.evaluation import (
    NETWORK_FILE_VERSION,
    NETWORK_FORMAT,
    Network,
    Weights,
)
from xenophon.lab.gradient import AdamTrainer, jax_modules

DEFAULT_BUCKETS = 1024
#: a training batch's moves are padded to a multiple of this
MOVE_PADDING = 4096


def buckets_of(codes: np.ndarray, buckets: int) -> np.ndarray:
    """Each move code's row of the policy head (a multiplicative hash)."""
    mixed = (codes.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    return (mixed % np.uint64(buckets)).astype(np.int64)


@dataclass
class Batch:
    """Positions as the model reads them (float64), moves ragged by `start`."""

    own: np.ndarray
    enemy: np.ndarray
    x: np.ndarray
    ph: np.ndarray
    target: np.ndarray  # the value's target, a probability of winning
    start: np.ndarray  # move_start, relative to this batch
    bucket: np.ndarray  # each move's policy row
    share: np.ndarray  # each move's share of its decision's visits


def phase(turn: np.ndarray, taper_turns: int) -> np.ndarray:
    return np.minimum(turn.astype(np.float64), taper_turns) / taper_turns


def new_params(
    n_in: int, n_f: int, hidden: int, buckets: int, linear: Weights, seed: int
) -> dict[str, np.ndarray]:
    """A network that evaluates as `linear` does (output weights 0), its
    first layer drawn small at random."""
    rng = np.random.default_rng(seed)
    scale = 0.1
    return {
        "w_own": rng.normal(0, scale / np.sqrt(8), (n_in, hidden)),
        "w_enemy": rng.normal(0, scale / np.sqrt(8), (n_in, hidden)),
        "w_feature": rng.normal(0, scale / np.sqrt(8), (n_f, hidden)),
        "bias": np.full(hidden, 0.5),
        "phase": np.zeros(hidden),
        "output": np.zeros(hidden),
        "opening": np.asarray(linear.opening, dtype=np.float64),
        "ending": np.asarray(linear.ending, dtype=np.float64),
        "policy": np.zeros((buckets, hidden)),
        "policy_bias": np.zeros(buckets),
    }


class Rows(NamedTuple):
    """Positions as the training step reads them (float32), each row with a
    weight: 1, or 0 for the rows that pad a batch to its fixed size."""

    own: Any
    enemy: Any
    x: Any
    ph: Any
    target: Any
    weight: Any


class Moves(NamedTuple):
    """The moves of a Rows batch: each one's row (`seg`; padding moves name
    the row one past the last, with no share), policy row and visit share."""

    seg: Any
    bucket: Any
    share: Any


def _accumulators(p: dict[str, Any], b: Any) -> tuple[Any, Any]:
    """The two perspectives' first layers (numpy or jax.numpy arrays alike)."""
    base = p["bias"] + b.ph[:, None] * p["phase"]
    xf = b.x @ p["w_feature"]
    mine = b.own @ p["w_own"] + b.enemy @ p["w_enemy"] + xf + base
    theirs = b.enemy @ p["w_own"] + b.own @ p["w_enemy"] - xf + base
    return mine, theirs


def _z(p: dict[str, Any], b: Any, mine: Any, theirs: Any, xp: ModuleType) -> Any:
    linear = ((1 - b.ph)[:, None] * p["opening"] + b.ph[:, None] * p["ending"]) * b.x
    return linear.sum(axis=1) + (xp.clip(mine, 0, 1) - xp.clip(theirs, 0, 1)) @ p["output"]


def value_z(p: dict[str, Any], b: Any, xp: ModuleType = np) -> Any:
    """z of each position (value = tanh(z / 2), sigmoid(z) the chance of
    winning); `xp` is numpy (the reference of the C value) or jax.numpy (training)."""
    mine, theirs = _accumulators(p, b)
    return _z(p, b, mine, theirs, xp)


def _segments(start: np.ndarray) -> np.ndarray:
    """Each move's decision (row) from the ragged starts."""
    return np.repeat(np.arange(len(start) - 1), np.diff(start))


def root_losses(p: dict[str, Any], roots: Rows, moves: Moves) -> tuple[Any, Any]:
    """(the value's log-loss against the targets, the policy's cross-entropy
    against the visit shares), each a mean over the rows of weight 1: the
    training loss, in jax.numpy. A forced move's decision has no visits and
    adds no cross-entropy."""
    jax, jnp, _ = jax_modules()
    n = roots.weight.sum()
    mine, theirs = _accumulators(p, roots)
    z = _z(p, roots, mine, theirs, jnp)
    value = _weighted_log_loss(z, roots.target, roots.weight, jax) / n
    h1 = jnp.clip(mine, 0, 1)  # the policy reads the player to move's perspective
    logits = (h1[moves.seg] * p["policy"][moves.bucket]).sum(axis=1) + p["policy_bias"][
        moves.bucket
    ]
    segments = roots.own.shape[0] + 1  # the last one holds the padding moves
    top = jax.ops.segment_max(jax.lax.stop_gradient(logits), moves.seg, segments)
    total = jax.ops.segment_sum(jnp.exp(logits - top[moves.seg]), moves.seg, segments)
    log_soft = logits - top[moves.seg] - jnp.log(total[moves.seg])
    return value, -(moves.share * log_soft).sum() / n


def _weighted_log_loss(z: Any, target: Any, weight: Any, jax: ModuleType) -> Any:
    """The summed log-loss of win chances sigmoid(z), computed from z stably."""
    log_p, log_q = jax.nn.log_sigmoid(z), jax.nn.log_sigmoid(-z)
    return -(weight * (target * log_p + (1 - target) * log_q)).sum()


def training_loss(
    policy_weight: float, leaf_weight: float
) -> Callable[[dict[str, Any], Rows, Moves, Rows], Any]:
    """The loss of a training step: the roots' value log-loss, plus
    `policy_weight` times their policy cross-entropy, plus `leaf_weight`
    times the value log-loss on a batch of leaves."""

    def loss(p: dict[str, Any], roots: Rows, moves: Moves, leaves: Rows) -> Any:
        jax, jnp, _ = jax_modules()
        value, policy = root_losses(p, roots, moves)
        total = value + policy_weight * policy
        if leaf_weight > 0:
            z = value_z(p, leaves, jnp)
            total = (
                total
                + leaf_weight
                * _weighted_log_loss(z, leaves.target, leaves.weight, jax)
                / leaves.weight.sum()
            )
        return total

    return loss


def _pad(values: np.ndarray, size: int, fill: float) -> np.ndarray:
    extra = size - len(values)
    return np.concatenate([values, np.full((extra, *values.shape[1:]), fill, values.dtype)])


def training_rows(b: Batch, rows: int) -> tuple[Rows, Moves]:
    """A numpy Batch as the training step reads it: float32, its rows padded
    to `rows` and its moves to a multiple of MOVE_PADDING (so that the step
    compiles for a few shapes only)."""
    n = len(b.target)
    seg = _segments(b.start)
    move_rows = -(-max(len(seg), 1) // MOVE_PADDING) * MOVE_PADDING
    f32 = np.float32
    return (
        Rows(
            own=_pad(b.own.astype(f32), rows, 0),
            enemy=_pad(b.enemy.astype(f32), rows, 0),
            x=_pad(b.x.astype(f32), rows, 0),
            ph=_pad(b.ph.astype(f32), rows, 0),
            target=_pad(b.target.astype(f32), rows, 0.5),
            weight=_pad(np.ones(n, f32), rows, 0),
        ),
        Moves(
            seg=_pad(seg.astype(np.int32), move_rows, rows),
            bucket=_pad(b.bucket.astype(np.int32), move_rows, 0),
            share=_pad(b.share.astype(f32), move_rows, 0),
        ),
    )


def batch_of(
    log: dict[str, np.ndarray], rows: np.ndarray, taper: int, blend: float, buckets: int
) -> Batch:
    """The positions `rows` of a joined log (xenophon.lab.learnlog.read_log)."""
    starts = log["move_start"]
    pieces = [np.arange(starts[r], starts[r + 1]) for r in rows]
    moves = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum([len(m) for m in pieces])]).astype(np.int64)
    visits = log["move_visits"][moves].astype(np.float64)
    seg = _segments(start)
    totals = np.bincount(seg, weights=visits, minlength=len(rows))
    share = visits / np.maximum(totals[seg], 1)
    result = log["result"][rows].astype(np.float64)
    searched = (log["root_value"][rows].astype(np.float64) + 1) / 2
    # a forced move was not searched (no visits): its target is the result alone
    searched = np.where(totals > 0, searched, result)
    deep = log["deep_value"][rows].astype(np.float64)
    searched = np.where(np.isnan(deep), searched, (deep + 1) / 2)
    return Batch(
        own=log["own"][rows].astype(np.float64),
        enemy=log["enemy"][rows].astype(np.float64),
        x=log["features"][rows].astype(np.float64),
        ph=phase(log["turn"][rows], taper),
        target=(1 - blend) * result + blend * searched,
        start=start,
        bucket=buckets_of(log["move_code"][moves], buckets),
        share=share,
    )


def leaf_batch(log: dict[str, np.ndarray], leaves: np.ndarray, taper: int) -> Batch:
    """The logged leaves `leaves` (xenophon.lab.learnlog.LEAF_KEYS) as
    positions of their decision's player, the target the root search's win
    probability of the leaf's move; no moves (the policy is not trained on them)."""
    n = len(leaves)
    return Batch(
        own=log["leaf_own"][leaves].astype(np.float64),
        enemy=log["leaf_enemy"][leaves].astype(np.float64),
        x=log["leaf_features"][leaves].astype(np.float64),
        ph=phase(log["leaf_turn"][leaves], taper),
        target=log["leaf_value"][leaves].astype(np.float64),
        start=np.zeros(n + 1, dtype=np.int64),
        bucket=np.zeros(0, dtype=np.int64),
        share=np.zeros(0),
    )


def sibling_concordance(z: np.ndarray, target: np.ndarray, decision: np.ndarray) -> float:
    """The share of pairs of leaves of one decision, with different targets,
    that z orders as the target does (ties in z count half): how well an
    evaluation ranks a node's children as the search valued them."""
    agree = pairs = 0.0
    order = np.argsort(decision, kind="stable")
    d, zs, ts = decision[order], z[order], target[order]
    bounds = np.flatnonzero(np.diff(d)) + 1
    for zg, tg in zip(np.split(zs, bounds), np.split(ts, bounds), strict=True):
        if len(zg) < 2:
            continue
        dz = np.sign(zg[:, None] - zg[None, :])
        dt = np.sign(tg[:, None] - tg[None, :])
        upper = np.triu(np.ones_like(dz, dtype=bool), 1) & (dt != 0)
        pairs += upper.sum()
        agree += ((dz == dt) & upper).sum() + 0.5 * ((dz == 0) & upper).sum()
    return float(agree / pairs) if pairs else float("nan")


def leaf_report(
    log: dict[str, np.ndarray], leaves: np.ndarray, taper: int, models: dict[str, Any]
) -> dict[str, Any]:
    """Each model's (name: parameters) log-loss against the leaves' targets and
    sibling concordance on the leaves `leaves`."""
    b = leaf_batch(log, leaves, taper)
    report: dict[str, Any] = {"leaves": int(len(leaves))}
    for name, params in models.items():
        z = value_z(params, b)
        report[name] = {
            "log_loss": log_loss(1 / (1 + np.exp(-z)), b.target),
            "sibling_concordance": sibling_concordance(z, b.target, log["leaf_row"][leaves]),
        }
    return report


def correction_split(
    z: np.ndarray, z_linear: np.ndarray, side: np.ndarray, target: np.ndarray
) -> dict[str, float]:
    """How a model's correction to the linear value, d = z - z_linear, splits
    into a part constant over each `side` (a game and a player: what the deal
    gives that side) and the part that varies within it, with the log-loss
    against `target` of the linear value plus each part alone."""
    _, index = np.unique(side, return_inverse=True)
    d = z - z_linear
    per_side = (np.bincount(index, weights=d) / np.bincount(index))[index]

    def loss(zz: np.ndarray) -> float:
        return log_loss(1 / (1 + np.exp(-zz)), target)

    return {
        "variance": float(d.var()),
        "variance_per_side": float(per_side.var()),
        "variance_within": float((d - per_side).var()),
        "log_loss_linear_plus_per_side": loss(z_linear + per_side),
        "log_loss_linear_plus_within": loss(z_linear + d - per_side),
    }


def log_report(
    log: dict[str, np.ndarray], taper: int, models: dict[str, Any], linear: str
) -> dict[str, Any]:
    """Each model's figures on every position of a log: its log-loss against
    the results of the roots, the spread of its z, its correction's split
    (correction_split, against the model named `linear`) and, on a log with
    leaves, its leaf_report."""
    roots = batch_of(log, np.arange(len(log["turn"])), taper, 0.0, 1)
    side = log["game"].astype(np.int64) * 2 + log["player"]
    zs = {name: value_z(params, roots) for name, params in models.items()}
    report: dict[str, Any] = {"roots": int(len(roots.target)), "models": {}}
    for name, z in zs.items():
        report["models"][name] = {
            "root_log_loss": log_loss(1 / (1 + np.exp(-z)), roots.target),
            "z_std": float(z.std()),
            "value_std": float(np.tanh(z / 2).std()),
        }
        if name != linear:
            report["models"][name]["correction"] = correction_split(
                z, zs[linear], side, roots.target
            )
    if "leaf_row" in log:
        report["leaves"] = leaf_report(log, np.arange(len(log["leaf_row"])), taper, models)
    return report


def held_out_mask(games: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    """A seeded `fraction` of the games (by game number), as a mask over positions."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed + 7)
    chosen = rng.choice(ids, size=max(1, int(round(fraction * len(ids)))), replace=False)
    return np.isin(games, chosen)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def train(
    log: dict[str, np.ndarray],
    linear: Weights,
    *,
    hidden: int = 32,
    buckets: int = DEFAULT_BUCKETS,
    epochs: int = 20,
    batch: int = 512,
    rate: float = 1e-3,
    blend: float = 0.5,
    policy_weight: float = 0.1,
    leaf_weight: float = 0.0,
    held_out: float = 0.1,
    patience: int = 4,
    seed: int = 1,
    progress: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The trained parameters and a report of held-out figures: Adam
    (optax) on training_loss, its gradients by JAX (the train extra). With
    `leaf_weight` and a log with leaves, each step adds that weight times the
    value's log-loss on as many leaves of the training games, against the
    root search's values of their moves."""
    jax_modules()  # one line, before any work, when the train extra is missing
    from tqdm import tqdm

    taper = linear.taper_turns
    n_in, n_f = log["own"].shape[1], log["features"].shape[1]
    params = new_params(n_in, n_f, hidden, buckets, linear, seed)
    out = held_out_mask(log["game"], held_out, seed)
    train_rows, test_rows = np.flatnonzero(~out), np.flatnonzero(out)
    test_batch = batch_of(log, test_rows, taper, 0.0, buckets)
    test = training_rows(test_batch, max(len(test_rows), 1))
    has_leaves = "leaf_row" in log
    leaf_out = out[log["leaf_row"]] if has_leaves else np.zeros(0, dtype=bool)
    train_leaves = np.flatnonzero(~leaf_out)
    use_leaves = leaf_weight > 0 and len(train_leaves) > 0
    loss = training_loss(policy_weight, leaf_weight if use_leaves else 0.0)
    trainer = AdamTrainer(loss, params, rate)

    def held_out_loss() -> tuple[float, float]:
        value, policy = trainer.evaluate(root_losses, *test)
        return float(value), float(policy)

    start_loss = held_out_loss()
    best = (start_loss[0], 0, trainer.params())
    history = [{"epoch": 0, "value": start_loss[0], "policy": start_loss[1]}]
    rng = np.random.default_rng(seed)
    for epoch in tqdm(range(1, epochs + 1), desc="train", disable=not progress, leave=False):
        order = rng.permutation(train_rows)
        for i in range(0, len(order), batch):
            roots, moves = training_rows(
                batch_of(log, np.sort(order[i : i + batch]), taper, blend, buckets), batch
            )
            leaves = roots  # read only with leaves to train on
            if use_leaves:
                chosen = np.sort(rng.choice(train_leaves, size=batch))
                leaves = training_rows(leaf_batch(log, chosen, taper), batch)[0]
            trainer.step(roots, moves, leaves)
        value, policy = held_out_loss()
        history.append({"epoch": epoch, "value": value, "policy": policy})
        if value < best[0]:
            best = (value, epoch, trainer.params())
        elif epoch - best[1] >= patience:
            break
    linear_params = new_params(n_in, n_f, 1, 1, linear, 0)
    linear_only = 1 / (1 + np.exp(-value_z(linear_params, test_batch)))
    report: dict[str, Any] = {
        "positions": {"train": int(len(train_rows)), "held_out": int(len(test_rows))},
        "games": int(len(np.unique(log["game"]))),
        "best_epoch": best[1],
        "held_out_log_loss": {
            "network": best[0],
            "learned": log_loss(linear_only, test_batch.target),
        },
        "held_out_policy_cross_entropy": history[best[1]]["policy"],
        "history": history,
    }
    if has_leaves:
        report["held_out_leaves"] = leaf_report(
            log, np.flatnonzero(leaf_out), taper, {"network": best[2], "learned": linear_params}
        )
    return best[2], report


def to_network(
    params: dict[str, np.ndarray],
    game: str,
    inputs: list[str],
    features: list[str],
    taper_turns: int,
    made: dict[str, Any],
) -> Network:
    hidden = params["output"].shape[0]
    meta = {
        "format": NETWORK_FORMAT,
        "version": NETWORK_FILE_VERSION,
        "game": game,
        "inputs": list(inputs),
        "features": list(features),
        "hidden": int(hidden),
        "taper_turns": int(taper_turns),
        "buckets": int(params["policy"].shape[0]),
        "made": made,
    }
    return Network(meta, {k: np.asarray(v, dtype=np.float64) for k, v in params.items()})


def _positions(
    network: Network, own: np.ndarray, enemy: np.ndarray, x: np.ndarray, turn: np.ndarray
) -> Batch:
    """Positions given as arrays, without moves, as the model reads them."""
    n = len(turn)
    return Batch(
        own=np.asarray(own, dtype=np.float64),
        enemy=np.asarray(enemy, dtype=np.float64),
        x=np.asarray(x, dtype=np.float64),
        ph=phase(np.asarray(turn), network.meta["taper_turns"]),
        target=np.zeros(n),
        start=np.zeros(n + 1, dtype=np.int64),
        bucket=np.zeros(0, dtype=np.int64),
        share=np.zeros(0),
    )


def _as_in_c(network: Network) -> dict[str, np.ndarray]:
    """The network's parameters rounded as the C tables hold them (the first
    layer's and the policy head's weights in float)."""
    return {
        k: v.astype(np.float32).astype(np.float64) if k.startswith("w_") or k == "policy" else v
        for k, v in network.arrays.items()
    }


def network_batch(
    network: Network, own: np.ndarray, enemy: np.ndarray, x: np.ndarray, turn: np.ndarray
) -> np.ndarray:
    """The network's value, tanh(z / 2), of positions given as arrays (the
    reference of the C value, tests/test_network.py)."""
    b = _positions(network, own, enemy, x, turn)
    return np.tanh(value_z(_as_in_c(network), b) / 2)


def network_logits(
    network: Network,
    own: np.ndarray,
    enemy: np.ndarray,
    x: np.ndarray,
    turn: int,
    codes: np.ndarray,
) -> np.ndarray:
    """The policy head's logit of each move code at one position, `own` the
    side of the player to move (the reference of the C logits,
    tests/test_network.py)."""
    params = _as_in_c(network)
    b = _positions(
        network, np.asarray([own]), np.asarray([enemy]), np.asarray([x]), np.asarray([turn])
    )
    mine, _ = _accumulators(params, b)
    bucket = buckets_of(np.asarray(codes), len(params["policy_bias"]))
    return params["policy"][bucket] @ np.clip(mine[0], 0, 1) + params["policy_bias"][bucket]
