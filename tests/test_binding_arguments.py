"""Every entry point of each game's compiled module (xenophon._core.GAME: its
functions, and every method, static method, constructor and property of its
classes, found by introspection, so that a new one is swept too) called with
None in each argument, with an object that was never initialised (made by
`__new__` alone) wherever one of the module's objects goes, and with
floats where integers go: each call is refused with a TypeError, before any C
runs, and none ends the process (issue 61, fault 9: `None` as the tables
crashed both games, and `Batch.step` played 1234 for 1234.7).

The sweep runs in a process of its own (this file, run as a script), so that
a crash fails the test, naming the call, instead of killing pytest; run by
hand, it is also what docs/sanitizers.md's build is given:
`python tests/test_binding_arguments.py anabasis`."""

from __future__ import annotations

import decimal
import fractions
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

GAMES = ("anabasis", "hero")

#: numbers that are not integers, each holding a whole number: a binding that
#: truncated them would take them silently
NOT_AN_INTEGER: tuple[Callable[[int], Any], ...] = (
    float,
    np.float64,
    np.float32,
    fractions.Fraction,
    decimal.Decimal,
)


def make_game(name: str) -> tuple[Any, Any]:
    """The game (seed 1) and what its Tables constructor takes."""
    if name == "anabasis":
        from xenophon.anabasis import Game as AnabasisGame

        game = AnabasisGame(seed=1)
        return game, {"card_set": game.cards.core_data(), "mode": game.mode}
    from xenophon.hero import Game as HeroGame

    game = HeroGame(seed=1)
    return game, {"data": game.cards.core_data(*game.decks)}


# ----------------------------------------------------------------- signatures


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return [*parts, last] if last else parts


Parameters = list[tuple[str, str, str | None]]


def parameters(head: str) -> Parameters:
    """(name, type, default or None) of each parameter of a signature
    "name(a: T, b: U = d) -> R"."""
    inside = head[head.index("(") + 1 : head.rindex(") ->")]
    out = []
    for part in split_top_level(inside):
        declared, _, default = part.partition(" = ")
        name, _, kind = declared.partition(": ")
        out.append((name, kind, default or None))
    return out


def signatures(function: Any) -> list[Parameters]:
    """The parameters of each overload of a function, from the signatures
    pybind11 writes in its docstring."""
    lines = (function.__doc__ or "").splitlines()
    if lines[0].endswith("(*args, **kwargs)"):  # overloaded: "1. name(...)", "2. ..."
        return [parameters(line.partition(". ")[2]) for line in lines if re.match(r"\d+\. ", line)]
    return [parameters(lines[0])]


# ----------------------------------------------------------------- valid values


class Values:
    """An argument that is right for each parameter a game's entry points
    have, by its type and name; a parameter of a new kind fails the sweep
    until it is given one here."""

    def __init__(self, name: str) -> None:
        self.core = importlib.import_module(f"xenophon._core.{name}")
        game, self.constructor = make_game(name)
        self.tables = game.tables
        self.state = self.decision_state()
        self.batch = self.core.Batch(self.tables, 2, 1)
        features = len(self.tables.feature_names)
        inputs = len(self.tables.net_input_names)
        self.floats = {  # one hidden unit, as hidden=1
            "opening": [0.0] * features,
            "ending": [0.0] * features,
            "hidden_weights": [[0.0] * features],
            "w_feature": [0.0] * features,
            "w_own": [0.0] * inputs,
            "w_enemy": [0.0] * inputs,
            **{name: [0.0] for name in ("hidden_bias", "hidden_phase", "bias", "phase", "output")},
            "policy": [],
            "policy_bias": [],
        }

    def decision_state(self) -> Any:
        """A state where a player decides, past the deal."""
        state = self.core.CoreState.initial(self.tables)
        seed = 1
        while state.is_chance():
            state.apply(state.sample_chance(seed))
            seed += 1
        return state

    def of(self, name: str, kind: str, function: str) -> Any:
        state = self.state
        by_type = {
            "bytes": state.to_bytes(),
            "dict": state.to_dict(),
            "list[int]": state.legal_actions(),
        }
        if kind.startswith("xenophon._core."):
            return {"Tables": self.tables, "CoreState": state, "Batch": self.batch}[
                kind.rpartition(".")[2]
            ]
        if kind in by_type:
            return by_type[kind]
        if kind in ("int", "typing.SupportsInt"):
            ints = {"code": state.legal_actions()[0], "n": 2, "n_games": 1}
            return ints.get(name, 0 if name in ("player", "seat", "i") else 1)
        if kind == "str":
            return {"mode": "standard", "evaluation": "hand"}.get(name, "observation")
        if kind == "object" and name in ("out", "seed"):
            return None  # their default: a new array, no seed
        if kind == "object" and name == "actions":
            return self.batch.legal[:, 0].copy()
        if name in self.floats:
            return self.floats[name]
        if name in self.constructor:
            return self.constructor[name]
        raise AssertionError(f"no value for {function}'s parameter {name}: {kind}")


