"""The learned evaluation's weights as data: one weights file per game
(``src/data/<game>/weights.json``, written by `xenophon tune`), read, checked
and loaded into the C tables when a game is created, so new weights need no
recompilation.

A weights file is one JSON object::

    {"format": "xenophon-weights", "version": 1, "game": "GAME",
     "features": ["to_move", ...], "taper_turns": 40,
     "opening": [...], "ending": [...], "made": {...}}

`features` names the C core's features in order (``Tables.feature_names``);
`opening` and `ending` are one weight each, blended by the phase of the game
(src/engine_c/learned.h); `made` says how the file was made (command, seed,
positions, the report's figures). A file of version 2 adds a network's
hidden layer, one object per unit::

     "hidden": [{"weights": [...], "bias": 0.1, "phase": -0.3, "output": 0.8}, ...]

(`weights` one per feature; the unit's term is output · (tanh(c + a) −
tanh(c − a)) with a = weights · x and c = bias + phase · ph, learned.h). A file that cannot be used
is one `WeightsError` line naming the file and the fault; a file fitted for other
features than the game's (another card set) leaves the game with its
hand-set evaluation only, and asking such a game for the learned one names
the first feature that differs.

>>> from xenophon.kernel.registry import GAMES, make_game
>>> game = make_game(GAMES[-1], seed=1)
>>> learned_problem(game) is None or isinstance(learned_problem(game), str)
True
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from xenophon import _core
from xenophon.kernel.arrays import TEXT, ArraySpec, read_npz
from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.files import (
    FileError,
    JsonError,
    check_header,
    check_output,
    loads,
    read_text,
    write_atomic,
)
from xenophon.kernel.plugin import find_plugin

WEIGHTS_FORMAT = "xenophon-weights"
WEIGHTS_VERSION = 1  # a linear evaluation
NETWORK_VERSION = 2  # the linear one and a hidden layer
#: the most hidden units a network may have (XEN_MAX_HIDDEN, learned.h)
MAX_HIDDEN_UNITS: int = _core.MAX_HIDDEN_UNITS
#: the evaluations a search can score its leaves with (bot option `eval`):
#: "default" is the game's own (GamePlugin.default_evaluation: the learned
#: one only where it won its match against the hand-set one, docs/strength.md);
#: a game without usable learned weights (another card set) falls back to "hand"
EVALUATIONS = ("hand", "learned", "net", "default")
#: playout turns a search plays before its evaluation scores the leaf, unless
#: it is told or the game's plugin says otherwise (GamePlugin.cutoff_turns,
#: by evaluation; docs/strength.md: chosen by matches)
FALLBACK_CUTOFF_TURNS = 4
MAX_WEIGHTS_BYTES = 4 * 1024 * 1024
MAX_TAPER_TURNS = 10_000


class WeightsError(XenophonError, ValueError):
    """A weights file that cannot be used; the message names it."""


@dataclass(frozen=True)
class HiddenUnit:
    """One unit of a network's hidden layer (learned.h)."""

    weights: tuple[float, ...]  # one per feature
    bias: float
    phase: float  # the weight of the phase ph in c
    output: float

    def to_json(self) -> dict[str, Any]:
        return {
            "weights": list(self.weights),
            "bias": self.bias,
            "phase": self.phase,
            "output": self.output,
        }


@dataclass(frozen=True)
class Weights:
    """A game's learned weights: one (opening, ending) pair per feature, and
    a network's hidden layer or none."""

    game: str
    features: tuple[str, ...]
    opening: tuple[float, ...]
    ending: tuple[float, ...]
    taper_turns: int
    made: dict[str, Any] = field(default_factory=dict, compare=False)
    hidden: tuple[HiddenUnit, ...] = ()

    @property
    def version(self) -> int:
        return NETWORK_VERSION if self.hidden else WEIGHTS_VERSION

    def to_json(self) -> dict[str, Any]:
        data = {
            "format": WEIGHTS_FORMAT,
            "version": self.version,
            "game": self.game,
            "features": list(self.features),
            "taper_turns": self.taper_turns,
            "opening": list(self.opening),
            "ending": list(self.ending),
        }
        if self.hidden:
            data["hidden"] = [unit.to_json() for unit in self.hidden]
        return {**data, "made": self.made}

    def table_arguments(self) -> dict[str, Any]:
        """The keyword arguments of Tables.set_weights and with_weights."""
        return {
            "opening": list(self.opening),
            "ending": list(self.ending),
            "taper_turns": self.taper_turns,
            "hidden_weights": [list(unit.weights) for unit in self.hidden],
            "hidden_bias": [unit.bias for unit in self.hidden],
            "hidden_phase": [unit.phase for unit in self.hidden],
            "output": [unit.output for unit in self.hidden],
        }


