"""Self-play logging for the learning loop (docs/learning.md): the bot plays
both seats, with moves drawn in proportion to the root visits for each
seat's first decisions, and every decision is logged as what the searcher
knows, the search's answer and, at the end, the game's result.

Each game is one job of `xenophon.lab.jobs` (all cores, resumable): it writes
one shard, `<folder>/shard-<seed>.npz` (written whole, atomically), and its
row in the results file `<folder>/index.jsonl` is the index of the shards.
A resumed run plays only the games whose row is missing: a shard without its
row (a game torn by an interruption) is written again, the same, since a job
is a pure function of its seed.

What a decision logs is read from one world sampled from the information of
the player to move (`State.resample`, seeded by the game's seed and the
decision's number), the view the search itself evaluates: two positions the
player cannot tell apart log the same inputs and features.

>>> from xenophon.kernel.registry import GAMES
>>> KEYS[:4]
('own', 'enemy', 'features', 'turn')
"""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import numpy as np

from xenophon.kernel.arrays import ArraySpec, read_npz
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import write_atomic
from xenophon.kernel.game import CHANCE, Game, State
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.jobs import Job
from xenophon.play.players import make_bot

#: the arrays of a shard, one row per decision (the moves' arrays are
#: ragged: the decision i's moves are move_code[move_start[i]:move_start[i + 1]])
KEYS = (
    "own",  # raw inputs of the player to move's side (uint8 counts)
    "enemy",  # raw inputs of the other side
    "features",  # the learned evaluation's features for the player to move
    "turn",
    "player",  # the player to move, 0 or 1
    "decision",  # the decision's number in its game
    "root_value",  # the search's root value for the player to move, in [-1, 1]
    # (0 for a forced move, which is not searched: its one move has no visits)
    "deep_value",  # a deep search's root value (nan: not labelled)
    "result",  # the game's result for the player to move: 1, 0.5, 0
    "move_start",
    "move_code",  # the legal moves (codes)
    "move_visits",  # their root visits
)
#: the optional arrays of a shard logged with leaves (`leaves` > 0), one row
#: per leaf: a root move of a decision applied to the decision's sampled world,
#: the position the search scores one action below its root
LEAF_KEYS = (
    "leaf_own",  # raw inputs of the decision's player's side, after the move
    "leaf_enemy",
    "leaf_features",  # the learned evaluation's features for that player
    "leaf_turn",
    "leaf_row",  # the decision (its row in the shard)
    "leaf_value",  # the root search's win probability of the move, in [0, 1]
    "leaf_visits",  # the move's root visits
)
SHARD_FORMAT = 1
#: what a shard may hold, as `write_shard` writes it (xenophon.kernel.arrays):
#: rows of positions, of their moves and of leaves, over the game's raw inputs
#: and features
SHARD_ARRAYS = {
    "format": ArraySpec("<i8", ()),
    "own": ArraySpec("|u1", ("positions", "inputs")),
    "enemy": ArraySpec("|u1", ("positions", "inputs")),
    "features": ArraySpec("<f4", ("positions", "features")),
    "turn": ArraySpec("<i2", ("positions",)),
    "player": ArraySpec("|i1", ("positions",)),
    "decision": ArraySpec("<i4", ("positions",)),
    "root_value": ArraySpec("<f4", ("positions",)),
    "deep_value": ArraySpec("<f4", ("positions",)),
    "result": ArraySpec("<f4", ("positions",)),
    "move_start": ArraySpec("<i4", ("starts",)),
    "move_code": ArraySpec("<i4", ("moves",)),
    "move_visits": ArraySpec("<i4", ("moves",)),
    "leaf_own": ArraySpec("|u1", ("leaves", "inputs"), required=False),
    "leaf_enemy": ArraySpec("|u1", ("leaves", "inputs"), required=False),
    "leaf_features": ArraySpec("<f4", ("leaves", "features"), required=False),
    "leaf_turn": ArraySpec("<i2", ("leaves",), required=False),
    "leaf_row": ArraySpec("<i4", ("leaves",), required=False),
    "leaf_value": ArraySpec("<f4", ("leaves",), required=False),
    "leaf_visits": ArraySpec("<i4", ("leaves",), required=False),
}
#: a shard is one game's log: a few MiB with leaves
MAX_SHARD_BYTES = 256 * 1024 * 1024
INDEX_NAME = "index.jsonl"
COMMAND = "learn-log"


class LogError(XenophonError):
    """A log that cannot be made or read (one line)."""


def network_inputs(state: State, player: int) -> np.ndarray:
    """`player`'s side of the world `state` as the network's raw inputs."""
    backend = state.backend
    if not hasattr(backend, "net_inputs"):
        raise LogError(f"{state.game.name} has no raw inputs for the network yet")
    return np.asarray(backend.net_inputs(player), dtype=np.float64)


