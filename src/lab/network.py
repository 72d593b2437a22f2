"""The sparse-input network of the learning loop (docs/learning.md), in numpy:
its value and policy on logged positions, and its training.

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

Training: mini-batch Adam on the value's log-loss against a target that
blends the game's result with the search's root value, plus the policy's
cross-entropy against the root visit shares; seeded (same data and seed,
same file); the best epoch on held-out games is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from xenophon.kernel.evaluation import (
    NETWORK_FILE_VERSION,
    NETWORK_FORMAT,
    Network,
    Weights,
)

DEFAULT_BUCKETS = 1024
ADAM_BETAS = (0.9, 0.999)


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


def _accumulators(p: dict[str, np.ndarray], b: Batch) -> tuple[np.ndarray, np.ndarray]:
    base = p["bias"] + b.ph[:, None] * p["phase"]
    xf = b.x @ p["w_feature"]
    mine = b.own @ p["w_own"] + b.enemy @ p["w_enemy"] + xf + base
    theirs = b.enemy @ p["w_own"] + b.own @ p["w_enemy"] - xf + base
    return mine, theirs


def value_z(p: dict[str, np.ndarray], b: Batch) -> np.ndarray:
    """z of each position (value = tanh(z / 2), sigmoid(z) the chance of winning)."""
    mine, theirs = _accumulators(p, b)
    linear = ((1 - b.ph)[:, None] * p["opening"] + b.ph[:, None] * p["ending"]) * b.x
    return linear.sum(axis=1) + (np.clip(mine, 0, 1) - np.clip(theirs, 0, 1)) @ p["output"]


def _segments(start: np.ndarray) -> np.ndarray:
    """Each move's decision (row) from the ragged starts."""
    return np.repeat(np.arange(len(start) - 1), np.diff(start))


def losses_and_gradients(
    p: dict[str, np.ndarray], b: Batch, policy_weight: float
) -> tuple[float, float, dict[str, np.ndarray]]:
    """(value log-loss, policy cross-entropy, gradients of their weighted sum)."""
    n = len(b.target)
    mine, theirs = _accumulators(p, b)
    h1, h2 = np.clip(mine, 0, 1), np.clip(theirs, 0, 1)
    linear_w = (1 - b.ph)[:, None] * p["opening"] + b.ph[:, None] * p["ending"]
    z = (linear_w * b.x).sum(axis=1) + (h1 - h2) @ p["output"]
    prob = 1 / (1 + np.exp(-z))
    eps = 1e-12
    value_loss = float(
        -np.mean(b.target * np.log(prob + eps) + (1 - b.target) * np.log(1 - prob + eps))
    )
    dz = (prob - b.target) / n
    g: dict[str, np.ndarray] = {}
    g["opening"] = ((dz * (1 - b.ph))[:, None] * b.x).sum(axis=0)
    g["ending"] = ((dz * b.ph)[:, None] * b.x).sum(axis=0)
    g["output"] = (h1 - h2).T @ dz
    d1 = dz[:, None] * p["output"] * ((mine > 0) & (mine < 1))
    d2 = -dz[:, None] * p["output"] * ((theirs > 0) & (theirs < 1))
    # the policy head on h1 (the player to move's perspective)
    row = _segments(b.start)
    logits = (h1[row] * p["policy"][b.bucket]).sum(axis=1) + p["policy_bias"][b.bucket]
    top = np.maximum.reduceat(logits, b.start[:-1]) if len(logits) else np.zeros(0)
    e = np.exp(logits - top[row])
    total = np.add.reduceat(e, b.start[:-1]) if len(logits) else np.zeros(0)
    soft = e / total[row]
    policy_loss = float(-np.sum(b.share * np.log(soft + eps)) / n) if len(logits) else 0.0
    # d/dlogit of -sum(share * log soft): soft * (the decision's share total) - share
    # (a forced move has no visits: total 0, no gradient)
    share_total = np.add.reduceat(b.share, b.start[:-1])[row] if len(logits) else np.zeros(0)
    dlogit = policy_weight * (soft * share_total - b.share) / n
    g["policy"] = np.zeros_like(p["policy"])
    np.add.at(g["policy"], b.bucket, dlogit[:, None] * h1[row])
    g["policy_bias"] = np.bincount(b.bucket, weights=dlogit, minlength=len(p["policy_bias"]))
    dh1 = np.zeros_like(h1)
    np.add.at(dh1, row, dlogit[:, None] * p["policy"][b.bucket])
    d1 = d1 + dh1 * ((mine > 0) & (mine < 1))
    g["w_own"] = b.own.T @ d1 + b.enemy.T @ d2
    g["w_enemy"] = b.enemy.T @ d1 + b.own.T @ d2
    g["w_feature"] = b.x.T @ (d1 - d2)
    g["bias"] = (d1 + d2).sum(axis=0)
    g["phase"] = (b.ph[:, None] * (d1 + d2)).sum(axis=0)
    return value_loss, policy_loss, g