def shipped_weights_file(game_name: str) -> Path:
    """The weights file the project ships for a game."""
    return packaged_data(game_name, "weights.json")


def _is_finite_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _numbers(data: dict, key: str, n: int, where: str) -> tuple[float, ...]:
    values = data.get(key)
    if not isinstance(values, list) or len(values) != n:
        raise WeightsError(f"{where}: '{key}' must be a list of {n} numbers, one per feature")
    for i, value in enumerate(values):
        if not _is_finite_number(value):
            raise WeightsError(f"{where}: {key}[{i}] is not a finite number ({shown(repr(value))})")
    return tuple(float(v) for v in values)


def _number(data: dict, key: str, where: str) -> float:
    value: Any = data.get(key)
    if not _is_finite_number(value):
        raise WeightsError(f"{where}: '{key}' is not a finite number ({shown(repr(value))})")
    return float(value)


def _hidden_layer(data: dict, n: int, where: str) -> tuple[HiddenUnit, ...]:
    """The hidden units of a version-2 file, every field checked."""
    units = data.get("hidden")
    if not isinstance(units, list) or not 1 <= len(units) <= MAX_HIDDEN_UNITS:
        raise WeightsError(
            f"{where}: 'hidden' must be a list of 1 to {MAX_HIDDEN_UNITS} hidden units"
        )
    layer = []
    for j, unit in enumerate(units):
        at = f"{where}: hidden[{j}]"
        if not isinstance(unit, dict):
            raise WeightsError(f"{at} is not an object")
        layer.append(
            HiddenUnit(
                _numbers(unit, "weights", n, at),
                _number(unit, "bias", at),
                _number(unit, "phase", at),
                _number(unit, "output", at),
            )
        )
    return tuple(layer)


def parse_weights(data: Any, where: str, game_name: str) -> Weights:
    """The weights of a parsed weights file, every field checked."""
    if not isinstance(data, dict):
        raise WeightsError(f"{where}: not a weights file (a JSON object is expected)")
    if data.get("format") != WEIGHTS_FORMAT:
        raise WeightsError(
            f"{where}: not a weights file (format {shown(repr(data.get('format')))}, "
            f"expected '{WEIGHTS_FORMAT}')"
        )
    version = data.get("version")
    if isinstance(version, bool) or version not in (WEIGHTS_VERSION, NETWORK_VERSION):
        raise WeightsError(
            f"{where}: weights file version {shown(repr(version))}, this xenophon reads "
            f"versions {WEIGHTS_VERSION} and {NETWORK_VERSION}"
        )
    if version == WEIGHTS_VERSION and "hidden" in data:
        raise WeightsError(
            f"{where}: a hidden layer in a file of version {WEIGHTS_VERSION} "
            f"(networks are version {NETWORK_VERSION})"
        )
    if data.get("game") != game_name:
        raise WeightsError(f"{where}: weights for {shown(repr(data.get('game')))}, not {game_name}")
    features = data.get("features")
    if (
        not isinstance(features, list)
        or not features
        or not all(isinstance(f, str) for f in features)
        or len(set(features)) != len(features)
    ):
        raise WeightsError(f"{where}: 'features' must be a list of distinct feature names")
    taper = data.get("taper_turns")
    if isinstance(taper, bool) or not isinstance(taper, int) or not 1 <= taper <= MAX_TAPER_TURNS:
        raise WeightsError(
            f"{where}: 'taper_turns' must be a whole number from 1 to {MAX_TAPER_TURNS:,}"
        )
    made = data.get("made", {})
    if not isinstance(made, dict):
        raise WeightsError(f"{where}: 'made' must be an object")
    n = len(features)
    hidden = _hidden_layer(data, n, where) if version == NETWORK_VERSION else ()
    return Weights(
        game_name,
        tuple(features),
        _numbers(data, "opening", n, where),
        _numbers(data, "ending", n, where),
        taper,
        made,
        hidden,
    )


