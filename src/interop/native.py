"""Both games as native OpenSpiel C++ games, and a bot playing OpenSpiel's C++ ISMCTS.

OpenSpiel's C++ ``ISMCTSBot`` cannot play a game registered from Python (it
does not forward ``resample_from_infostate``), so for it the games are also
compiled as C++ OpenSpiel games over our C core: each game's src/engine_c/GAME/openspiel.cc
(over the templates of src/interop/xenophon_spiel.hpp) with src/interop/xenophon_spiel.cc
and the C cores (src/engine_c/*/*.c), built with g++ (C++20) against the headers shipped in
the open-spiel wheel into a cache directory (``$XENOPHON_CACHE``, default
``~/.cache/xenophon``), then loaded into pyspiel's symbol scope. This needs a
source checkout, OpenSpiel and a compiler; `unavailable_reason()` says which
is missing.

Tables: the C++ games take our card tables, built in Python, through the game
parameter ``tables``: the address of a live Game's tables (its
``tables.capsule()`` pointer) in hex, ``0x...``. `NativeGame` does that and keeps
the Game alive; it also checks that the library was built from the same
sources as the loaded xenophon (same initial state, byte for byte).

>>> bot = OpenSpielISMCTSBot(iterations=1000)   # doctest: +SKIP
>>> bot.choose(state)                            # a Move, like any Bot
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import weakref
from pathlib import Path
from typing import Any

import xenophon
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game, Move, State
from xenophon.kernel.plugin import plugins
from xenophon.search.bots import Bot

#: OpenSpiel's name of each native game (its plugin's)
GAME_NAMES = {plugin.name: plugin.openspiel.native for plugin in plugins()}
#: the exploration constant the OpenSpiel bot uses unless told (see docs/benchmarks.md)
DEFAULT_C_UCT = 1.0

PACKAGE_DIR = Path(xenophon.__file__).resolve().parent
ENGINE_DIR = PACKAGE_DIR / "engine_c"
WRAPPER_DIR = Path(__file__).resolve().parent
WRAPPER_SOURCE = WRAPPER_DIR / "xenophon_spiel.cc"  # shipped with the package, with its .hpp

_library: ctypes.CDLL | None = None


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise XenophonError(
            "OpenSpiel is not installed: pip install 'xenophon[openspiel]'"
        ) from None
    return pyspiel


def _compilers() -> tuple[str, str]:
    return os.environ.get("CC", "gcc"), os.environ.get("CXX", "g++")


def unavailable_reason() -> str | None:
    """Why the native games cannot be built here, or None if they can."""
    try:
        pyspiel = _pyspiel()
    except XenophonError as error:
        return str(error)
    if not WRAPPER_SOURCE.exists() or not list(ENGINE_DIR.glob("*/*.c")):
        return (
            f"the OpenSpiel wrapper sources ({WRAPPER_SOURCE.name}, engine_c/*/*.c) are "
            "missing from this install of xenophon"
        )
    if not (Path(pyspiel.__file__).parent / "open_spiel" / "spiel.h").exists():
        return "this OpenSpiel install ships no C++ headers (open_spiel/spiel.h)"
    missing = [name for name in _compilers() if shutil.which(name) is None]
    if missing:
        return f"no compiler {' or '.join(missing)} on PATH (set CC / CXX)"
    return None


def _cache_dir() -> Path:
    base = (
        os.environ.get("XENOPHON_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "xenophon"
    )
    return Path(base)


def build_library() -> Path:
    """The compiled wrapper, built unless the cache already holds this version."""
    reason = unavailable_reason()
    if reason:
        raise XenophonError(f"cannot build the native OpenSpiel games: {reason}")
    pyspiel = _pyspiel()
    cc, cxx = _compilers()
    site = Path(pyspiel.__file__).parent
    c_sources = sorted(ENGINE_DIR.glob("*/*.c"))  # each game's core in its folder
    # the shared part, then each game's OpenSpiel game in its own folder
    cxx_sources = [WRAPPER_SOURCE, *sorted(ENGINE_DIR.glob("*/openspiel.cc"))]
    digest = hashlib.sha256()
    headers = [*sorted(ENGINE_DIR.glob("**/*.h")), *sorted(WRAPPER_DIR.glob("*.hpp"))]
    for path in [*cxx_sources, *c_sources, *headers]:
        digest.update(path.read_bytes())
    digest.update(str(site).encode())
    for compiler in (cc, cxx):
        digest.update(subprocess.run([compiler, "--version"], capture_output=True).stdout)
    target = _cache_dir() / f"xenophon_spiel-{digest.hexdigest()[:16]}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        objects = [Path(work, f"{path.parent.name}-{path.stem}.o") for path in c_sources]
        cxx_objects = [Path(work, f"{path.parent.name}-{path.stem}.o") for path in cxx_sources]
        # the core's symbols stay inside the library (hidden), away from xenophon._core's
        commands = [
            [
                cc,
                "-O3",
                "-std=c11",
                "-fPIC",
                "-fvisibility=hidden",
                "-c",
                str(path),
                "-I",
                str(ENGINE_DIR),
                "-o",
                str(obj),
            ]
            for path, obj in zip(c_sources, objects)
        ]
        commands += [
            [
                cxx,
                "-O3",
                "-std=c++20",
                "-fPIC",
                "-c",
                str(path),
                "-I",
                str(site),
                "-I",
                str(site / "open_spiel" / "abseil-cpp"),
                "-I",
                str(site / "open_spiel" / "json" / "include"),
                "-I",
                str(ENGINE_DIR),
                "-I",
                str(WRAPPER_DIR),
                "-o",
                str(obj),
            ]
            for path, obj in zip(cxx_sources, cxx_objects)
        ]
        _run(commands)
        linked = Path(work, target.name)
        _run([[cxx, "-shared", "-o", str(linked), *map(str, objects + cxx_objects)]])
        os.replace(linked, target)
    return target


def _run(commands: list[list[str]]) -> None:
    """Runs the commands in parallel; XenophonError with the first failure's last line."""
    jobs = [
        (
            command,
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        )
        for command in commands
    ]
    for command, job in jobs:
        output = job.communicate()[0].strip()
        if job.returncode:
            lines = output.splitlines() or ["no output"]
            first = next((line for line in lines if "error" in line), lines[-1])
            raise XenophonError(
                f"building the native OpenSpiel games failed: {Path(command[0]).name} said: {first}"
            )


