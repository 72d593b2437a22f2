"""What both games share: the public `Move` and the `State` wrapper over a backend.

A backend is an int-level state implementing the protocol of
docs/architecture.md: the C core's ``CoreState`` or the pure-Python oracle.
`State` adds what a person or a program needs on top of it: moves in the
game's notation, legality checks with helpful messages, chance sampling,
rendering. Each game subclasses `State` and provides its notation.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xenophon.kernel.codes import CHANCE, TERMINAL, kind_of  # noqa: F401 (CHANCE, TERMINAL re-exported: the API names them here)
from xenophon.kernel.errors import IllegalMoveError, NotationError, XenophonError, shown
from xenophon.kernel.evaluation import install_shipped, resolve, tables_for
from xenophon.kernel.plugin import find_plugin


@dataclass(frozen=True, order=True)
class Move:
    """One action or chance outcome: its code and its text in the game's notation.

    Moves compare by code; the text is what the CLI, records and analysis print.

    >>> Move(0, "end")
    Move('end')
    """

    code: int
    text: str = field(compare=False)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move({self.text!r})"


ENGINES = ("c", "oracle")
# Engines other than the C core live in modules that register themselves when
# imported (register_engine); a game's plugin names them (GamePlugin.engines:
# the oracle is the module `oracle` of the game's own package). The game API
# never imports them by name in code, so the dependency points from the
# oracle to this module, not back.
_ENGINE_FACTORIES: dict[tuple[str, str], Callable[[Game], Any]] = {}


def register_engine(engine: str, game_name: str, factory: Callable[[Game], Any]) -> None:
    """Makes `engine` available for `game_name`: `factory(game)` returns an
    object with `new_initial_state()` and `state_from_dict(data)` giving
    backends (docs/architecture.md)."""
    _ENGINE_FACTORIES[(engine, game_name)] = factory


def engine_factory(engine: str, game_name: str) -> Callable[[Game], Any]:
    if (engine, game_name) not in _ENGINE_FACTORIES:
        plugin = find_plugin(game_name)
        if plugin is not None and engine in plugin.engines:
            importlib.import_module(plugin.engines[engine])
    try:
        return _ENGINE_FACTORIES[(engine, game_name)]
    except KeyError:
        raise XenophonError(f"the {engine} engine does not play {game_name}") from None


class Game:
    """What both games' Game classes share: the seed and its generator, the
    choice of rules engine (the C core or the oracle), and the C interface the
    search uses. Subclasses build the core tables and the oracle game."""

    #: the game's name, as used on the command line and in records
    name = ""
    state_class: type[State]
    #: the game's card set (each game has its own kind)
    cards: Any

    def __init__(self, seed: int | None, engine: str):
        if engine not in ENGINES:
            raise XenophonError(f"unknown engine '{shown(engine)}' (c or oracle)")
        self.seed = seed
        self.engine = engine
        self.rng = random.Random(seed)
        self.tables: Any = None
        self._engine_game: Any = None

    def _core(self) -> Any:
        """The game's submodule of the compiled extension xenophon._core."""
        raise NotImplementedError

    def _make_tables(self) -> Any:
        """The C core's tables for this game (its cards, mode or decks)."""
        raise NotImplementedError

    def _attach_engine(self) -> None:
        """Builds the rules engine's side of the game; subclasses call it once
        their cards and options are set."""
        if self.engine == "c":
            self.tables = self._make_tables()
            install_shipped(self)
        else:
            self._engine_game = engine_factory(self.engine, self.name)(self)

    def options(self) -> dict[str, Any]:
        """The options that recreate this game (for records)."""
        raise NotImplementedError

    def card_digest(self) -> str:
        """sha256 of the card file(s) in use, so a record names its card set."""
        raise NotImplementedError

    def new_initial_state(self) -> State:
        """The state before setup: a chance node (the setup's chance follows)."""
        if self.engine == "c":
            return self.state_class(self, self._core().CoreState.initial(self.tables))
        return self.state_class(self, self._engine_game.new_initial_state())

    def state_from_bytes(self, data: bytes) -> State:
        if self.engine != "c":
            raise XenophonError("only the C engine serialises states to bytes")
        if not isinstance(data, bytes):
            raise XenophonError(
                f"a {self.name} state is read from bytes, not {type(data).__name__}"
            )
        try:
            return self.state_class(self, self._core().CoreState.from_bytes(self.tables, data))
        except ValueError as error:
            raise XenophonError(f"not a {self.name} state: {error}") from None

    def state_from_dict(self, data: dict) -> State:
        """A position built from a canonical state dict (docs/anabasis-engine.md
        §8, docs/hero-engine.md §10); a dict the core refuses is one
        XenophonError saying why."""
        try:
            if self.engine == "c":
                return self.state_class(self, self._core().CoreState.from_dict(self.tables, data))
            return self.state_class(self, self._engine_game.state_from_dict(data))
        except (ValueError, KeyError, TypeError) as error:
            raise XenophonError(f"not a {self.name} position: {error}") from None

    def search_interface(
        self, evaluation: str = "default", weights: str | None = None
    ) -> tuple[Any, Any]:
        """(game API capsule, tables capsule) for the C search, its leaves
        scored by the hand-set evaluation or the learned one (the game's
        shipped weights, or those of the weights file `weights`)."""
        if self.engine != "c":
            raise XenophonError("the search runs on the C engine only")
        tables = tables_for(self, evaluation, weights)
        return self._core().game_api(resolve(self, evaluation)), tables.capsule()