# ----------------------------------------------------------------- the sweep


def entry_points(core: Any) -> Iterator[tuple[str, Any, Any]]:
    """(name, the callable, what it is called on: None, or a class whose
    first parameter is an instance) of every public function of the module
    and of its classes."""
    for name, item in vars(core).items():
        if callable(item) and not isinstance(item, type):
            yield name, item, None
    for cls_name, cls in vars(core).items():
        if not isinstance(cls, type):
            continue
        for name, item in vars(cls).items():
            if name.startswith("_pybind11") or not (
                callable(item) or isinstance(item, (staticmethod, property))
            ):
                continue
            if type(item).__name__ == "pybind11_static_property":
                continue  # a constant of the class: it takes nothing from the caller
            if isinstance(item, property):
                yield f"{cls_name}.{name}", item.fget, cls
            elif isinstance(item, staticmethod):
                yield f"{cls_name}.{name}", getattr(cls, name), None
            elif (item.__doc__ or "").startswith(f"{name}("):  # bound by pybind11
                yield f"{cls_name}.{name}", item, cls


def never_initialised(value: Any) -> Any:
    return type(value).__new__(type(value))


def is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def first_integer_as(value: Any, kind: Callable[[int], Any]) -> Any:
    """`value` with its first integer (an integer, or the first one inside its
    lists and tuples) made a number of `kind`; None when it holds none."""
    if is_integer(value):
        return kind(value)
    if isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            changed = first_integer_as(item, kind)
            if changed is not None:
                return type(value)([*value[:k], changed, *value[k + 1 :]])
    return None