def load() -> ctypes.CDLL:
    """Builds (if needed) and loads the wrapper: registers the native games
    (GAME_NAMES) with pyspiel. Idempotent."""
    global _library
    if _library is None:
        path = build_library()
        pyspiel = _pyspiel()
        # the wrapper links against pyspiel's symbols: put them in the global scope
        ctypes.CDLL(pyspiel.__file__, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL | os.RTLD_NOW)
        library = ctypes.CDLL(str(path), mode=os.RTLD_GLOBAL | os.RTLD_NOW)
        library.xenophon_spiel_state_size.restype = ctypes.c_size_t
        library.xenophon_spiel_state_size.argtypes = [ctypes.c_char_p]
        library.xenophon_spiel_clones.restype = ctypes.c_longlong
        _library = library
    return _library


def clones() -> int:
    """States cloned so far by the native games (OpenSpiel's ISMCTS with one
    random rollout clones once per tree node it creates)."""
    return load().xenophon_spiel_clones()


def _capsule_pointer(capsule: Any, name: bytes) -> int:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, name)


class NativeGame:
    """The native OpenSpiel game over a xenophon Game (C engine); `spiel` is
    the pyspiel game, `state(xstate)` the OpenSpiel state of a position."""

    def __init__(self, game: Game):
        library = load()
        if game.engine != "c":
            raise XenophonError("the native OpenSpiel games run on the C engine")
        self.xgame = game
        self._tables = game.tables.capsule()  # keeps the tables alive
        initial = game.new_initial_state().to_bytes()
        spiel_name = GAME_NAMES[game.name]
        if library.xenophon_spiel_state_size(spiel_name.encode()) != len(initial):
            raise XenophonError("the native OpenSpiel library was built from other sources")
        address = _capsule_pointer(self._tables, b"xenophon.tables")
        self.spiel = _pyspiel().load_game(spiel_name, {"tables": f"{address:#x}"})
        if self.spiel.new_initial_state().serialize() != initial.hex():
            raise XenophonError("the native OpenSpiel library was built from other sources")

    def state(self, state: State) -> Any:
        """The OpenSpiel state at this position (same bytes; empty history)."""
        return self.spiel.deserialize_state(state.to_bytes().hex())


class OpenSpielISMCTSBot(Bot):
    """OpenSpiel's C++ ISMCTSBot on the native game: one random rollout to the
    end per leaf, the most visited move, `iterations` simulations or
    `time_limit` seconds a move (OpenSpiel's max_wall_clock_time)."""

    def __init__(
        self,
        iterations: int | None = 1000,
        time_limit: float | None = None,
        c_uct: float = DEFAULT_C_UCT,
        seed: int = 0,
    ):
        if not iterations and not time_limit:
            raise XenophonError("a search needs an iteration budget or a time budget")
        load()  # fail now (and build before worker processes fork)
        seed = seed % 2**31
        self.iterations = iterations or 0
        self.time_limit = time_limit or 0.0
        self._search = self._ismcts(seed, c_uct, self.iterations or 1, self.time_limit or -1.0)
        # OpenSpiel's search fails when its time runs out after one simulation (the
        # root then has no visits): that move then comes from two simulations
        self._fallback = self._ismcts(seed, c_uct, 2, -1.0) if self.time_limit else None
        self._games: weakref.WeakKeyDictionary[Game, NativeGame] = weakref.WeakKeyDictionary()
        budget = f"{self.time_limit:g}s" if self.time_limit else f"{self.iterations}it"
        self.name = f"openspiel-ismcts({budget})"

    @staticmethod
    def _ismcts(seed: int, c_uct: float, iterations: int, seconds: float) -> Any:
        pyspiel = _pyspiel()
        return pyspiel.ISMCTSBot(
            seed,
            pyspiel.RandomRolloutEvaluator(1, seed),
            c_uct,
            iterations,
            -1,
            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            False,
            seconds,
        )

    def native(self, game: Game) -> NativeGame:
        if game not in self._games:
            self._games[game] = NativeGame(game)
        return self._games[game]

    def spiel_state(self, state: State) -> Any:
        """The OpenSpiel state of a position (of the native game of its Game)."""
        return self.native(state.game).state(state)

    def step(self, spiel_state: Any) -> int:
        """One search from an OpenSpiel state; the action code chosen."""
        try:
            return int(self._search.step(spiel_state))
        except _pyspiel().SpielError:
            if self._fallback is None:
                raise
            return int(self._fallback.step(spiel_state))

    def choose(self, state: State) -> Move:
        return state.move(self.step(self.spiel_state(state)))
