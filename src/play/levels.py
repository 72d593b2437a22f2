"""The AI's levels: a search budget and a human-like weakening, each with its
strength on the project's own Elo ladder (docs/play.md "Levels").

A weaker level does not blunder at random: it searches with a small budget
and then chooses among its few best root moves by their values, a softmax
over the win probabilities with the level's temperature (a move 5% worse is
chosen e^-1 as often as the best at temperature 0.05). Temperature 0 plays
the most visited move.

Every level's budget is a number of iterations, so that its strength does
not depend on the machine or its load; the top levels' budgets are sized
per game (``data/levels.json`` "iterations") to about 1, 3 and 10 seconds on
a 2-core machine, and a time cap (three times that) ends a search on a
machine much slower. The Elo of each level is read from ``data/levels.json``:
measured by ``bench/levels.py`` from paired matches of neighbouring levels
(the lowest level is the ladder's anchor), or, where such a match costs more
hours than were spent, estimated and marked so ("estimated").
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
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
    """One level: its search budget (iterations, for a game without its own
    budget in data/levels.json; seconds: the time cap) and its softmax
    temperature."""

    name: str
    iterations: int
    seconds: float | None
    temperature: float
    all_cores: bool = False

    def iterations_in(self, game_name: str) -> int:
        """The level's iterations a decision in `game_name`."""
        return (
            _ladder_data().get("iterations", {}).get(game_name, {}).get(self.name, self.iterations)
        )

    def budget_text(self, game_name: str) -> str:
        budget = f"{self.iterations_in(game_name):,} iterations"
        cores = " on all cores" if self.all_cores else ""
        cap = f", at most {self.seconds:g} s" if self.seconds else ""
        weak = f", softmax temperature {self.temperature:g}" if self.temperature else ""
        return budget + " a decision" + cores + cap + weak


#: weakest first; the top three think about 1, 3 and 10 s on a 2-core
#: machine (their iterations per game in data/levels.json; "max" on all cores)
LADDER = (
    Level("beginner", 30, None, 0.15),
    Level("easy", 200, None, 0.06),
    Level("casual", 1000, None, 0.02),
    Level("normal", 3000, None, 0.0),
    Level("strong", 200_000, 3.0, 0.0),
    Level("expert", 600_000, 9.0, 0.0),
    Level("max", 3_500_000, 30.0, 0.0, all_cores=True),
)
LEVELS = {level.name: level for level in LADDER}
#: former names still accepted (saved games and scripts name them): the level
#: each means now
ALIASES = {"hard": "expert"}
ANCHOR_ELO = 1000  # the Elo given to the weakest level


@cache
def _ladder_data() -> dict[str, Any]:
    """data/levels.json (read once; not to be changed by its readers)."""
    path = packaged_data("levels.json")
    return json.loads(path.read_text()) if path.exists() else {}


def level_named(name: str) -> Level | None:
    """The level `name` or a former name of it means (None: no level)."""
    return LEVELS.get(ALIASES.get(name, name))


def ladder_elos(game_name: str) -> dict[str, float]:
    """The Elo of each level in `game_name`, measured or estimated (empty
    when no ladder is shipped); `estimated_levels` says which are estimates."""
    data = _ladder_data()
    elos = dict(data.get("estimated", {}).get(game_name, {}))
    elos.update(data.get("elo", {}).get(game_name, {}))
    return {name: float(elo) for name, elo in elos.items()}


def step_intervals(game_name: str) -> dict[str, tuple[float, float]]:
    """Each measured level's step over the level below it, as its 95%
    interval in Elo (paired deals), by level."""
    steps = _ladder_data().get("steps", {}).get(game_name, {})
    return {name: (float(low), float(high)) for name, (low, high) in steps.items()}


def estimated_levels(game_name: str) -> set[str]:
    """The levels of `game_name` whose Elo is an estimate, not a match's."""
    data = _ladder_data()
    measured = data.get("elo", {}).get(game_name, {})
    return set(data.get("estimated", {}).get(game_name, {})) - set(measured)


