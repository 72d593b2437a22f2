"""Game-independent test machinery: differential runs of the C core against
the oracle, undo walks, information-set checks. Each game's tests supply two
factories returning fresh initial backends (C core, oracle)."""

from __future__ import annotations

import contextlib
import itertools
import os
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

Factory = Callable[[], Any]


def differential_batches(games: int, batch: int) -> range:
    """The batches of a differential test: `games` games of `batch` each, or as
    many as XENOPHON_DIFFERENTIAL_GAMES says (the sanitizer step plays fewer on
    its instrumented build, .ci/sanitizers); a setting that is not a positive
    multiple of the batch size stops the run with one line."""
    setting = os.environ.get("XENOPHON_DIFFERENTIAL_GAMES")
    if setting is not None:
        if not (setting.isdigit() and int(setting) > 0 and int(setting) % batch == 0):
            pytest.exit(
                f"XENOPHON_DIFFERENTIAL_GAMES={setting!r}: give a positive multiple of {batch}",
                returncode=4,
            )
        games = int(setting)
    return range(games // batch)


def choose(backend: Any, rng: random.Random) -> int:
    """A random legal action; a chance outcome with its true probability."""
    if backend.is_chance():
        outcomes = backend.chance_outcomes()
        return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(backend.legal_actions())


def assert_same_node(core: Any, oracle: Any, where: str) -> None:
    assert core.current_player() == oracle.current_player(), where
    if core.is_chance():
        assert core.chance_outcomes() == oracle.chance_outcomes(), where
    else:
        assert core.legal_actions() == oracle.legal_actions(), where
    assert core.returns() == oracle.returns(), where
    assert_same_observations(core, oracle, where)
    core_dict, oracle_dict = core.to_dict(), oracle.to_dict()
    if core_dict != oracle_dict:
        raise AssertionError(f"{where}: states differ: {dict_difference(core_dict, oracle_dict)}")


def assert_same_observations(core: Any, oracle: Any, where: str) -> None:
    """Both engines agree on what each seat is shown, for one code of each kind here."""
    codes = core.legal_actions()
    one_per_kind = {code >> 12: code for code in codes}.values()
    for code in one_per_kind:
        for seat in (0, 1):
            assert core.observed_by(code, seat) == oracle.observed_by(code, seat), (
                f"{where}: code {code}, seat {seat}"
            )


def dict_difference(a: Any, b: Any, path: str = "") -> str:
    """The first place where two nested structures differ, for readable failures."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key, "<missing>") != b.get(key, "<missing>"):
                return dict_difference(
                    a.get(key, "<missing>"), b.get(key, "<missing>"), f"{path}.{key}"
                )
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return dict_difference(x, y, f"{path}[{index}]")
    return f"{path or 'state'}: core {a!r} != oracle {b!r}"


def differential_game(
    core_factory: Factory,
    oracle_factory: Factory,
    seed: int,
    max_actions: int,
    describe: Callable[[Any, int], str] = lambda s, c: str(c),
) -> int:
    """Plays one seeded random game on both backends, comparing every node.

    Returns the number of actions played."""
    rng = random.Random(seed)
    core, oracle = core_factory(), oracle_factory()
    history: list[str] = []
    for step in range(max_actions):
        where = f"seed {seed}, step {step}, after {' / '.join(history[-6:])}"
        assert_same_node(core, oracle, where)
        if core.is_terminal():
            return step
        code = choose(core, rng)
        history.append(describe(core, code))
        core.apply(code)
        oracle.apply(code)
    assert_same_node(core, oracle, f"seed {seed}, last step")
    return max_actions


def information_pairs(core: Any, oracle: Any, rng: random.Random, pairs: int) -> int:
    """For pairs of legal actions here: for each player, the C keys after them
    are equal exactly when the oracle's views of that player are equal."""
    actions = core.legal_actions()
    candidates = list(itertools.combinations(actions, 2))
    rng.shuffle(candidates)
    checked = 0
    for first, second in candidates[:pairs]:
        keys, views = [], []
        for code in (first, second):
            core.apply(code)
            oracle.apply(code)
            keys.append([core.information_set_key(p) for p in (0, 1)])
            views.append([oracle.information_view(p) for p in (0, 1)])
            core.undo()
            oracle.undo()
        for player in (0, 1):
            same_view = views[0][player] == views[1][player]
            same_key = keys[0][player] == keys[1][player]
            assert same_key == same_view, (
                f"player {player}, actions {first} and {second}: oracle says "
                f"{'indistinguishable' if same_view else 'distinguishable'}, C keys "
                f"{'equal' if same_key else 'differ'}"
            )
        checked += 1
    return checked


def undo_walk(factory: Factory, seed: int, steps: int) -> None:
    """Random walk where every apply is checked against its undo, byte for byte."""
    rng = random.Random(seed)
    state = factory()
    for _ in range(steps):
        if state.is_terminal():
            state = factory()
        before, before_hash = state.to_bytes(), state.hash()
        code = choose(state, rng)
        state.apply(code)
        assert state.hash() == state.hash_from_scratch()
        for player in (0, 1):
            assert state.information_set_key(player) == state.information_set_key_from_scratch(
                player
            )
        state.undo()
        assert state.to_bytes() == before and state.hash() == before_hash
        state.apply(code)


class CoreBacked:
    """A C core state with the oracle's two extra test methods: its
    information-set key stands for the information view (equal exactly when
    the player cannot tell two states apart), and resample takes an rng."""

    def __init__(self, state: Any):
        self._state = state

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)

    def information_view(self, player: int) -> int:
        return self._state.information_set_key(player)

    def resample(self, player: int, rng: random.Random) -> CoreBacked:
        return CoreBacked(self._state.resample(player, rng.getrandbits(63)))

    def clone(self) -> CoreBacked:
        return CoreBacked(self._state.clone())


