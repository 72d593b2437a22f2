"""Benchmarks: xenophon measured against the pure-Python oracle and against
OpenSpiel, shared by bench/ (pytest-benchmark) and `xenophon bench`.

Three parts, each measured in one run on the positions of src/data/bench_positions.json
(opening, midgame, endgame of each game) with fixed seeds:

- core: random actions and apply+undo pairs per second, C core vs oracle;
- search: ISMCTS iterations per second and bytes per tree node, xenophon vs
  OpenSpiel's C++ ISMCTS (on the native games of `xenophon.interop.native`)
  and its Python ISMCTS (on the games of `xenophon.interop.openspiel`), all
  with one uniformly random rollout to the end of the game per iteration;
  xenophon also with its own playout policy, and with its defaults;
- strength: matches against OpenSpiel's C++ ISMCTS, seats alternated, at
  equal iterations with equal rollouts, and at equal time per move with each
  side's best settings.

The peer parts are skipped, with the reason, when OpenSpiel (or a compiler,
or the source checkout the native games are built from) is missing.
"""

from __future__ import annotations

import ctypes
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import xenophon
from xenophon.interop import native
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.evaluation import NETWORK_PATH_VARIABLE, network_path
from xenophon.kernel.files import FileError, JsonError, loads, read_text
from xenophon.kernel.game import State
from xenophon.kernel.registry import GAMES, game_plugin, make_game
from xenophon.lab.jobs import make_backend
from xenophon.lab.tournament import play_match
from xenophon.search.bots import ISMCTSBot
from xenophon.search.settings import DEFAULT_PRESET, PRESETS, SearchSettings

POSITIONS_FILE = Path(xenophon.__file__).resolve().parent / "data" / "bench_positions.json"
PARTS = ("core", "search", "strength")
#: playouts to the end of the game: no cut-off, no cap on their length
TO_THE_END = {"cutoff_turns": -1, "max_playout_actions": 1_000_000}


@dataclass(frozen=True)
class Settings:
    """Budgets of one benchmark run."""

    core_actions: int = 2_000_000  # C core random actions (and apply+undo pairs)
    oracle_actions: int = 20_000  # oracle random actions (and apply+undo pairs)
    search_iterations: int = 20_000  # xenophon and OpenSpiel C++ ISMCTS, per position
    rounds: int = 1  # times each of those searches runs, taking turns
    python_iterations: int = 300  # OpenSpiel Python ISMCTS, per position
    match_games: int = 200
    match_iterations: int = 500  # per move, equal-iterations match
    move_time: float = 0.1  # seconds per move, equal-time match
    sprt: tuple[float, float] | None = None
    processes: int | None = None
    cluster: str | None = None  # where matches run: a Ray cluster (`xenophon.lab.jobs`)
    seed: int = 1


QUICK = Settings(
    core_actions=5_000,
    oracle_actions=200,
    search_iterations=100,
    python_iterations=2,
    match_games=2,
    match_iterations=10,
    move_time=0.005,
    processes=1,
)


# -- positions ----------------------------------------------------------------


def load_positions(
    path: str | Path | None = None, games: tuple[str, ...] | None = None
) -> list[dict[str, Any]]:
    """The benchmark positions (src/data/bench_positions.json unless `path`), of `games`."""
    path = Path(path) if path else POSITIONS_FILE
    try:
        entries = loads(read_text(path, "positions file"))
    except FileError as error:
        raise XenophonError(
            f"cannot read the benchmark positions: {error} (give a positions "
            "file with --positions FILE)"
        ) from None
    except JsonError as error:
        raise XenophonError(f"{path}: not a positions file ({error})") from None
    if not isinstance(entries, list):
        raise XenophonError(f"{path}: not a positions file (a JSON list of positions)")
    for number, entry in enumerate(entries, start=1):
        _check_position(entry, f"{path}: position {number}")
    return [e for e in entries if games is None or e["game"] in games]


def _check_position(entry: Any, where: str) -> None:
    """A position of a positions file: {"game", "stage", "options", "moves"}."""
    fields = {"game": str, "stage": str, "options": dict, "moves": list}
    if not isinstance(entry, dict):
        raise XenophonError(f"{where}: not an object with {', '.join(fields)}")
    for name, kind in fields.items():
        if not isinstance(entry.get(name), kind):
            raise XenophonError(f"{where}: field '{name}' must be a JSON {kind.__name__}")
    if entry["game"] not in GAMES:
        raise XenophonError(
            f"{where}: unknown game '{shown(entry['game'])}' ({' or '.join(GAMES)})"
        )
    if not all(isinstance(move, str) for move in entry["moves"]):
        raise XenophonError(f"{where}: field 'moves' must be a list of moves")


