"""The settings of a search: one frozen `SearchSettings`, built and checked
once, that the bots keep and hand down whole to each `Worker`.

Every setting a bot spec may give has its range here (`SETTINGS`, a
`Setting` each: the one owner of every budget cap), and the tree's options
their named presets (`PRESETS`). A `SearchSettings` is valid by
construction: making one checks each setting, fills the tree options left
out from its preset, and checks the settings that must fit together.

>>> SearchSettings(iterations=500, root_policy="halving").c_uct
0.4
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from functools import lru_cache
from typing import Any

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.evaluation import EVALUATIONS, cutoff_turns_for
from xenophon.kernel.plugin import find_plugin
from xenophon.search import world_sampling
from xenophon.search.ismcts import MIN_TREE_BYTES, Worker

DEFAULT_MEMORY_MB = 256
#: the evaluation a search scores its cut-off playouts with unless told:
#: each game's own default (GamePlugin.default_evaluation, xenophon.kernel.plugin)
DEFAULT_EVALUATION = "default"

# -- the ranges of the settings: the one owner of every budget cap ------------
MAX_ITERATIONS = 50_000_000  # iterations of one search (hours at the slowest speeds)
MAX_SECONDS = 3600.0  # seconds of one search
MAX_WORKERS = 64  # search threads
# how several workers share a search: a tree each, their root statistics
# summed ("root"), or one tree grown by all, with virtual loss ("shared")
PARALLEL_MODES = ("root", "shared")
MAX_MEMORY_MB = 16_384  # the tree memory cap of one search
MAX_WORLDS = 1024  # PIMC's sampled worlds
MAX_TOP = 1000  # moves a result lists (a position has far fewer)
MAX_CUTOFF_TURNS = 10_000  # playout turns before the evaluation (-1: to the end)
MAX_PLAYOUT_ACTIONS = 10_000_000  # actions of one playout
MAX_C_UCT = 100.0  # exploration constant (returns are in [-1, 1])
MAX_TEMPERATURE = 100.0  # beyond it the choice is as good as uniform
MAX_GREEDY_BRANCHES = 65_536  # chance leaves GreedyBot expands exhaustively
MAX_GREEDY_SAMPLES = 1024  # chance samples GreedyBot draws beyond that
MAX_PRIOR_WEIGHT = 100.0  # progressive bias weight (values are in [-1, 1])
#: root_policy=auto: sequential halving from these budgets on, UCB1 below
#: them (docs/search.md, "The root by budget"); a time budget counts by its
#: seconds, a search with both budgets by whichever ends it first
HALVING_FROM_ITERATIONS = 10_000
HALVING_FROM_SECONDS = 1.0
#: the root policies a setting may name: the search's own, and `auto`
ROOT_POLICY_CHOICES = (*Worker.ROOT_POLICIES, "auto")
#: where a node's priors (prior_weight) come from: the playout policy's
#: draws, or the network's policy head (with evaluation net; ISMCTS only)
PRIOR_SOURCES = tuple(Worker.PRIOR_SOURCES)

# -- the tree's options and their named presets -------------------------------
#: the search options a preset fixes; a bot given one of them explicitly
#: overrides its preset's value
TREE_OPTIONS = (
    "c_uct",
    "cutoff_turns",
    "value_scaling",
    "transpositions",
    "prior_weight",
    "root_policy",
    "opponent_nodes",
    "ties",
    "chance",
)
#: how the move to play is chosen among root moves equal in visits and value:
#: the first in code order (which puts `end` first), or one at random
TIE_RULES = ("first", "random")
#: the root moves the game names futile (GamePlugin.futile_moves: AP or a
#: card spent for nothing): searched as any other ("search"), or left out of the
#: root unless every legal move is one ("skip")
FUTILE_RULES = ("search", "skip")
#: `v1` is the search as it was before the tree options (issue 11): UCB1 on
#: raw returns at every node the root included, each edge with its own
#: statistics, no priors; a cut-off of None is the game's and its
#: evaluation's own (GamePlugin.cutoff_turns)
PRESETS: dict[str, dict[str, Any]] = {
    "v1": {
        "c_uct": 0.4,
        "cutoff_turns": None,
        "value_scaling": "none",
        "transpositions": False,
        "prior_weight": 0.0,
        "root_policy": "uct",
        "opponent_nodes": "own",
        "ties": "first",
        "chance": "sampled",
    },
}
#: `v2` is v1 drawing the move to play among root moves equal in visits and
#: value (docs/search.md, "The final move among equals"), the default
PRESETS["v2"] = {**PRESETS["v1"], "ties": "random"}
#: the tree options the default preset leaves to each game: the game's own
#: (GamePlugin.tree_defaults, a rule that won that game's match), else v2's
GAME_TREE_OPTIONS = ("root_policy", "opponent_nodes")
#: `v3` is v2 with each game's own root policy and opponent nodes
#: (docs/search.md, "The root by budget"), the default
#: the preset whose values fill the options a game does not name
GAME_FALLBACK_PRESET = "v2"
PRESETS["v3"] = {**PRESETS[GAME_FALLBACK_PRESET], **dict.fromkeys(GAME_TREE_OPTIONS)}
DEFAULT_PRESET = "v3"
#: the tree options a shared tree (`parallel` shared) cannot take
NOT_IN_A_SHARED_TREE = {"root_policy": "halving", "opponent_nodes": "fused"}


class SettingError(XenophonError, ValueError):
    """A bot setting of the wrong type or out of its range; the message names it."""


@dataclass(frozen=True)
class Setting:
    """The type (int, float or bool) and range a bot setting must have."""

    kind: type
    least: float | None = None
    most: float | None = None
    above: bool = False  # `least` itself is out of range
    none_allowed: bool = False  # None leaves it out (a budget not given, a random seed)
    choices: tuple[str, ...] = ()  # a text setting: the texts it may be (any, if empty)

    def describe(self) -> str:
        """'a whole number from 1 to 64', 'a number above 0 and at most 3,600', ..."""
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            return f"one of {', '.join(self.choices)}" if self.choices else "a text"
        noun = "a whole number" if self.kind is int else "a number"
        if self.least is None:
            return noun
        if self.above or self.kind is float:
            low = f"above {self.least:,g}" if self.above else f"at least {self.least:,g}"
            return f"{noun} {low}" + (
                f" and at most {self.most:,g}" if self.most is not None else ""
            )
        if self.most is None:
            return f"{noun} of at least {self.least:,}"
        return f"{noun} from {self.least:,} to {self.most:,}"

    def _in_range(self, value: float) -> bool:
        if self.kind is float and not math.isfinite(value):
            return False
        if self.least is not None and (value <= self.least if self.above else value < self.least):
            return False
        return self.most is None or value <= self.most

    def check(self, label: str, value: Any) -> Any:
        """`value` if it fits (an int widened to a float for a float setting),
        else SettingError: "<label> must be <describe()> (got <value>)"."""
        if value is None and self.none_allowed:
            return None
        if self.kind is bool:
            fits = isinstance(value, bool)
        elif self.kind is str:
            fits = (
                isinstance(value, str)
                and value != ""
                and (not self.choices or value in self.choices)
            )
        elif self.kind is int:
            fits = isinstance(value, int) and not isinstance(value, bool) and self._in_range(value)
        else:
            fits = (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and self._in_range(value)
            )
        if not fits:
            given = (
                f"{value:,}"
                if isinstance(value, int) and not isinstance(value, bool)
                else repr(value)
            )
            raise SettingError(f"{label} must be {self.describe()} (got {shown(given)})")
        return float(value) if self.kind is float else value

    def parse(self, label: str, text: str) -> Any:
        """A setting written as text (in a bot spec): converted, then checked."""
        text = text.strip()
        value: Any = text
        if self.kind is bool:
            value = {"true": True, "1": True, "false": False, "0": False}.get(text.lower(), text)
        elif self.kind is not str:
            for kind in (int,) if self.kind is int else (int, float):
                try:
                    value = kind(text)
                    break
                except ValueError:
                    pass
        return self.check(label, value)


SETTINGS: dict[str, Setting] = {
    "iterations": Setting(int, 1, MAX_ITERATIONS, none_allowed=True),
    "time_limit": Setting(float, 0, MAX_SECONDS, above=True, none_allowed=True),
    "workers": Setting(int, 1, MAX_WORKERS),
    "parallel": Setting(str, choices=PARALLEL_MODES),
    "seed": Setting(int, none_allowed=True),
    "c_uct": Setting(float, 0, MAX_C_UCT),
    "cutoff_turns": Setting(int, -1, MAX_CUTOFF_TURNS, none_allowed=True),
    "memory_mb": Setting(float, 0, MAX_MEMORY_MB, above=True),
    "temperature": Setting(float, 0, MAX_TEMPERATURE),
    "max_playout_actions": Setting(int, 1, MAX_PLAYOUT_ACTIONS),
    "uniform_playouts": Setting(bool),
    "root_solver": Setting(bool),
    "solver": Setting(bool),
    "evaluation": Setting(str, choices=EVALUATIONS),
    "weights": Setting(str, none_allowed=True),
    "worlds": Setting(int, 1, MAX_WORLDS),
    "max_branches": Setting(int, 1, MAX_GREEDY_BRANCHES),
    "samples": Setting(int, 1, MAX_GREEDY_SAMPLES),
    # the tree's options (TREE_OPTIONS, with c_uct and cutoff_turns above)
    "preset": Setting(str, choices=tuple(PRESETS)),
    "value_scaling": Setting(str, choices=tuple(Worker.VALUE_SCALINGS)),
    "transpositions": Setting(bool),
    "prior_weight": Setting(float, 0, MAX_PRIOR_WEIGHT),
    "priors": Setting(str, choices=PRIOR_SOURCES),
    "root_policy": Setting(str, choices=ROOT_POLICY_CHOICES, none_allowed=True),
    "chance": Setting(str, choices=tuple(Worker.CHANCE_RULES)),
    "opponent_nodes": Setting(str, choices=tuple(Worker.OPPONENT_NODES), none_allowed=True),
    "ties": Setting(str, choices=TIE_RULES),
    "futile_moves": Setting(str, choices=FUTILE_RULES),
    # where the worlds a search samples come from (xenophon.search.world_sampling)
    "sampler": Setting(str, choices=world_sampling.SAMPLERS),
    "likelihood": Setting(str, choices=world_sampling.LIKELIHOODS),
    "particles": Setting(int, 1, world_sampling.MAX_PARTICLES),
}


def check_setting(name: str, value: Any, label: str | None = None) -> Any:
    """`value` checked against the range of setting `name` (SettingError
    naming `label`, by default the setting's name, otherwise)."""
    return SETTINGS[name].check(label or f"'{name}'", value)


def check_settings(**values: Any) -> None:
    """Checks each setting given by name (the one check every bot uses)."""
    for name, value in values.items():
        check_setting(name, value)


def memory_bytes_of(memory_mb: float) -> int:
    return int(memory_mb * 1024 * 1024)


def check_tree_memory(memory_bytes: int, trees: int) -> None:
    """Each of the `trees` trees a search grows gets memory_bytes // trees."""
    share = memory_bytes // trees
    if share < MIN_TREE_BYTES:
        raise SettingError(
            f"'memory_mb' is too small for {trees} trees: {share:,} bytes "
            f"each, and a tree needs at least {MIN_TREE_BYTES:,}"
        )


@dataclass(frozen=True)
class SearchSettings:
    """Every setting of a search, each with its default. The tree options
    (TREE_OPTIONS) left at None take their preset's value, except a cut-off
    whose preset value is None: it then follows the game and its evaluation
    (`cutoff_for`). Making one checks it whole (SettingError)."""

    # the budget, and how many workers share it and how
    iterations: int | None = 2000
    time_limit: float | None = None
    workers: int = 1
    parallel: str = "root"
    memory_mb: float = DEFAULT_MEMORY_MB
    # the tree (TREE_OPTIONS: None is the preset's value)
    preset: str = DEFAULT_PRESET
    c_uct: float | None = None
    # playout turns before the evaluation (None: the game's and the
    # evaluation's own, GamePlugin.cutoff_turns)
    cutoff_turns: int | None = None
    # selection on values scaled to each node's range; edges that take the
    # value of the node they lead to; the playout policy as a prior
    value_scaling: str | None = None
    transpositions: bool | None = None
    prior_weight: float | None = None
    # where those priors come from: the playout policy's draws ("playout"),
    # or the softmax of the network's policy head over a node's moves ("net",
    # with evaluation net; ISMCTS only; docs/search.md, "Settings")
    priors: str = "playout"
    # how the root shares its iterations: UCB1 as every node ("uct"),
    # sequential halving ("halving", which chooses by value, not visits),
    # UCB1 after each root move's forced visits ("forced"), or by the budget:
    # halving from HALVING_FROM_ITERATIONS (or _SECONDS) on, else UCB1
    # ("auto"); None after the preset: the game's own (`for_game`)
    root_policy: str | None = None
    # whose information set keys the other player's nodes: their own
    # ("own", split by the hand of each sampled world) or the searcher's
    # ("searcher": one node for the hands the searcher cannot tell apart);
    # None after the preset: the game's own (`for_game`)
    opponent_nodes: str | None = None
    # the move played among root moves equal in visits and value: with
    # "first" the lowest code, `end`, so a won position whose every move
    # wins every playout ends its turns forever; "random" draws one
    ties: str | None = None
    # the chance outcomes of a descent: drawn independently ("sampled"), or
    # stratified along the visits of the tree action before them ("stratified")
    chance: str | None = None
    # proven results in the tree: an action that ends the game at once is a
    # proven win or loss, a proven win at the root ends the search (ISMCTS
    # only; docs/search.md, "Proven results in the tree")
    solver: bool = False
    # before the search, the exact solver over the rest of the turn: a move
    # it proves best in every world is played without searching
    # (docs/search.md, "The solver at the root")
    root_solver: bool = False
    # the root moves the game names futile (never better than a move still
    # searched, by the rules: GamePlugin.futile_moves): left out of the root
    # unless every legal move is one ("skip", issue 64), or searched as any
    # other (ISMCTS only; docs/search.md, "Futile moves")
    futile_moves: str = "skip"
    # the move played: the most visited, or with a temperature a weighted draw
    temperature: float = 0.0
    # the playouts: their length, uniformly random actions instead of the
    # game's policy (to compare with searches that use random rollouts), and
    # what scores them when cut off: the hand-set evaluation or the learned
    # one (the game's shipped weights, or a weights file's)
    max_playout_actions: int = 2000
    uniform_playouts: bool = False
    evaluation: str = DEFAULT_EVALUATION
    weights: str | None = None
    # where the worlds of each iteration come from (ISMCTS): the game's
    # uniform resample, or opponent-move inference (xenophon.search.world_sampling)
    sampler: str = world_sampling.DEFAULT_SAMPLER
    likelihood: str = world_sampling.DEFAULT_LIKELIHOOD
    particles: int = world_sampling.DEFAULT_PARTICLES
    # the worlds PIMC samples, a tree each
    worlds: int = 8

    def __post_init__(self) -> None:
        # the order of the checks is the order a bot has always reported
        # its first wrong setting in
        check_settings(
            sampler=self.sampler,
            likelihood=self.likelihood,
            particles=self.particles,
            worlds=self.worlds,
            preset=self.preset,
        )
        for name in TREE_OPTIONS:
            if getattr(self, name) is None:
                object.__setattr__(self, name, PRESETS[self.preset][name])
        check_settings(
            iterations=self.iterations,
            time_limit=self.time_limit,
            workers=self.workers,
            parallel=self.parallel,
            memory_mb=self.memory_mb,
            temperature=self.temperature,
            max_playout_actions=self.max_playout_actions,
            uniform_playouts=self.uniform_playouts,
            root_solver=self.root_solver,
            solver=self.solver,
            futile_moves=self.futile_moves,
            priors=self.priors,
            evaluation=self.evaluation,
            weights=self.weights,
            **{name: getattr(self, name) for name in TREE_OPTIONS},
        )
        self._check_together()

    def _check_together(self) -> None:
        """The settings that must fit together."""
        if self.weights is not None and self.evaluation not in ("learned", "net"):
            raise SettingError("'weights' (a weights file) goes with evaluation 'learned' or 'net'")
        if self.priors == "net" and self.evaluation != "net":
            raise SettingError(
                "'priors' net (the network's policy head) goes with evaluation 'net'"
            )
        if self.priors == "net" and not self.prior_weight:
            raise SettingError("'priors' net needs a 'prior_weight' above 0 to be used")
        if self.iterations is None and self.time_limit is None:
            raise SettingError("a search needs an iteration budget, a time budget, or both")
        if self.parallel == "shared" and any(
            getattr(self, name) == value for name, value in NOT_IN_A_SHARED_TREE.items()
        ):
            refused = " nor ".join(f"{k} {v}" for k, v in NOT_IN_A_SHARED_TREE.items())
            raise SettingError(f"'parallel' shared takes neither {refused}")
        check_tree_memory(self.memory_bytes, 1 if self.parallel == "shared" else self.workers)

    def for_game(self, game: Any, own: bool = True) -> SearchSettings:
        """These settings for a search of `game`: the tree options they leave
        to the game (the default preset's) are the game's own, or with
        `own` False (a baseline that must stay as it was measured) v2's."""
        if all(getattr(self, name) is not None for name in GAME_TREE_OPTIONS):
            return self
        return settings_for_game(self, game.name if own else None)

    @property
    def root_rule(self) -> str:
        """The root policy the search runs: `root_policy`, with `auto`
        resolved by the budget (halving from HALVING_FROM_ITERATIONS
        iterations or HALVING_FROM_SECONDS seconds on, whichever budget ends
        the search first; UCB1 below, and in a shared tree, which halving
        does not suit). Settings that leave the policy to the game are
        resolved by `for_game` first."""
        if self.root_policy is None:
            raise SettingError("the root policy is the game's: resolve with for_game(game)")
        if self.root_policy != "auto":
            return self.root_policy  # type: ignore[return-value]
        large = all(
            budget is None or budget >= least
            for budget, least in (
                (self.iterations, HALVING_FROM_ITERATIONS),
                (self.time_limit, HALVING_FROM_SECONDS),
            )
        )
        return "halving" if large and self.parallel != "shared" else "uct"

    @property
    def memory_bytes(self) -> int:
        """The tree memory cap of the whole search, in bytes."""
        return memory_bytes_of(self.memory_mb)

    def check_trees(self, trees: int) -> None:
        """SettingError unless the memory cap holds `trees` trees (PIMC's worlds)."""
        check_tree_memory(self.memory_bytes, trees)

    def cutoff_for(self, game: Any) -> int:
        """The playout turns before the evaluation in a search of `game`."""
        if self.cutoff_turns is not None:
            return self.cutoff_turns
        return cutoff_turns_for(game, self.evaluation)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@lru_cache(maxsize=64)
def settings_for_game(settings: SearchSettings, game_name: str | None) -> SearchSettings:
    """`settings` with each tree option they leave to the game filled in: the
    game's own where it has one a shared tree can take, else (and for no
    game) v2's (made once per settings and game: a search asks at every
    decision)."""
    plugin = find_plugin(game_name) if game_name else None
    own = dict(plugin.tree_defaults) if plugin else {}
    if settings.parallel == "shared":
        own = {k: v for k, v in own.items() if NOT_IN_A_SHARED_TREE.get(k) != v}
    return replace(
        settings,
        **{
            name: own.get(name, PRESETS[GAME_FALLBACK_PRESET][name])
            for name in GAME_TREE_OPTIONS
            if getattr(settings, name) is None
        },
    )


#: the names of the search settings (a bot reads them as its attributes)
SEARCH_SETTINGS = tuple(field.name for field in fields(SearchSettings))