def read_weights(path: str | Path, game_name: str) -> Weights:
    """A weights file read and checked (WeightsError or FileError: one line)."""
    text = read_text(path, "weights file", max_bytes=MAX_WEIGHTS_BYTES)
    try:
        data = loads(text)
    except JsonError as error:
        raise WeightsError(f"{path}: not a weights file ({error})") from None
    return parse_weights(data, str(path), game_name)


def weights_text(weights: Weights) -> str:
    return json.dumps(weights.to_json(), indent=1) + "\n"


def write_weights(path: str | Path, weights: Weights, force: bool = False) -> Path:
    """Writes a weights file (an existing file only with `force`)."""
    check_output(path, force=force, what="weights file")
    return write_atomic(path, weights_text(weights))


def mismatch(weights: Weights, names: list[str], where: str) -> str | None:
    """Why weights cannot be used with tables of these feature names, or None."""
    if list(weights.features) == names:
        return None
    for i, (theirs, ours) in enumerate(zip(weights.features, names)):
        if theirs != ours:
            return (
                f"{where} was fitted for other features than this game's (feature {i}: "
                f"'{shown(theirs)}' in the file, '{ours}' in the game)"
            )
    return f"{where} was fitted for {len(weights.features)} features, this game has {len(names)}"


def on_features(weights: Weights, names: list[str], where: str) -> Weights:
    """The weights over these feature names: as they are, or, for a file of
    an earlier feature set (every feature of the file is one of the game's,
    some of the game's are not in the file), with the features it lacks
    weighing 0 everywhere, so that it evaluates as it did when it was fitted.
    WeightsError when the file has a feature the game does not."""
    if list(weights.features) == names:
        return weights
    index = {name: i for i, name in enumerate(weights.features)}
    if not set(weights.features) <= set(names):
        raise WeightsError(mismatch(weights, names, where))

    def spread(values: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(values[index[name]] if name in index else 0.0 for name in names)

    hidden = tuple(
        HiddenUnit(spread(unit.weights), unit.bias, unit.phase, unit.output)
        for unit in weights.hidden
    )
    return Weights(
        weights.game,
        tuple(names),
        spread(weights.opening),
        spread(weights.ending),
        weights.taper_turns,
        weights.made,
        hidden,
    )


@lru_cache(maxsize=8)
def _shipped(game_name: str) -> Weights | None:
    path = shipped_weights_file(game_name)
    return read_weights(path, game_name) if path.exists() else None


def install_shipped(game: Any) -> None:
    """Loads the shipped weights into a new game's C tables (called when the
    game is created). A broken shipped file raises; one fitted for other
    features (another card set) is noted in game.learned_problem."""
    weights, path = _shipped(game.name), shipped_weights_file(game.name)
    if weights is None:
        game.learned_problem = f"no weights file for {game.name} ({path})"
        return
    problem = mismatch(weights, list(game.tables.feature_names), str(path))
    if problem is None:
        game.tables.set_weights(**weights.table_arguments())
    game.learned_problem = problem


def learned_problem(game: Any) -> str | None:
    """None when the game's tables hold learned weights, else why not."""
    return getattr(game, "learned_problem", "the learned evaluation runs on the C engine only")


@lru_cache(maxsize=16)
def _file_weights(path: str, game_name: str, mtime_ns: int) -> Weights:
    return read_weights(path, game_name)


def resolve(game: Any, evaluation: str) -> str:
    """ "hand" or "learned": what `evaluation` means for this game."""
    if evaluation != "default":
        return evaluation
    plugin = find_plugin(game.name)
    wanted = plugin.default_evaluation if plugin else "hand"
    return wanted if wanted == "hand" or learned_problem(game) is None else "hand"


def cutoff_turns_for(game: Any, evaluation: str) -> int:
    """The playout turns before the evaluation, for a search of `game` with
    `evaluation` that was not told how many (the game's plugin says)."""
    plugin = find_plugin(game.name)
    turns = plugin.cutoff_turns if plugin else {}
    return turns.get(resolve(game, evaluation), FALLBACK_CUTOFF_TURNS)


# -- the sparse-input network (eval=net; src/engine_c/network.h, docs/learning.md) --

NETWORK_FORMAT = "xenophon-network"
NETWORK_FILE_VERSION = 1
#: the arrays of a network file, with their shapes in the dimensions its meta
#: gives: (inputs, features, hidden, buckets)
NETWORK_ARRAYS: dict[str, tuple[str, ...]] = {
    "w_own": ("inputs", "hidden"),
    "w_enemy": ("inputs", "hidden"),
    "w_feature": ("features", "hidden"),
    "bias": ("hidden",),
    "phase": ("hidden",),
    "output": ("hidden",),
    "opening": ("features",),
    "ending": ("features",),
    "policy": ("buckets", "hidden"),
    "policy_bias": ("buckets",),
}
#: what a network file may hold (xenophon.kernel.arrays): its JSON meta, the
#: NETWORK_ARRAYS in float32 as write_network writes them, nothing else
NETWORK_FILE_ARRAYS = {
    "meta": ArraySpec(TEXT, ()),
    **{key: ArraySpec("<f4", shape) for key, shape in NETWORK_ARRAYS.items()},
}
MAX_NETWORK_BYTES = 16 * 1024 * 1024
#: the environment variable that picks the network's SIMD path (src/engine_c/network_int.h):
#: auto (the fastest this machine runs, the default), portable, avx2 or avx512
NETWORK_PATH_VARIABLE = "XENOPHON_NET_PATH"


@dataclass(frozen=True)
class Network:
    """A sparse-input network's weights (network.h): `meta` holds the format,
    version, game, input and feature names, hidden units, taper and `made`;
    `arrays` the NETWORK_ARRAYS (float64)."""

    meta: dict[str, Any]
    arrays: dict[str, Any]

    def table_arguments(self) -> dict[str, Any]:
        """The keyword arguments of Tables.with_network."""
        a = self.arrays
        return {
            "hidden": self.meta["hidden"],
            "taper_turns": self.meta["taper_turns"],
            **{key: a[key].ravel().tolist() for key in NETWORK_ARRAYS},
        }


def _network_meta(meta: Any, where: str, game_name: str) -> dict[str, Any]:
    check_header(meta, where, "network file", NETWORK_FORMAT, NETWORK_FILE_VERSION, WeightsError)
    if meta.get("game") != game_name:
        raise WeightsError(
            f"{where}: a network for {shown(repr(meta.get('game')))}, not {game_name}"
        )
    for key in ("inputs", "features"):
        names = meta.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise WeightsError(f"{where}: '{key}' must be a list of names")
    for key, top in (
        ("hidden", _core.MAX_NETWORK_HIDDEN),
        ("taper_turns", MAX_TAPER_TURNS),
        ("buckets", _core.MAX_NETWORK_BUCKETS),
    ):
        value = meta.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
            raise WeightsError(f"{where}: '{key}' must be a whole number from 1 to {top:,}")
    if not isinstance(meta.get("made", {}), dict):
        raise WeightsError(f"{where}: 'made' must be an object")
    return meta


def read_network(path: str | Path, game_name: str) -> Network:
    """A network file (.npz: a JSON `meta` and the NETWORK_ARRAYS) read and
    checked: WeightsError or FileError in one line naming the file and the fault."""
    import numpy as np

    arrays = read_npz(path, "network file", NETWORK_FILE_ARRAYS, WeightsError, MAX_NETWORK_BYTES)
    try:
        meta = loads(str(arrays.pop("meta")))
    except JsonError as error:
        raise WeightsError(f"{path}: not a network file (its meta: {error})") from None
    meta = _network_meta(meta, str(path), game_name)
    dims = {
        "inputs": len(meta["inputs"]),
        "features": len(meta["features"]),
        "hidden": meta["hidden"],
        "buckets": meta["buckets"],
    }
    checked = {}
    for key, names in NETWORK_ARRAYS.items():
        array, shape = arrays[key], tuple(dims[name] for name in names)
        if array.shape != shape:
            raise WeightsError(f"{path}: '{key}' must be an array of {shape} numbers")
        if not np.all(np.isfinite(array)):
            raise WeightsError(f"{path}: '{key}' holds a number that is not finite")
        checked[key] = array.astype(np.float64)
    return Network(meta, checked)


def write_network(path: str | Path, network: Network, force: bool = False) -> Path:
    """Writes a network file (an existing file only with `force`)."""
    import io

    import numpy as np

    check_output(path, force=force, what="network file")
    buffer = io.BytesIO()
    arrays: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in network.arrays.items()}
    np.savez_compressed(buffer, meta=np.asarray(json.dumps(network.meta)), **arrays)
    return write_atomic(path, buffer.getvalue())