def as_floats(value: Any) -> list[Any]:
    """What replaces `value` with floats where it has integers ([] if none)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iu":
            return []
        return [value.astype(np.float64), value.astype(np.float32), value.astype(float).tolist()]
    changed = (first_integer_as(value, kind) for kind in NOT_AN_INTEGER)
    return [item for item in changed if item is not None]


def replaced(args: list[Any], k: int, value: Any) -> list[Any]:
    return [*args[:k], value, *args[k + 1 :]]


def variants(
    args: list[Any], defaults: list[str | None], constructor: bool
) -> Iterator[tuple[str, list[Any]]]:
    """The arguments with one of them replaced by what the binding must refuse
    (a constructor's self is the never-initialised object it initialises)."""
    for k, value in enumerate(args):
        if defaults[k] != "None":  # None is its default (a new array, no seed)
            yield f"argument {k} None", replaced(args, k, None)
        if type(value).__module__.startswith("xenophon._core") and not (constructor and k == 0):
            yield f"argument {k} never initialised", replaced(args, k, never_initialised(value))
        for bad in as_floats(value):
            yield f"argument {k} as {type(bad).__name__} {bad!r:.40}", replaced(args, k, bad)


def fresh_self(cls: Any, name: str, values: Values) -> Any:
    """What a method is called on: a never-initialised object for __init__
    (a second __init__ is ignored), else the valid one of its class."""
    if name.endswith(".__init__"):
        return cls.__new__(cls)
    return values.of("self", f"xenophon._core.{cls.__name__}", name)


def call(function: Callable[..., Any], args: list[Any]) -> str:
    """What the call did: 'refused' (a TypeError, or NotImplemented from a
    comparison), 'answered' (a value, or a ValueError or IndexError about
    the state or the values), or what else."""
    try:
        result = function(*args)
    except TypeError:
        return "refused"
    except (ValueError, IndexError):
        return "answered"
    except Exception as error:  # noqa: BLE001 - any other answer is the finding
        return f"raised {type(error).__name__}: {error}"
    return "refused" if result is NotImplemented else "answered"


def sweep(game: str) -> dict[str, Any]:
    """Calls every entry point of the game's module with each variant,
    printing each call before it is made (the last line names a crash)."""
    values = Values(game)
    wrong, calls, entries = [], 0, 0
    for name, function, cls in entry_points(values.core):
        entries += 1
        for params in signatures(function):
            args = [values.of(p, kind, name) for p, kind, _ in params]
            if cls is not None:
                args[0] = fresh_self(cls, name, values)
            defaults = [default for _, _, default in params]
            constructor = name.endswith(".__init__")
            for what, bad in variants(args, defaults, constructor):
                print(f"CALL {game} {name}: {what}", flush=True)
                calls += 1
                outcome = call(function, bad)
                if outcome != "refused":
                    wrong.append(f"{name}: {what}: {outcome}")
            # the right arguments are taken: each refusal above is of the one replaced
            print(f"CALL {game} {name}: the right arguments", flush=True)
            outcome = call(function, args)
            if outcome != "answered":
                wrong.append(f"{name}: the right arguments: {outcome}")
    return {"entry_points": entries, "calls": calls, "wrong": wrong}


def run_sweep(game: str) -> dict[str, Any]:
    """The sweep in a process of its own; a crash is an AssertionError naming the call."""
    done = subprocess.run(
        [sys.executable, __file__, game], capture_output=True, text=True, timeout=60
    )
    lines = done.stdout.splitlines()
    last_call = next((line for line in reversed(lines) if line.startswith("CALL")), "no call")
    assert done.returncode == 0, (
        f"the sweep ended with status {done.returncode} at {last_call!r}\n{done.stderr[-2000:]}"
    )
    return json.loads(lines[-1])


# ----------------------------------------------------------------- tests


@pytest.mark.parametrize("game", GAMES)
def test_every_entry_point_refuses_none_never_initialised_objects_and_floats(game):
    result = run_sweep(game)
    assert result["wrong"] == []
    assert result["entry_points"] >= 50 and result["calls"] >= 100


def test_the_sweep_covers_every_game():
    """A game bound in xenophon._core is swept (GAMES names them all)."""
    core = importlib.import_module("xenophon._core")
    bound = {name for name, item in vars(core).items() if type(item).__name__ == "module"}
    assert bound == set(GAMES)


@pytest.fixture(params=GAMES)
def values(request):
    return Values(request.param)


def test_batch_step_takes_integer_codes_of_any_integer_type(values):
    batch = values.batch
    codes = batch.legal[:, 0].copy()
    for dtype in (np.int16, np.int32, np.int64, np.uint16, np.uint64):
        before = batch.state_bytes(0)
        batch.step(codes.astype(dtype))
        assert batch.state_bytes(0) != before
        codes = batch.legal[:, 0].copy()
    batch.step([int(code) for code in codes])


def test_batch_step_refuses_a_float_code_instead_of_playing_it_truncated(values):
    """1234.7 played 1234 (forcecast): now a TypeError, and nothing is played."""
    batch = values.batch
    before = [batch.state_bytes(i) for i in range(2)]
    codes = batch.legal[:, 0]
    for bad in (codes + 0.7, codes.astype(np.float32), [float(c) for c in codes], codes > 0):
        with pytest.raises(TypeError, match="action codes must be integers"):
            batch.step(bad)
    assert [batch.state_bytes(i) for i in range(2)] == before


def test_batch_step_names_an_unsigned_code_past_int64_as_given(values):
    codes = values.batch.legal[:, 0].astype(np.uint64)
    codes[1] = 2**64 - 1
    with pytest.raises(ValueError, match=f"game 1: illegal action code {2**64 - 1}"):
        values.batch.step(codes)


def test_a_batch_too_large_for_memory_is_refused_before_anything_is_allocated(values):
    """Batch(tables, 10**6, 1) went on to ask for about 20 GB."""
    batch_class = values.core.Batch
    for n in (batch_class.max_games + 1, 2**31 - 1, 0):
        with pytest.raises(ValueError, match=f"a batch holds 1 to 65536 games, not {n}"):
            batch_class(values.tables, n, 1)


def test_a_code_or_seat_given_as_a_numpy_float_is_refused_not_truncated(values):
    """pybind11 turned a numpy float32 (or a Fraction) into an int: apply(1234.7) played 1234."""
    state = values.state
    code = state.legal_actions()[0]
    for bad in (np.float32(code), fractions.Fraction(code), decimal.Decimal(code)):
        with pytest.raises(TypeError):
            state.apply(bad)
    with pytest.raises(TypeError):
        state.evaluate(np.float32(0))
    state.apply(np.int64(code))  # numpy's integers are integers
    state.undo()


def test_a_never_initialised_object_is_one_clear_type_error(values):
    """Tables.__new__(Tables) has no C++ object behind it: pybind11 handed the
    methods uninitialised memory (a crash, or garbage read as tables)."""
    uses = {"Tables": "card_names", "CoreState": "legal_actions", "Batch": "tensors"}
    for cls_name, use in uses.items():
        cls = getattr(values.core, cls_name)
        with pytest.raises(TypeError, match=rf"^\S+\.{cls_name} object was never initialised"):
            attribute = getattr(cls.__new__(cls), use)
            attribute() if callable(attribute) else None


def test_a_state_equals_no_other_type(values):
    assert values.state != None  # noqa: E711 - the comparison under test
    assert values.state in [None, values.state]


if __name__ == "__main__":
    print(json.dumps(sweep(sys.argv[1])))