class State:
    """A game position over a backend; subclasses supply the notation."""

    def __init__(self, game: Game, backend: Any):
        self.game = game
        self.backend = backend

    # -- notation: provided by each game ------------------------------------
    def format_code(self, code: int) -> str:
        raise NotImplementedError

    def parse_code(self, text: str) -> int:
        """The code a text names (NotationError if it is not well formed)."""
        raise NotImplementedError

    def describe_illegal(self, text: str, code: int) -> str:
        """A sentence saying why a well-formed move is not legal now."""
        same_kind = [m.text for m in self.legal_moves() if kind_of(m.code) == kind_of(code)]
        if same_kind:
            listed = ", ".join(same_kind[:8]) + (", ..." if len(same_kind) > 8 else "")
            return f"'{shown(text)}' is not legal now; legal moves of that kind: {listed}"
        return f"'{shown(text)}' is not legal now; type 'moves' to see the legal moves"

    # -- what a seat sees: provided by each game ----------------------------
    def view(self, seat: int) -> dict[str, Any]:
        """The state dict with what `seat` cannot see taken out."""
        raise NotImplementedError

    def render(self, seat: int, color: bool = False, names: Any = None) -> str:
        """The board and counters as `seat` sees them, as text; `names`, the
        names of the pieces the notation gives them (xenophon.kernel.naming),
        shown on them where the game has such names."""
        raise NotImplementedError

    # -- the game tree ------------------------------------------------------
    @property
    def current_player(self) -> int:
        """0 or 1, CHANCE (-1) at a chance node, TERMINAL (-4) at the end."""
        return self.backend.current_player()

    def is_chance(self) -> bool:
        return self.backend.is_chance()

    def is_terminal(self) -> bool:
        return self.backend.is_terminal()

    def returns(self) -> list[float]:
        return list(self.backend.returns())

    def legal_actions(self) -> list[int]:
        """Ascending action codes (outcome codes at a chance node)."""
        return list(self.backend.legal_actions())

    def legal_moves(self) -> list[Move]:
        return [Move(code, self.format_code(code)) for code in self.backend.legal_actions()]

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        return [
            (Move(code, self.format_code(code)), p) for code, p in self.backend.chance_outcomes()
        ]

    def chance_probabilities(self) -> list[tuple[int, float]]:
        """(code, probability) of each outcome at a chance node, without the
        notation (for programs that only need the codes)."""
        return list(self.backend.chance_outcomes())

    def evaluate(self, player: int) -> float:
        """The core's hand-written static evaluation of this position for
        `player`, in [-1, 1]: what a search with `eval=hand` scores a cut-off
        playout with, and the greedy bot's (the default search scores with
        the learned evaluation, the backend's `evaluate_learned`)."""
        if not hasattr(self.backend, "evaluate"):
            raise XenophonError("the static evaluation is in the C engine only")
        return self.backend.evaluate(player)

    def move(self, move: Move | str | int) -> Move:
        """The legal Move meant by a Move, a text or a code.

        Raises NotationError for text that is not a move of this game, and
        IllegalMoveError for a move that is not legal in this position.
        """
        if isinstance(move, Move):
            code, text = move.code, move.text
        elif isinstance(move, str):
            text = move.strip()
            code = self.parse_code(text)
        elif isinstance(move, int):
            code, text = move, None
        else:
            raise NotationError(f"not a move: {shown(repr(move))}")
        if self.is_terminal():
            raise IllegalMoveError("the game is over")
        if code not in self.backend.legal_actions():
            raise IllegalMoveError(self.describe_illegal(text or str(code), code))
        return Move(code, self.format_code(code))

    def apply(self, move: Move | str | int) -> Move:
        """Plays a move (text, Move or code) and returns it as a Move."""
        legal = self.move(move)
        self.backend.apply(legal.code)
        return legal

    def apply_code(self, code: int) -> None:
        """Plays a code known to be legal (no notation, no checks beyond the backend's)."""
        self.backend.apply(code)

    def undo(self) -> None:
        """Takes back the last applied move or chance outcome."""
        self.backend.undo()

    def sample_chance(self, rng: random.Random) -> Move:
        """Draws a chance outcome with its true probability (does not apply it)."""
        outcomes = self.backend.chance_outcomes()
        codes = [code for code, _ in outcomes]
        weights = [p for _, p in outcomes]
        code = rng.choices(codes, weights=weights)[0]
        return Move(code, self.format_code(code))

    def resolve_chance(self, rng: random.Random) -> list[Move]:
        """Samples and applies chance outcomes until a decision or the end."""
        played = []
        while self.is_chance():
            played.append(self.apply(self.sample_chance(rng)))
        return played

    # -- information and serialisation --------------------------------------
    def information_set_key(self, player: int) -> int:
        return self.backend.information_set_key(player)

    def observed_by(self, code: int, seat: int) -> bool:
        """Whether `seat` is shown which action or outcome `code` (legal here)
        is, as the rules say (each game's spec, "What each player sees");
        False when it sees only that something of its kind happened."""
        return self.backend.observed_by(code, seat)

    def hash(self) -> int:
        return self.backend.hash()

    def to_dict(self) -> dict:
        return self.backend.to_dict()

    def to_bytes(self) -> bytes:
        return self.backend.to_bytes()

    def copy(self) -> State:
        return type(self)(self.game, self.backend.clone())

    def resample(self, player: int, rng: random.Random) -> State:
        """A full state consistent with everything `player` has seen here."""
        return type(self)(self.game, self.backend.resample(player, rng.getrandbits(63)))

    def __repr__(self) -> str:
        return f"<{self.game.name} state, current player {self.current_player}>"


def wrapped(label: str, text: str, width: int = 80) -> list[str]:
    """'  label: text' folded to `width` columns, continuation lines indented."""
    import textwrap

    return textwrap.wrap(
        text, width=width, initial_indent=f"  {label}: ", subsequent_indent=" " * (len(label) + 4)
    ) or [f"  {label}: -"]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def count_text(multiset: dict[str, int]) -> str:
    """'Archer x2, Militia' for {'Archer': 2, 'Militia': 1}."""
    return (
        ", ".join(name if n == 1 else f"{name} x{n}" for name, n in sorted(multiset.items())) or "-"
    )