def network_on_features(network: Network, names: list[str]) -> Network:
    """The network over these feature names: as it is, or, for a file of an
    earlier feature set (every feature of the file is one of the game's), with
    the features it lacks weighing 0 everywhere, so that it evaluates as it did
    when it was trained (as on_features does for a weights file); a file with
    a feature the game does not have is left as it is (network_mismatch says)."""
    features = list(network.meta["features"])
    if features == names or not set(features) <= set(names):
        return network
    import numpy as np

    rows = [names.index(name) for name in features]
    arrays = dict(network.arrays)
    for key in ("opening", "ending", "w_feature"):
        widened = np.zeros((len(names), *arrays[key].shape[1:]))
        widened[rows] = arrays[key]
        arrays[key] = widened
    return Network({**network.meta, "features": list(names)}, arrays)


def network_mismatch(network: Network, tables: Any, where: str) -> str | None:
    """Why a network cannot be used with these tables (their inputs or features differ), or None."""
    if not hasattr(tables, "net_input_names"):
        return f"{where}: this game has no raw inputs for a network yet"
    for key, names in (("inputs", tables.net_input_names), ("features", tables.feature_names)):
        if list(network.meta[key]) != list(names):
            return f"{where} was made for other {key} than this game's (another card set?)"
    return None


def network_path() -> str:
    """The SIMD path a network's value runs here (network_int.h): the one
    NETWORK_PATH_VARIABLE names, else the fastest this machine runs."""
    wanted = os.environ.get(NETWORK_PATH_VARIABLE, "auto")
    return str(_core.NETWORK_PATH) if wanted == "auto" else wanted


