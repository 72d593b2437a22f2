"""The AI's levels: a search budget and a human-like weakening, each with its
strength measured on the project's own Elo ladder (docs/play.md "Levels").

A weaker level does not blunder at random: it searches with a small budget
and then chooses among its few best root moves by their values, a softmax
over the win probabilities with the level's temperature (a move 5% worse is
chosen e^-1 as often as the best at temperature 0.05). Temperature 0 plays
the most visited move.

The Elo of each level is read from ``data/levels.json``, written by
``bench/levels.py`` from paired matches of neighbouring levels; the lowest
measured level is the ladder's anchor.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.errors import XenophonError, shown
from xenophon.search.bots import MAX_WORKERS, ISMCTSBot, SearchResult, SettingError, check_setting

#: the moves a weakened level chooses among: the most visited ones, and only
#: those visited often enough for their value to mean something
CANDIDATES = 5
#: an explicit budget: iterations, or seconds and an s, in ASCII digits
BUDGET = re.compile(r"[0-9]+|([0-9]+\.?[0-9]*|\.[0-9]+)s")
LEAST_VISIT_SHARE = 0.05


@dataclass(frozen=True)
class Level:
    """One level: its search budget and its softmax temperature."""

    name: str
    iterations: int | None
    seconds: float | None
    temperature: float

    def budget_text(self) -> str:
        budget = f"{self.iterations:,} iterations" if self.iterations else f"{self.seconds:g} s"
        weak = f", softmax temperature {self.temperature:g}" if self.temperature else ""
        return budget + " a decision" + weak


#: weakest first; the iteration levels are the measured ladder, the timed ones
#: search longer than its top (their strength depends on the machine)
LADDER = (
    Level("beginner", 30, None, 0.15),
    Level("easy", 200, None, 0.06),
    Level("casual", 1000, None, 0.02),
    Level("normal", 3000, None, 0.0),
    Level("strong", 12000, None, 0.0),
    Level("hard", None, 3.0, 0.0),
    Level("max", None, 10.0, 0.0),
)
LEVELS = {level.name: level for level in LADDER}
MEASURED = tuple(level for level in LADDER if level.iterations)
ANCHOR_ELO = 1000  # the Elo given to the weakest measured level


def ladder_elos(game_name: str) -> dict[str, float]:
    """The measured Elo of each iteration level in `game_name` (empty when
    no measurement is shipped)."""
    path = packaged_data("levels.json")
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {name: float(elo) for name, elo in data.get("elo", {}).get(game_name, {}).items()}


def level_for_elo(game_name: str, elo: float) -> tuple[str, float]:
    """The measured level of `game_name` nearest to `elo`, and its Elo."""
    elos = ladder_elos(game_name)
    if not elos:
        raise XenophonError(f"no Elo ladder is measured for {game_name}")
    name = min(elos, key=lambda n: (abs(elos[n] - elo), elos[n]))
    return name, elos[name]


def softmax_choice(result: SearchResult, temperature: float, rng: random.Random) -> Any:
    """A root move of `result`: the most visited at temperature 0, else one
    of the best few drawn with weights exp((p - p_best) / temperature)."""
    if temperature <= 0 or len(result.moves) == 1 or result.best.visits == 0:
        return result.best.move
    least = max(1, result.best.visits * LEAST_VISIT_SHARE)
    candidates = [m for m in result.moves[:CANDIDATES] if m.visits >= least]
    top = max(m.win_probability for m in candidates)
    weights = [math.exp((m.win_probability - top) / temperature) for m in candidates]
    return rng.choices([m.move for m in candidates], weights=weights)[0]


class LevelBot:
    """The ISMCTS bot of a level: searches as ISMCTSBot and chooses with the
    level's softmax (the same interface: analyse, choose_from, choose, reseed)."""

    def __init__(self, level: Level, seed: int = 0, workers: int = 1):
        self.level = level
        self.search = ISMCTSBot(
            iterations=level.iterations, time_limit=level.seconds, workers=workers, seed=seed
        )
        self.rng = random.Random(seed)
        self.name = f"level:{level.name}"

    @property
    def workers(self) -> int:
        return self.search.workers

    def reseed(self, seed: int) -> None:
        self.search.reseed(seed)
        self.rng = random.Random(seed ^ 0x5EED)

    def analyse(
        self,
        state: Any,
        on_progress: Callable[[SearchResult], None] | None = None,
        every: float = 0.5,
    ) -> SearchResult:
        if on_progress is None:
            return self.search.analyse(state)
        return self.search.analyse(state, on_progress=on_progress, every=every)

    def choose_from(self, result: SearchResult) -> Any:
        return softmax_choice(result, self.level.temperature, self.rng)

    def choose(self, state: Any) -> Any:
        return self.choose_from(self.analyse(state))

    def __repr__(self) -> str:
        return self.name


class LevelError(XenophonError):
    """A level that names no level, budget or measured Elo the AI can play."""


def level_budget(level: str) -> tuple[int | None, float | None]:
    """(iterations, seconds) of an explicit budget ('2s', '5000'), within
    the search's caps."""
    timed = level.endswith("s")
    try:
        if not BUDGET.fullmatch(level):  # int() and float() take '1_000', ' 5', '٣'
            raise ValueError(level)
        value: float = float(level[:-1]) if timed else int(level)
    except ValueError:
        raise LevelError(
            f"unknown level '{shown(level)}' ({', '.join(LEVELS)}, a time like 2s or "
            "an iteration count like 5000)"
        ) from None
    try:
        if timed:
            return None, check_setting("time_limit", value, f"the time of level '{shown(level)}'")
        return check_setting("iterations", value, f"the iterations of level '{shown(level)}'"), None
    except SettingError as error:
        raise LevelError(str(error)) from None


def bot_for_level(level: str, seed: int, workers: int = 1):
    """The bot of a level name (xenophon.play.levels), or the plain ISMCTS of an
    explicit budget ('2s', '5000')."""
    try:
        check_setting("workers", workers, "--workers")
    except SettingError as error:
        raise LevelError(str(error)) from None
    if level == "max":
        workers = min(MAX_WORKERS, max(workers, os.cpu_count() or 1))
    if level in LEVELS:
        return LevelBot(LEVELS[level], seed, workers)
    iterations, seconds = level_budget(level)
    return ISMCTSBot(iterations=iterations, time_limit=seconds, workers=workers, seed=seed)


def level_description(level: str, game_name: str) -> str:
    """'normal (Elo 1420 on the GAME ladder; 3,000 iterations a decision)'."""
    if level not in LEVELS:
        return level
    elo = ladder_elos(game_name).get(level)
    rating = f"Elo {elo:.0f} on the {game_name} ladder; " if elo is not None else ""
    return f"{level} ({rating}{LEVELS[level].budget_text()})"


def level_from_elo(game_name: str, elo: int) -> str:
    """The measured level nearest to Elo `elo` (LevelError when none is measured)."""
    try:
        return level_for_elo(game_name, elo)[0]
    except XenophonError as error:
        raise LevelError(str(error)) from None