class SwitchedBackend:
    """A game for scenario tests whose states come from the backend selected
    with `SwitchedBackend.using("oracle" | "c")`: one scenario, both engines."""

    current = "oracle"

    def __init__(self, oracle_game: Any, core_state: Any, tables: Any):
        self.oracle = oracle_game
        self.core_state = core_state
        self.tables = tables

    @classmethod
    @contextlib.contextmanager
    def using(cls, name: str) -> Iterator[None]:
        cls.current = name
        try:
            yield
        finally:
            cls.current = "oracle"

    def new_initial_state(self) -> Any:
        if SwitchedBackend.current == "oracle":
            return self.oracle.new_initial_state()
        return CoreBacked(self.core_state.initial(self.tables))

    def state_from_dict(self, d: dict) -> Any:
        if SwitchedBackend.current == "oracle":
            return self.oracle.state_from_dict(d)
        return CoreBacked(self.core_state.from_dict(self.tables, d))


def random_record(name: str, seed: int, lines: int) -> Any:
    """The full record of `lines` random steps of game `name` (seeded): two
    random players, chance as the game draws it."""
    from xenophon.kernel.registry import make_game
    from xenophon.play.records import new_record

    game = make_game(name, seed=seed)
    record = new_record(game, ["random", "random"])
    state, rng = game.new_initial_state(), random.Random(seed)
    for _ in range(lines):
        move = state.sample_chance(rng) if state.is_chance() else rng.choice(state.legal_moves())
        record.add(state.current_player, state.apply(move).text)
    return record


def bench_script(name: str) -> Any:
    """The script bench/NAME.py, imported as a module (bench/ is no package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decision_positions(
    state: Any, rng: random.Random, choose_code: Callable[[Any], int], every: int
) -> Iterator[Any]:
    """Copies of every `every`-th decision of the game played on from `state`:
    chance drawn from `rng`, each decision's action `choose_code(state)`."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        decisions += 1
        if decisions % every == 0:
            yield state.copy()
        state.apply_code(choose_code(state))