def world_view(world: State, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own inputs, enemy inputs, features) of `world` for `player`."""
    return (
        network_inputs(world, player),
        network_inputs(world, 1 - player),
        np.asarray(world.backend.features(player), dtype=np.float64),
    )


def decision_view(
    state: State, player: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(own inputs, enemy inputs, features) of a world sampled from what
    `player` knows at `state` (the same for positions `player` cannot tell apart)."""
    return world_view(state.resample(player, random.Random(seed)), player)


def leaf_rows(
    state: State, player: int, seed: int, result: Any, leaves: int, rng: random.Random
) -> list[tuple[Any, ...]]:
    """Up to `leaves` of the root's searched moves drawn at random (uniformly,
    so poor moves too), each applied to the decision's sampled world: (own,
    enemy, features, turn, the move's win probability, its visits) for `player`."""
    searched = [m for m in result.moves if m.visits > 0]
    if len(searched) < 2:
        return []
    world = state.resample(player, random.Random(seed))
    rows = []
    for stat in rng.sample(searched, min(leaves, len(searched))):
        child = world.copy()
        child.apply_code(stat.move.code)
        own, enemy, features = world_view(child, player)
        rows.append((own, enemy, features, child.backend.turn(), stat.win_probability, stat.visits))
    return rows


def root_value(result: Any) -> float:
    """The search's root value in [-1, 1]: its moves' values weighted by visits."""
    total = sum(m.visits for m in result.moves)
    if not total:
        return 0.0
    return sum(m.visits * (2 * m.win_probability - 1) for m in result.moves) / total


def _visit_draw(result: Any, rng: random.Random) -> Any:
    weights = [m.visits for m in result.moves]
    if not sum(weights):
        return result.best.move
    return rng.choices([m.move for m in result.moves], weights=weights)[0]


def logged_game(
    game: Game,
    bot_spec: str,
    deep_spec: str,
    explore: int,
    deep_share: float,
    seed: int,
    leaves: int = 0,
) -> tuple[dict[str, np.ndarray], list[float]]:
    """One self-play game's decisions as a shard's arrays, and its returns;
    with `leaves`, up to that many leaves of each searched decision too (the
    game played is the same: the leaves draw from their own generator)."""
    bot = make_bot(bot_spec, seed * 2)
    deep = make_bot(deep_spec, seed * 2 + 1) if deep_share > 0 else None
    rng = random.Random(seed)
    leaf_rng = random.Random(seed * 7 + 3)
    leaf: list[tuple[Any, ...]] = []
    rows: dict[str, list[Any]] = {key: [] for key in KEYS if not key.startswith("move_")}
    codes: list[int] = []
    visits: list[int] = []
    starts = [0]
    made = [0, 0]
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            state.apply_code(state.sample_chance(game.rng).code)
            continue
        decision = len(rows["turn"])
        own, enemy, features = decision_view(state, player, seed * 100_003 + decision)
        result = bot.analyse(state)
        if leaves:
            found = leaf_rows(state, player, seed * 100_003 + decision, result, leaves, leaf_rng)
            leaf.extend((*row, decision) for row in found)
        deep_value = (
            root_value(deep.analyse(state)) if deep and rng.random() < deep_share else float("nan")
        )
        for key, value in (
            ("own", own),
            ("enemy", enemy),
            ("features", features),
            ("turn", state.backend.turn()),
            ("player", player),
            ("decision", decision),
            ("root_value", root_value(result)),
            ("deep_value", deep_value),
        ):
            rows[key].append(value)
        for move in result.moves:
            codes.append(move.move.code)
            visits.append(move.visits)
        starts.append(len(codes))
        move = _visit_draw(result, rng) if made[player] < explore else bot.choose_from(result)
        made[player] += 1
        state.apply_code(move.code)
    returns = state.returns()
    rows["result"] = [(returns[p] + 1) / 2 for p in rows["player"]]
    arrays = _arrays(rows, starts, codes, visits, len(game.tables.net_input_names))
    if leaves:
        arrays.update(_leaf_arrays(leaf, len(game.tables.net_input_names), arrays))
    return arrays, returns