class Adam:
    """Adam (Kingma & Ba 2015) over a dict of arrays."""

    def __init__(self, params: dict[str, np.ndarray], rate: float):
        self.rate = rate
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        b1, b2 = ADAM_BETAS
        for k, grad in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * grad
            self.v[k] = b2 * self.v[k] + (1 - b2) * grad * grad
            m_hat = self.m[k] / (1 - b1**self.t)
            v_hat = self.v[k] / (1 - b2**self.t)
            params[k] -= self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


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
    """The trained parameters and a report of held-out figures. With
    `leaf_weight` and a log with leaves, each step adds that weight times the
    gradient of the value's log-loss on as many leaves of the training games,
    against the root search's values of their moves."""
    taper = linear.taper_turns
    n_in, n_f = log["own"].shape[1], log["features"].shape[1]
    params = new_params(n_in, n_f, hidden, buckets, linear, seed)
    out = held_out_mask(log["game"], held_out, seed)
    train_rows, test_rows = np.flatnonzero(~out), np.flatnonzero(out)
    test = batch_of(log, test_rows, taper, 0.0, buckets)
    has_leaves = "leaf_row" in log
    leaf_out = out[log["leaf_row"]] if has_leaves else np.zeros(0, dtype=bool)
    train_leaves = np.flatnonzero(~leaf_out)

    def held_out_loss(p: dict[str, np.ndarray]) -> tuple[float, float]:
        value, policy, _ = losses_and_gradients(p, test, 1.0)
        return value, policy

    start_loss = held_out_loss(params)
    best = (start_loss[0], 0, {k: v.copy() for k, v in params.items()})
    history = [{"epoch": 0, "value": start_loss[0], "policy": start_loss[1]}]
    adam = Adam(params, rate)
    rng = np.random.default_rng(seed)
    from tqdm import tqdm

    for epoch in tqdm(range(1, epochs + 1), desc="train", disable=not progress, leave=False):
        order = rng.permutation(train_rows)
        for i in range(0, len(order), batch):
            b = batch_of(log, np.sort(order[i : i + batch]), taper, blend, buckets)
            _, _, grads = losses_and_gradients(params, b, policy_weight)
            if leaf_weight > 0 and len(train_leaves):
                chosen = np.sort(rng.choice(train_leaves, size=batch))
                _, _, leaf_grads = losses_and_gradients(params, leaf_batch(log, chosen, taper), 0.0)
                for key, grad in leaf_grads.items():
                    grads[key] = grads[key] + leaf_weight * grad
            adam.step(params, grads)
        value, policy = held_out_loss(params)
        history.append({"epoch": epoch, "value": value, "policy": policy})
        if value < best[0]:
            best = (value, epoch, {k: v.copy() for k, v in params.items()})
        elif epoch - best[1] >= patience:
            break
    linear_params = new_params(n_in, n_f, 1, 1, linear, 0)
    linear_only = 1 / (1 + np.exp(-value_z(linear_params, test)))
    report: dict[str, Any] = {
        "positions": {"train": int(len(train_rows)), "held_out": int(len(test_rows))},
        "games": int(len(np.unique(log["game"]))),
        "best_epoch": best[1],
        "held_out_log_loss": {"network": best[0], "learned": log_loss(linear_only, test.target)},
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