def game_spec(entry: dict[str, Any]) -> str:
    """The tournament spec of a position's game (matches start from the
    beginning of a game with the position's options)."""
    return game_plugin(entry["game"]).benchmark_spec(entry["options"])


def position_state(entry: dict[str, Any], engine: str = "c") -> State:
    """A benchmark position, replayed from its moves on the given engine."""
    options = dict(entry["options"])
    if "decks" in options:
        options["decks"] = tuple(options["decks"])
    state = make_game(entry["game"], seed=0, engine=engine, **options).new_initial_state()
    for move in entry["moves"]:
        state.apply(move)
    return state


# -- measurements ---------------------------------------------------------------


@dataclass
class Measure:
    """`amount` units (actions, iterations) in `seconds`; for searches the
    tree's nodes and bytes (None when they cannot be measured)."""

    amount: int
    seconds: float
    nodes: int = 0
    tree_bytes: int | None = None

    @property
    def rate(self) -> float:
        return self.amount / self.seconds if self.seconds > 0 else 0.0

    @property
    def bytes_per_node(self) -> float | None:
        return self.tree_bytes / self.nodes if self.tree_bytes is not None and self.nodes else None


def timed(amount: int, run: Callable[[], Any]) -> Measure:
    start = time.perf_counter()
    run()
    return Measure(amount, time.perf_counter() - start)


def _sample_outcome(state: Any, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]


def oracle_random_actions(new_state: Callable[[], Any], n_actions: int, seed: int) -> int:
    """`n_actions` random codes on backends made by `new_state` (uniform
    decisions, true-probability chance), a new game whenever one ends."""
    rng = random.Random(seed)
    state, done = new_state(), 0
    while done < n_actions:
        if state.is_terminal():
            state = new_state()
        state.apply(
            _sample_outcome(state, rng) if state.is_chance() else rng.choice(state.legal_actions())
        )
        done += 1
    return done


def oracle_apply_undo(new_state: Callable[[], Any], n_pairs: int, seed: int) -> int:
    """The oracle's counterpart of the core's apply_undo_pairs: at each state one
    apply + undo of a random legal code, then a random step."""
    rng = random.Random(seed)
    state, done = new_state(), 0
    while done < n_pairs:
        if state.is_terminal():
            state = new_state()
        codes = state.legal_actions()
        state.apply(rng.choice(codes))
        state.undo()
        done += 1
        state.apply(_sample_outcome(state, rng) if state.is_chance() else rng.choice(codes))
    return done


def core_measures(entry: dict[str, Any], settings: Settings) -> dict[str, tuple[Measure, Measure]]:
    """{measure: (C core, oracle)} from one position with the same seed."""
    core = position_state(entry, "c").backend
    oracle = position_state(entry, "oracle").backend
    n, m, seed = settings.core_actions, settings.oracle_actions, settings.seed
    return {
        "random actions/s": (
            timed(n, lambda: core.random_actions(n, seed)),
            timed(m, lambda: oracle_random_actions(oracle.clone, m, seed)),
        ),
        "apply+undo/s": (
            timed(n, lambda: core.apply_undo_pairs(n, seed)),
            timed(m, lambda: oracle_apply_undo(oracle.clone, m, seed)),
        ),
    }


def xenophon_search(state: State, iterations: int, seed: int, **options: Any) -> Measure:
    """One xenophon ISMCTS search (one worker) from the position."""
    result = ISMCTSBot(iterations=iterations, seed=seed, **options).analyse(state)
    return Measure(result.iterations, result.seconds, result.nodes, result.tree_bytes)


def heap_in_use() -> int | None:
    """Bytes malloc has handed out and not taken back (glibc), else None."""

    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (AttributeError, OSError):
        return None
    mallinfo2.restype = MallInfo2
    info = mallinfo2()
    return info.uordblks + info.hblkhd