def level_for_elo(game_name: str, elo: float) -> tuple[str, float]:
    """The level of `game_name` nearest to `elo` on its ladder, and its Elo."""
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
    """The ISMCTS bot of a level: searches as ISMCTSBot, with the level's
    budget for the game of the position, and chooses with the level's
    softmax (the same interface: analyse, choose_from, choose, reseed)."""

    def __init__(self, level: Level, seed: int = 0, workers: int = 1):
        self.level = level
        self.seed = seed
        # the budget of a game without its own: made now, so that bad workers fail at once
        self.search = self._search(level.iterations, workers)
        self.searches: dict[str, ISMCTSBot] = {}
        self.rng = random.Random(seed)
        self.name = f"level:{level.name}"

    def _search(self, iterations: int, workers: int) -> ISMCTSBot:
        return ISMCTSBot(
            iterations=iterations, time_limit=self.level.seconds, workers=workers, seed=self.seed
        )

    def search_for(self, game_name: str) -> ISMCTSBot:
        """The search of the level's budget in `game_name`."""
        if game_name not in self.searches:
            iterations = self.level.iterations_in(game_name)
            self.searches[game_name] = (
                self.search
                if iterations == self.level.iterations
                else self._search(iterations, self.search.workers)
            )
        return self.searches[game_name]

    @property
    def workers(self) -> int:
        return self.search.workers

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self.search.reseed(seed)
        for search in self.searches.values():
            search.reseed(seed)
        self.rng = random.Random(seed ^ 0x5EED)

    def analyse(
        self,
        state: Any,
        on_progress: Callable[[SearchResult], None] | None = None,
        every: float = 0.5,
    ) -> SearchResult:
        search = self.search_for(state.game.name)
        if on_progress is None:
            return search.analyse(state)
        return search.analyse(state, on_progress=on_progress, every=every)

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
            f"unknown level '{shown(level)}' ({', '.join(LEVELS)}, weakest first; "
            "a time like 2s or an iteration count like 5000)"
        ) from None
    try:
        if timed:
            return None, check_setting("time_limit", value, f"the time of level '{shown(level)}'")
        return check_setting("iterations", value, f"the iterations of level '{shown(level)}'"), None
    except SettingError as error:
        raise LevelError(str(error)) from None


def bot_for_level(level: str, seed: int, workers: int = 1):
    """The bot of a level name (or a former name, ALIASES), or the plain
    ISMCTS of an explicit budget ('2s', '5000')."""
    try:
        check_setting("workers", workers, "--workers")
    except SettingError as error:
        raise LevelError(str(error)) from None
    named = level_named(level)
    if named is not None:
        if named.all_cores:
            workers = min(MAX_WORKERS, max(workers, os.cpu_count() or 1))
        return LevelBot(named, seed, workers)
    iterations, seconds = level_budget(level)
    return ISMCTSBot(iterations=iterations, time_limit=seconds, workers=workers, seed=seed)


def level_description(level: str, game_name: str) -> str:
    """'normal (Elo 1725 on the GAME ladder; 3,000 iterations a decision)';
    a former name says the level's name now, an estimated Elo says so."""
    named = level_named(level)
    if named is None:
        return level
    elo = ladder_elos(game_name).get(named.name)
    estimate = ", estimated" if named.name in estimated_levels(game_name) else ""
    rating = f"Elo {elo:.0f} on the {game_name} ladder{estimate}; " if elo is not None else ""
    former = f", the level called '{level}' before" if named.name != level else ""
    return f"{named.name}{former} ({rating}{named.budget_text(game_name)})"


def level_from_elo(game_name: str, elo: int) -> str:
    """The level nearest to Elo `elo` (LevelError when no ladder is shipped)."""
    try:
        return level_for_elo(game_name, elo)[0]
    except XenophonError as error:
        raise LevelError(str(error)) from None