def shipped_network_file(game_name: str) -> Path:
    """The network file the project ships for a game (eval=net without weights=)."""
    return packaged_data(game_name, "network.npz")


@lru_cache(maxsize=16)
def _file_network(path: str, game_name: str, mtime_ns: int) -> Network:
    return read_network(path, game_name)


def network_tables(game: Any, weights_path: str | None) -> Any:
    """A copy of the game's tables holding the network of `weights_path` (or
    the shipped one), cached by file and time; WeightsError in one line."""
    if weights_path is None and not shipped_network_file(game.name).is_file():
        raise WeightsError(f"no network is shipped for {game.name}: eval=net needs weights=FILE")
    path = str(weights_path or shipped_network_file(game.name))
    try:
        stamp = Path(path).stat().st_mtime_ns
    except OSError as error:
        raise FileError(f"{path}: cannot read ({error.strerror})") from None
    network = _file_network(path, game.name, stamp)
    if hasattr(game.tables, "feature_names"):
        network = network_on_features(network, list(game.tables.feature_names))
    problem = network_mismatch(network, game.tables, path)
    if problem:
        raise WeightsError(problem)
    simd = os.environ.get(NETWORK_PATH_VARIABLE, "auto")
    cache = game.__dict__.setdefault("_network_tables", {})
    if (path, stamp, simd) not in cache:
        try:
            tables = game.tables.with_network(**network.table_arguments(), path=simd)
        except ValueError as error:
            raise WeightsError(f"{NETWORK_PATH_VARIABLE}: {error}") from None
        cache[(path, stamp, simd)] = tables
    return cache[(path, stamp, simd)]


def tables_for(game: Any, evaluation: str, weights_path: str | None = None) -> Any:
    """The C tables a search of `game` runs on for an evaluation: the game's
    own, or, with a weights file, a copy holding that file's weights."""
    if evaluation not in EVALUATIONS:
        raise XenophonError(
            f"unknown evaluation '{shown(evaluation)}' ({' or '.join(EVALUATIONS)})"
        )
    evaluation = resolve(game, evaluation)
    if evaluation == "net":
        return network_tables(game, weights_path)
    if weights_path is None:
        if evaluation == "learned" and learned_problem(game) is not None:
            raise WeightsError(f"no learned evaluation for this game: {learned_problem(game)}")
        return game.tables
    try:
        stamp = Path(weights_path).stat().st_mtime_ns
    except OSError as error:
        raise FileError(f"{weights_path}: cannot read ({error.strerror})") from None
    weights = on_features(
        _file_weights(str(weights_path), game.name, stamp),
        list(game.tables.feature_names),
        str(weights_path),
    )
    cache = game.__dict__.setdefault("_weights_tables", {})
    key = (str(weights_path), stamp)
    if key not in cache:
        cache[key] = game.tables.with_weights(**weights.table_arguments())
    return cache[key]