def openspiel_search(
    state: State, iterations: int, seed: int, c_uct: float | None = None
) -> Measure:
    """One search of OpenSpiel's C++ ISMCTS (one random rollout per leaf) on
    the native game. Its tree stays allocated until the bot's next search, so
    the heap grown over the search is the tree's bytes; its nodes are counted
    by the states cloned for rollouts (one per node created)."""
    options = {"c_uct": c_uct} if c_uct is not None else {}
    bot = native.OpenSpielISMCTSBot(iterations=iterations, seed=seed, **options)
    spiel_state = bot.spiel_state(state)
    clones, heap = native.clones(), heap_in_use()
    start = time.perf_counter()
    bot.step(spiel_state)
    seconds = time.perf_counter() - start
    after = heap_in_use()
    tree_bytes = after - heap if heap is not None and after is not None else None
    return Measure(iterations, seconds, native.clones() - clones, tree_bytes)


def python_openspiel_search(
    state: State, iterations: int, seed: int, c_uct: float | None = None, memory: bool = True
) -> Measure:
    """One search of OpenSpiel's Python ISMCTS (Python random rollouts) on the
    Python-registered game; the tree's bytes from a second, identical search
    under tracemalloc (which slows it down), its nodes from the bot's table."""
    # optional dependencies: OpenSpiel's Python ISMCTS and its game wrapper
    # (which needs pyspiel at import) load only when this peer is measured
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from xenophon.interop import openspiel as interop

    game = interop.spiel_game(state.game)
    spiel_state = interop.spiel_state(game, state)
    c_uct = native.DEFAULT_C_UCT if c_uct is None else c_uct

    def search() -> Any:
        bot = ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
            c_uct,
            iterations,
            random_state=np.random.RandomState(seed),
        )
        bot.run_search(spiel_state)
        return bot

    start = time.perf_counter()
    bot = search()
    measure = Measure(iterations, time.perf_counter() - start, len(bot._nodes))
    del bot
    if memory:
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            bot = search()  # noqa: F841 - the tree must stay alive while it is measured
            measure.tree_bytes = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    return measure


# -- the run ------------------------------------------------------------------


@dataclass
class Row:
    """One line of a game's table: xenophon's figure against a peer's (labels
    and values; a match's figures are in `match`)."""

    part: str
    measure: str
    position: str
    xenophon: str
    peer: str
    xenophon_value: float | None = None
    peer_value: float | None = None
    result: str = ""  # the ratio, or a match's score, or why it was skipped
    match: dict[str, Any] | None = None


def _figure(value: float | None) -> str:
    if value is None:
        return "n/a"
    for limit, unit, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if abs(value) >= limit:
            return f"{value / unit:.3g}{suffix}"
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def compare(
    part: str,
    measure: str,
    position: str,
    ours: tuple[str, float | None],
    peer: tuple[str, float | None],
) -> Row:
    """A row with the ratio xenophon / peer."""
    ratio = "n/a"
    if ours[1] and peer[1]:
        value = ours[1] / peer[1]
        ratio = f"{value:,.0f}x" if value >= 100 else f"{value:.3g}x"
    return Row(part, measure, position, ours[0], peer[0], ours[1], peer[1], ratio)


def skipped(
    part: str, measure: str, position: str, ours: str, reason: str, value: float | None = None
) -> Row:
    return Row(part, measure, position, ours, "-", value, result=f"skipped: {reason}")


def peer_reason() -> str | None:
    """Why OpenSpiel's C++ ISMCTS cannot be measured here, or None."""
    return native.unavailable_reason()


def core_rows(entry: dict[str, Any], settings: Settings) -> list[Row]:
    return [
        compare("core", name, entry["stage"], ("C core", c.rate), ("oracle", o.rate))
        for name, (c, o) in core_measures(entry, settings).items()
    ]


UNIFORM = "uniform rollouts"
PEER_CC, PEER_PY = "OpenSpiel C++ ISMCTS", "OpenSpiel Python ISMCTS"