def _leaf_arrays(
    leaf: list[tuple[Any, ...]], n_in: int, roots: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    n = len(leaf)
    columns: list[Any] = list(zip(*leaf, strict=True)) if leaf else [() for _ in range(7)]
    own, enemy = (np.asarray(c, dtype=np.float64).reshape(n, n_in) for c in columns[:2])
    if any(np.any((a < 0) | (a > 255)) for a in (own, enemy)):
        raise LogError("raw inputs that are not counts from 0 to 255 cannot be logged as bytes")
    return {
        "leaf_own": own.astype(np.uint8),
        "leaf_enemy": enemy.astype(np.uint8),
        "leaf_features": np.asarray(columns[2], dtype=np.float32).reshape(
            n, roots["features"].shape[1]
        ),
        "leaf_turn": np.asarray(columns[3], dtype=np.int16),
        "leaf_value": np.asarray(columns[4], dtype=np.float32),
        "leaf_visits": np.asarray(columns[5], dtype=np.int32),
        "leaf_row": np.asarray(columns[6], dtype=np.int32),
    }


def _arrays(
    rows: dict[str, list[Any]], starts: list[int], codes: list[int], visits: list[int], n_in: int
) -> dict[str, np.ndarray]:
    n = len(rows["turn"])
    n_features = len(rows["features"][0]) if n else 0
    inputs = {
        key: np.asarray(rows[key], dtype=np.float64).reshape(n, n_in) for key in ("own", "enemy")
    }
    if any(np.any((a < 0) | (a > 255) | (a != np.round(a))) for a in inputs.values()):
        raise LogError("raw inputs that are not counts from 0 to 255 cannot be logged as bytes")
    return {
        "own": inputs["own"].astype(np.uint8),
        "enemy": inputs["enemy"].astype(np.uint8),
        "features": np.asarray(rows["features"], dtype=np.float32).reshape(n, n_features),
        "turn": np.asarray(rows["turn"], dtype=np.int16),
        "player": np.asarray(rows["player"], dtype=np.int8),
        "decision": np.asarray(rows["decision"], dtype=np.int32),
        "root_value": np.asarray(rows["root_value"], dtype=np.float32),
        "deep_value": np.asarray(rows["deep_value"], dtype=np.float32),
        "result": np.asarray(rows["result"], dtype=np.float32),
        "move_start": np.asarray(starts, dtype=np.int32),
        "move_code": np.asarray(codes, dtype=np.int32),
        "move_visits": np.asarray(visits, dtype=np.int32),
    }


def shard_name(seed: int) -> str:
    return f"shard-{seed}.npz"


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    saved: dict[str, Any] = dict(arrays)
    np.savez_compressed(buffer, format=np.asarray(SHARD_FORMAT), **saved)
    write_atomic(path, buffer.getvalue())


def log_job(
    game: str,
    options: dict[str, str],
    bot: str,
    deep_bot: str,
    explore: int,
    deep_share: float,
    folder: str,
    seed: int,
    leaves: int = 0,
) -> list[dict[str, Any]]:
    """The job of one logged game (`xenophon.lab.jobs`): writes its shard and
    returns its index row."""
    arrays, returns = logged_game(
        game_from_texts(game, options, seed=seed), bot, deep_bot, explore, deep_share, seed, leaves
    )
    write_shard(Path(folder) / shard_name(seed), arrays)
    return [
        {
            "seed": seed,
            "returns": returns,
            "shard": shard_name(seed),
            "positions": int(len(arrays["turn"])),
            "deep": int(np.sum(~np.isnan(arrays["deep_value"]))),
            **({"leaves": int(len(arrays["leaf_row"]))} if leaves else {}),
        }
    ]


def log_jobs(config: dict[str, Any], seeds: list[int]) -> list[Job]:
    """The logging run of `config` (log_job's arguments but the seed) as jobs."""
    return [Job(str(seed), "learn_log", {**config, "seed": seed}) for seed in seeds]


def read_shard(path: str | Path) -> dict[str, np.ndarray]:
    """A shard's arrays (LogError in one line when it is not one, FileError
    when it cannot be read)."""
    arrays = read_npz(path, "shard of a learning log", SHARD_ARRAYS, LogError, MAX_SHARD_BYTES)
    if int(arrays["format"]) != SHARD_FORMAT:
        raise LogError(f"{path}: not a shard of format {SHARD_FORMAT}")
    if len(arrays["move_start"]) != len(arrays["turn"]) + 1:
        raise LogError(f"{path}: 'move_start' must hold one more row than the positions")
    if 0 < sum(key in arrays for key in LEAF_KEYS) < len(LEAF_KEYS):
        raise LogError(f"{path}: a shard holds all of the leaves' arrays or none")
    return arrays


def read_log(folder: str | Path, rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The shards of the index rows `rows`, concatenated (the moves' starts
    shifted to the joined lists), with each position's game number `game`."""
    parts = [read_shard(Path(folder) / row["shard"]) for row in rows]
    joined: dict[str, Any] = {}
    for key in KEYS:
        if key == "move_start":
            continue
        joined[key] = np.concatenate([p[key] for p in parts]) if parts else np.zeros(0)
    starts, offset = [np.zeros(1, dtype=np.int64)], 0
    for p in parts:
        starts.append(p["move_start"][1:].astype(np.int64) + offset)
        offset += int(p["move_start"][-1])
    joined["move_start"] = np.concatenate(starts)
    joined["game"] = (
        np.concatenate([np.full(len(p["turn"]), i, dtype=np.int32) for i, p in enumerate(parts)])
        if parts
        else np.zeros(0, dtype=np.int32)
    )
    if parts and all("leaf_row" in p for p in parts):
        joined.update(_joined_leaves(parts))
    return joined


def _joined_leaves(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The leaves of shards that all have them, `leaf_row` made a row of the
    joined log."""
    offsets = np.cumsum([0] + [len(p["turn"]) for p in parts[:-1]])
    joined = {key: np.concatenate([p[key] for p in parts]) for key in LEAF_KEYS}
    joined["leaf_row"] = np.concatenate(
        [p["leaf_row"].astype(np.int64) + offset for p, offset in zip(parts, offsets, strict=True)]
    )
    return joined