def median_runs(searches: list[Callable[[], Measure]], rounds: int) -> list[Measure]:
    """Each search run `rounds` times, the searches taking turns (so a slow
    stretch of a shared machine falls on all of them alike); for each, its run
    of median rate."""
    runs: list[list[Measure]] = [[] for _ in searches]
    for _ in range(rounds):
        for search, done in zip(searches, runs):
            done.append(search())
    return [sorted(done, key=lambda m: m.rate)[len(done) // 2] for done in runs]


def search_rows(entry: dict[str, Any], settings: Settings, reason: str | None) -> list[Row]:
    """Ours with uniform rollouts to the end against both OpenSpiel ISMCTS
    (speed, bytes per node); ours with its own playouts and its defaults
    against OpenSpiel's C++ ISMCTS (speed). The C++ searches are timed
    `settings.rounds` times, taking turns (the medians are compared)."""
    state, stage = position_state(entry), entry["stage"]
    n, seed = settings.search_iterations, settings.seed
    searches = [
        lambda: xenophon_search(state, n, seed, uniform_playouts=True, **TO_THE_END),
        lambda: xenophon_search(state, n, seed, **TO_THE_END),
        lambda: xenophon_search(state, n, seed),
    ]
    if not reason:
        searches.append(lambda: openspiel_search(state, n, seed))
    uniform, own, default, *peer_cc = median_runs(searches, settings.rounds)
    ours = [
        (f"iterations/s, {UNIFORM}", uniform.rate, "rate", PEER_CC),
        (f"iterations/s, {UNIFORM}", uniform.rate, "rate", PEER_PY),
        (f"bytes/node, {UNIFORM}", uniform.bytes_per_node, "bytes_per_node", PEER_CC),
        (f"bytes/node, {UNIFORM}", uniform.bytes_per_node, "bytes_per_node", PEER_PY),
        ("iterations/s, own playouts to the end", own.rate, "rate", PEER_CC),
        ("iterations/s, defaults (cut-off playouts)", default.rate, "rate", PEER_CC),
    ]
    if reason:
        return [
            skipped("search", measure, stage, "ISMCTS", reason, value)
            for measure, value, _, peer in ours
            if peer == PEER_CC
        ]
    peers = {
        PEER_CC: peer_cc[0],
        PEER_PY: python_openspiel_search(state, settings.python_iterations, seed),
    }
    return [
        compare(
            "search", measure, stage, ("ISMCTS", value), (peer, getattr(peers[peer], attribute))
        )
        for measure, value, attribute, peer in ours
    ]


#: xenophon's best settings at 0.1 s a move, where they differ from its
#: defaults, are each game's (GamePlugin.best_at_equal_time: tuned against
#: OpenSpiel in docs/benchmarks.md)


def match_specs(settings: Settings, game: str) -> dict[str, tuple[str, str, str, str]]:
    """{match: (xenophon label, xenophon bot spec, OpenSpiel label, OpenSpiel bot spec)}.
    At equal iterations both use one uniform rollout to the end per iteration
    and the same exploration constant; at equal time each its best settings
    (xenophon the game's `best_at_equal_time`, OpenSpiel the constant tuned in
    docs/benchmarks.md)."""
    to_end = ",".join(f"{k}={v}" for k, v in TO_THE_END.items())
    n, t = settings.match_iterations, f"{settings.move_time:g}"
    best = dict(game_plugin(game).best_at_equal_time)
    best_label = ", ".join(f"{k} {v}" for k, v in best.items()) or "defaults"
    return {
        f"equal iterations, {UNIFORM}": (
            f"ISMCTS {n} it, uniform, c {native.DEFAULT_C_UCT:g}",
            f"ismcts:iterations={n},uniform_playouts=1,c_uct={native.DEFAULT_C_UCT},{to_end}",
            f"{PEER_CC} {n} it",
            f"openspiel:iterations={n}",
        ),
        "equal time, best settings": (
            f"ISMCTS {t} s, {best_label}",
            ",".join([f"ismcts:time={t}", *(f"{k}={v}" for k, v in best.items())]),
            f"{PEER_CC} {t} s",
            f"openspiel:time={t}",
        ),
    }


def strength_row(
    entry: dict[str, Any], settings: Settings, match: str, reason: str | None, progress: bool
) -> Row:
    """One match of `match_specs` against OpenSpiel's C++ ISMCTS, from xenophon's side."""
    ours, ours_spec, peer, peer_spec = match_specs(settings, entry["game"])[match]
    if reason:
        return skipped("strength", match, "match", ours, reason)
    sprt = (*settings.sprt, 0.05, 0.05) if settings.sprt else None
    report = play_match(
        game_spec(entry),
        ours_spec,
        peer_spec,
        games=settings.match_games,
        seed=settings.seed,
        processes=settings.processes,
        progress=progress,
        sprt=sprt,
        backend=make_backend(settings.cluster, settings.processes) if settings.cluster else None,
    )
    s = report.summary()
    (low, high), (elo_low, elo_high) = s["interval95"], s["elo_interval95"]
    result = (
        f"{s['score']:.1%} [{low:.1%}, {high:.1%}], Elo {s['elo']:+.0f} "
        f"[{elo_low:+.0f}, {elo_high:+.0f}], {s['games']} games"
        + (f", SPRT {s['sprt']}" if s["sprt"] else "")
    )
    return Row("strength", match, "match", ours, peer, result=result, match=s)


def environment() -> dict[str, Any]:
    """The machine and the versions a run was made with."""
    from importlib import metadata

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    versions: dict[str, str | None] = {
        "python": platform.python_version(),
        "xenophon": xenophon.__version__,
    }
    for package in ("open-spiel", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    try:
        versions["g++"] = subprocess.run(
            [os.environ.get("CXX", "g++"), "--version"], capture_output=True, text=True
        ).stdout.splitlines()[0]
    except (OSError, IndexError):
        versions["g++"] = None
    defaults: dict[str, Any] = {"max_playout_actions": SearchSettings().max_playout_actions}
    # the tree options' defaults are the default preset's (their arguments default to None)
    defaults.update(preset=DEFAULT_PRESET, **PRESETS[DEFAULT_PRESET])
    return {
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "network_path": network_path(),
        "versions": versions,
        "ismcts_defaults": defaults,
    }


def run(
    games: tuple[str, ...],
    settings: Settings,
    parts: tuple[str, ...] = PARTS,
    positions: str | Path | None = None,
    progress: bool | None = None,
    command: str = "",
) -> dict[str, Any]:
    """Runs the benchmark; returns {"environment", "settings", "command",
    "tables": {game: [rows as dicts]}}. `command` records how it was run."""
    if progress is None:
        progress = sys.stderr.isatty()
    entries = load_positions(positions, games)
    reason = peer_reason() if {"search", "strength"} & set(parts) else None
    if reason is None and {"search", "strength"} & set(parts):
        native.load()  # build now, outside the timings
    tasks: list[tuple[str, str, Callable[[], list[Row]]]] = []
    for entry in entries:
        label = f"{entry['game']} {entry['stage']}"
        if "core" in parts:
            tasks.append((entry["game"], f"core {label}", partial(core_rows, entry, settings)))
    for entry in entries:
        label = f"{entry['game']} {entry['stage']}"
        if "search" in parts:
            tasks.append(
                (entry["game"], f"search {label}", partial(search_rows, entry, settings, reason))
            )
    for game in games:
        first = next((e for e in entries if e["game"] == game), None)
        if first is None or "strength" not in parts:
            continue
        for match in match_specs(settings, game):
            tasks.append(
                (
                    game,
                    f"{game} {match}",
                    partial(_strength_rows, first, settings, match, reason, progress),
                )
            )
    from tqdm import tqdm

    tables: dict[str, list[Row]] = {game: [] for game in games}
    with tqdm(tasks, desc="bench", unit="step", disable=not progress, leave=False) as bar:
        for game, label, task in bar:
            bar.set_postfix_str(label)
            tables[game].extend(task())
    return {
        "environment": environment(),
        "settings": asdict(settings),
        "command": command,
        "tables": {game: [asdict(row) for row in rows] for game, rows in tables.items()},
    }


def _strength_rows(
    entry: dict[str, Any], settings: Settings, match: str, reason: str | None, progress: bool
) -> list[Row]:
    return [strength_row(entry, settings, match, reason, progress)]


def _cell(label: str, value: float | None) -> str:
    return label if value is None else f"{label} {_figure(value)}"


def format_tables(results: dict[str, Any]) -> str:
    """One plain-text table per game."""
    header = ("part", "measure", "position", "xenophon", "peer", "ratio / result")
    out = []
    for game, rows in results["tables"].items():
        cells = [header] + [
            (
                r["part"],
                r["measure"],
                r["position"],
                _cell(r["xenophon"], r["xenophon_value"]),
                _cell(r["peer"], r["peer_value"]),
                r["result"],
            )
            for r in rows
        ]
        widths = [max(len(row[i]) for row in cells) for i in range(len(header) - 1)]
        out.append(game)
        for row in cells:
            out.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
        out.append("")
    out.append("ratio = xenophon / peer (rates: higher is better; bytes/node: lower is better)")
    path = results.get("environment", {}).get("network_path")
    if path:
        out.append(f"the network's value runs on its {path} path ({NETWORK_PATH_VARIABLE} picks)")
    return "\n".join(out) + "\n"
