"""The bots: ISMCTS (the product), and the baselines it is measured against.

Every bot has ``choose(state) -> Move``; the searching bots also have
``analyse(state) -> SearchResult``. A bot only reads what the player to move
may know: the searching bots hand the C search the state's bytes and the
search resamples everything hidden from that player before each iteration
(the cheating reference is the one exception, and says so in its name).
"""
from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import EVALUATIONS, cutoff_turns_for
from xenophon.kernel.game import Move, State
from xenophon.search import sampler as samplers
from xenophon.search.ismcts import SharedTree, Worker

DEFAULT_MEMORY_MB = 256
#: the evaluation a search scores its cut-off playouts with unless told:
#: each game's own default (xenophon.kernel.evaluation.DEFAULT_EVALUATIONS)
DEFAULT_EVALUATION = "default"

# -- the ranges of the settings: the one owner of every budget cap ------------
MAX_ITERATIONS = 50_000_000       # iterations of one search (hours at the slowest speeds)
MAX_SECONDS = 3600.0              # seconds of one search
MAX_WORKERS = 64                  # search threads
# how several workers share a search: a tree each, their root statistics
# summed ("root"), or one tree grown by all, with virtual loss ("shared")
PARALLEL_MODES = ("root", "shared")
MAX_MEMORY_MB = 16_384            # the tree memory cap of one search
MIN_TREE_BYTES = 2 * 1024 * 8 + 1024  # the least one tree takes (tree_init in ismcts.pyx)
MAX_WORLDS = 1024                 # PIMC's sampled worlds
MAX_TOP = 1000                    # moves a result lists (a position has far fewer)
MAX_CUTOFF_TURNS = 10_000         # playout turns before the evaluation (-1: to the end)
MAX_PLAYOUT_ACTIONS = 10_000_000  # actions of one playout
MAX_C_UCT = 100.0                 # exploration constant (returns are in [-1, 1])
MAX_TEMPERATURE = 100.0           # beyond it the choice is as good as uniform
MAX_GREEDY_BRANCHES = 65_536      # chance leaves GreedyBot expands exhaustively
MAX_GREEDY_SAMPLES = 1024         # chance samples GreedyBot draws beyond that
MAX_PRIOR_WEIGHT = 100.0          # progressive bias weight (values are in [-1, 1])

# -- the tree's options and their named presets -------------------------------
#: the search options a preset fixes; a bot given one of them explicitly
#: overrides its preset's value
TREE_OPTIONS = ("c_uct", "cutoff_turns", "value_scaling", "transpositions", "prior_weight",
                "root_policy", "opponent_nodes", "ties")
#: how the move to play is chosen among root moves equal in visits and value:
#: the first in code order (which puts `end` first), or one at random
TIE_RULES = ("first", "random")
#: `v1` is the search as it was before the tree options (issue 11): UCB1 on
#: raw returns at every node the root included, each edge with its own
#: statistics, no priors; a cut-off of None is the game's and its
#: evaluation's own (xenophon.kernel.evaluation.CUTOFF_TURNS)
PRESETS: dict[str, dict[str, Any]] = {
    "v1": {"c_uct": 0.4, "cutoff_turns": None, "value_scaling": "none", "transpositions": False,
           "prior_weight": 0.0, "root_policy": "uct", "opponent_nodes": "own", "ties": "first"},
}
#: `v2` is v1 drawing the move to play among root moves equal in visits and
#: value (docs/search.md, "The final move among equals"), the default
PRESETS["v2"] = {**PRESETS["v1"], "ties": "random"}
DEFAULT_PRESET = "v2"


class SettingError(XenophonError, ValueError):
    """A bot setting of the wrong type or out of its range; the message names it."""


@dataclass(frozen=True)
class Setting:
    """The type (int, float or bool) and range a bot setting must have."""

    kind: type
    least: float | None = None
    most: float | None = None
    above: bool = False           # `least` itself is out of range
    none_allowed: bool = False    # None leaves it out (a budget not given, a random seed)
    choices: tuple[str, ...] = () # a text setting: the texts it may be (any, if empty)

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
            return f"{noun} {low}" + (f" and at most {self.most:,g}" if self.most is not None
                                      else "")
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
            fits = isinstance(value, str) and value != "" \
                and (not self.choices or value in self.choices)
        elif self.kind is int:
            fits = isinstance(value, int) and not isinstance(value, bool) and self._in_range(value)
        else:
            fits = isinstance(value, (int, float)) and not isinstance(value, bool) \
                and self._in_range(value)
        if not fits:
            shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) \
                else repr(value)
            raise SettingError(f"{label} must be {self.describe()} (got {shown})")
        return float(value) if self.kind is float else value

    def parse(self, label: str, text: str) -> Any:
        """A setting written as text (in a bot spec): converted, then checked."""
        text = text.strip()
        value: Any = text
        if self.kind is bool:
            value = {"true": True, "1": True, "false": False, "0": False}.get(text.lower(), text)
        elif self.kind is not str:
            for kind in ((int,) if self.kind is int else (int, float)):
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
    "root_policy": Setting(str, choices=tuple(Worker.ROOT_POLICIES)),
    "opponent_nodes": Setting(str, choices=tuple(Worker.OPPONENT_NODES)),
    "ties": Setting(str, choices=TIE_RULES),
    # the world sampler's options (xenophon.search.samplers)
    "sampler": Setting(str, choices=samplers.SAMPLERS),
    "likelihood": Setting(str, choices=samplers.LIKELIHOODS),
    "particles": Setting(int, 1, samplers.MAX_PARTICLES),
}


def check_setting(name: str, value: Any, label: str | None = None) -> Any:
    """`value` checked against the range of setting `name` (SettingError
    naming `label`, by default the setting's name, otherwise)."""
    return SETTINGS[name].check(label or f"'{name}'", value)


def check_settings(**values: Any) -> None:
    """Checks each setting given by name (the one check every bot uses)."""
    for name, value in values.items():
        check_setting(name, value)


def tree_options(preset: str, **given: Any) -> dict[str, Any]:
    """The tree options (TREE_OPTIONS) of a search: each one given (not None),
    else the preset's (which may be None: the cut-off then follows the game)."""
    return {name: given[name] if given.get(name) is not None else PRESETS[preset][name]
            for name in TREE_OPTIONS}


def check_budget(iterations: int | None, time_limit: float | None) -> None:
    if iterations is None and time_limit is None:
        raise SettingError("a search needs an iteration budget, a time budget, or both")


def memory_bytes_of(memory_mb: float) -> int:
    return int(memory_mb * 1024 * 1024)


def check_tree_memory(memory_bytes: int, trees: int) -> None:
    """Each of the `trees` trees a search grows gets memory_bytes // trees."""
    share = memory_bytes // trees
    if share < MIN_TREE_BYTES:
        raise SettingError(f"'memory_mb' is too small for {trees} trees: {share:,} bytes "
                           f"each, and a tree needs at least {MIN_TREE_BYTES:,}")


@dataclass(frozen=True)
class MoveStat:
    """One root move of a search: visits, win probability, its lower bound, the line."""

    move: Move
    visits: int
    win_probability: float
    lower_bound: float
    principal_variation: tuple[str, ...] = ()


@dataclass
class SearchResult:
    """What a search found for the player to move, best move first."""

    player: int
    moves: list[MoveStat]
    iterations: int
    worlds: int
    nodes: int
    tree_bytes: int
    seconds: float
    workers: int = 1
    notes: list[str] = field(default_factory=list)

    @property
    def best(self) -> MoveStat:
        return self.moves[0]

    @property
    def bytes_per_node(self) -> float:
        return self.tree_bytes / self.nodes if self.nodes else 0.0

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def wilson_lower_bound(probability: float, n: int, z: float = 1.96) -> float:
    """Lower end of the Wilson score interval of a proportion seen over n trials."""
    if n == 0:
        return 0.0
    denominator = 1 + z * z / n
    centre = probability + z * z / (2 * n)
    spread = z * math.sqrt(max(0.0, probability * (1 - probability) / n + z * z / (4 * n * n)))
    return max(0.0, (centre - spread) / denominator)


class Bot:
    """A player: `choose(state)` returns a legal move for the player to move."""

    name = "bot"
    #: the settings a bot spec may give (xenophon.play.players.make_bot; their ranges in SETTINGS)
    settings: tuple[str, ...] = ()

    def choose(self, state: State) -> Move:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class RandomBot(Bot):
    """Uniformly random among the legal moves."""

    def __init__(self, seed: int | None = None):
        check_settings(seed=seed)
        self.rng = random.Random(seed)
        self.name = "random"

    def choose(self, state: State) -> Move:
        return self.rng.choice(state.legal_moves())


class SearchBot(Bot):
    """Shared machinery of the tree searches: budgets, workers, results."""

    resample = True
    settings: tuple[str, ...] = ("iterations", "time_limit", "workers", "parallel", "c_uct",
                                 "cutoff_turns", "memory_mb", "temperature", "max_playout_actions",
                                 "uniform_playouts", "evaluation", "weights",
                                 "preset", "value_scaling", "transpositions", "prior_weight",
                                 "root_policy", "opponent_nodes", "ties")

    def __init__(self, iterations: int | None = 2000, time_limit: float | None = None,
                 workers: int = 1, parallel: str = "root", seed: int | None = 0,
                 c_uct: float | None = None, cutoff_turns: int | None = None,
                 memory_mb: float = DEFAULT_MEMORY_MB,
                 temperature: float = 0.0, max_playout_actions: int = 2000,
                 uniform_playouts: bool = False, evaluation: str = DEFAULT_EVALUATION,
                 weights: str | None = None, preset: str = DEFAULT_PRESET,
                 value_scaling: str | None = None, transpositions: bool | None = None,
                 prior_weight: float | None = None, root_policy: str | None = None,
                 opponent_nodes: str | None = None, ties: str | None = None):
        check_settings(preset=preset)
        tree = tree_options(preset, c_uct=c_uct, cutoff_turns=cutoff_turns,
                            value_scaling=value_scaling, transpositions=transpositions,
                            prior_weight=prior_weight, root_policy=root_policy,
                            opponent_nodes=opponent_nodes, ties=ties)
        check_settings(iterations=iterations, time_limit=time_limit, workers=workers,
                       parallel=parallel, seed=seed,
                       memory_mb=memory_mb, temperature=temperature,
                       max_playout_actions=max_playout_actions,
                       uniform_playouts=uniform_playouts, evaluation=evaluation, weights=weights,
                       **tree)
        if weights is not None and evaluation != "learned":
            raise SettingError("'weights' (a weights file) goes with evaluation 'learned'")
        check_budget(iterations, time_limit)
        if parallel == "shared" and (tree["root_policy"] == "halving"
                                     or tree["opponent_nodes"] == "fused"):
            raise SettingError("'parallel' shared takes neither root_policy halving nor "
                               "opponent_nodes fused")
        check_tree_memory(memory_bytes_of(memory_mb), 1 if parallel == "shared" else workers)
        if seed is None:
            seed = random.getrandbits(32)
        self.iterations = iterations or 0
        self.time_limit = time_limit or 0.0
        self.workers = workers
        self.parallel = parallel
        self.seed = seed
        self.preset = preset
        self.c_uct = tree["c_uct"]
        # playout turns before the evaluation (None: the game's and the
        # evaluation's own, xenophon.kernel.evaluation.CUTOFF_TURNS)
        self.cutoff_turns = tree["cutoff_turns"]
        # selection on values scaled to each node's range; edges that take the
        # value of the node they lead to; the playout policy as a prior
        self.value_scaling = tree["value_scaling"]
        self.transpositions = tree["transpositions"]
        self.prior_weight = tree["prior_weight"]
        # how the root shares its iterations: UCB1 as every node ("uct"),
        # sequential halving ("halving", which chooses by value, not visits),
        # or UCB1 after each root move's forced visits ("forced")
        self.root_policy = tree["root_policy"]
        # whose information set keys the other player's nodes: their own
        # ("own", split by the hand of each sampled world) or the searcher's
        # ("searcher": one node for the hands the searcher cannot tell apart)
        self.opponent_nodes = tree["opponent_nodes"]
        # the move played among root moves equal in visits and value: with
        # "first" the lowest code, `end`, so a won position whose every move
        # wins every playout ends its turns forever; "random" draws one
        self.ties = tree["ties"]
        self.memory_bytes = memory_bytes_of(memory_mb)
        self.temperature = temperature
        self.max_playout_actions = max_playout_actions
        # uniformly random playout actions instead of the game's policy (to
        # compare with searches that use random rollouts)
        self.uniform_playouts = uniform_playouts
        # what scores the cut-off playouts: the hand-set evaluation or the
        # learned one (the game's shipped weights, or a weights file's)
        self.evaluation = evaluation
        self.weights = weights
        self.rng = random.Random(seed)
        self.searches = 0

    def reseed(self, seed: int) -> None:
        """Starts the bot's randomness afresh from `seed`, as if it were new:
        a game that derives the seed from the position makes the bot's choice
        there the same every time (so taking a move back cannot re-roll it)."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.searches = 0

    def cutoff_for(self, game: Any) -> int:
        """The playout turns before the evaluation in a search of `game`."""
        if self.cutoff_turns is not None:
            return self.cutoff_turns
        return cutoff_turns_for(game, self.evaluation)

    # -- running workers ----------------------------------------------------
    def _workers_for(self, state: State, root: bytes, player: int, count: int,
                     memory_bytes: int, root_moves: list[int] | None = None,
                     worlds: samplers.Worlds | None = None) -> list[Worker]:
        """`count` workers that share `memory_bytes`: a tree each, or one
        SharedTree (`parallel` shared, with more than one worker)."""
        api, tables = state.game.search_interface(self.evaluation, self.weights)
        base = self.seed * 1_000_003 + self.searches * 7919
        shared = SharedTree(memory_bytes) if self.parallel == "shared" and count > 1 else None
        return [Worker(api, tables, root, player, (base + index * 104_729) & (2**63 - 1),
                       self.c_uct, self.cutoff_for(state.game), self.max_playout_actions,
                       self.resample, memory_bytes // count, state.game, root_moves,
                       self.uniform_playouts, Worker.VALUE_SCALINGS[self.value_scaling],
                       self.transpositions, self.prior_weight,
                       worlds.states if worlds else None, worlds.weights if worlds else None,
                       Worker.ROOT_POLICIES[self.root_policy],
                       Worker.OPPONENT_NODES[self.opponent_nodes], shared)
                for index in range(count)]

    @staticmethod
    def _trees(workers: list[Worker]) -> list[Worker]:
        """One worker for each distinct tree (workers of a SharedTree share one)."""
        seen: set[int] = set()
        kept = []
        for worker in workers:
            tree = id(worker.shared_tree) if worker.shared_tree is not None else id(worker)
            if tree not in seen:
                seen.add(tree)
                kept.append(worker)
        return kept

    @staticmethod
    def _shares(iterations: int, count: int) -> list[int]:
        """Each of `count` workers' part of `iterations` (0: no limit, for each)."""
        if not iterations:
            return [0] * count
        return [iterations // count + (1 if i < iterations % count else 0) for i in range(count)]

    def _plan(self, workers: list[Worker], iterations: int, time_limit: float) -> None:
        """Tells the workers the whole budget of a search run in several parts."""
        for worker, share in zip(workers, self._shares(iterations, len(workers))):
            worker.plan(share, time_limit)

    def _run(self, workers: list[Worker], iterations: int, time_limit: float) -> None:
        shares = self._shares(iterations, len(workers))
        if len(workers) == 1:
            workers[0].run(shares[0], time_limit)
            return
        threads = [threading.Thread(target=w.run, args=(share, time_limit))
                   for w, share in zip(workers, shares)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    @staticmethod
    def _merge(workers: list[Worker]) -> dict[int, list[float]]:
        """Each root move's visits, return sum and halving rounds survived,
        summed over the workers (each has a root node of its own, in a
        shared tree too)."""
        merged: dict[int, list[float]] = {}
        for worker in workers:
            for code, visits, value_sum, halvings in worker.root_statistics():
                entry = merged.setdefault(code, [0, 0.0, 0])
                entry[0] += visits
                entry[1] += value_sum
                entry[2] += halvings
        return merged

    def _rank_key(self, visits: int, probability: float, halvings: float, code: int) -> tuple:
        """The order of the root moves, best first: by visits (then value), or
        after sequential halving by the rounds survived (summed over the
        workers, each halving alone) and then by value: the last candidates
        have equal visits, the halving's choice is the better value."""
        if self.root_policy == "halving":
            return (-halvings, -probability, -visits, code)
        return (-visits, -probability, code)

    def _describe_line(self, state: State, line: list) -> tuple[str, ...]:
        texts = []
        for _, code, before in line:
            texts.append(state.game.state_from_bytes(before).format_code(code))
        return tuple(texts)

    def _result(self, state: State, player: int, workers: list[Worker], seconds: float,
                worlds: int) -> SearchResult:
        merged = self._merge(workers)
        legal = {m.code: m for m in state.legal_moves()}
        stats = []
        for code, (visits, value_sum, halvings) in merged.items():
            mean = value_sum / visits if visits else 0.0
            probability = (mean + 1) / 2
            stats.append((code, int(visits), probability, halvings))
        stats.sort(key=lambda s: self._rank_key(s[1], s[2], s[3], s[0]))
        lead = max(workers, key=lambda w: w.iterations)
        moves = []
        for rank, (code, visits, probability, _) in enumerate(stats):
            line: tuple[str, ...] = ()
            if rank < 5 and visits:
                pv = lead.principal_variation(code, 8, self.rng.getrandbits(63))
                line = (legal[code].text,) + self._describe_line(state, pv)
            moves.append(MoveStat(legal[code], visits, probability,
                                  wilson_lower_bound(probability, visits), line))
        iterations = sum(w.iterations for w in workers)
        trees = self._trees(workers)
        notes = ["tree full: the search went on without growing"] \
            if any(w.tree_full for w in trees) else []
        return SearchResult(player, moves, iterations, worlds, sum(w.nodes for w in trees),
                            sum(w.tree_bytes for w in trees), seconds, len(workers), notes)

    def _trivial(self, state: State, player: int) -> SearchResult | None:
        if state.is_terminal():
            raise XenophonError("the game is over: there is nothing to search")
        if state.is_chance():
            raise XenophonError("it is a chance node: nobody decides here")
        moves = state.legal_moves()
        if len(moves) == 1:
            return SearchResult(player, [MoveStat(moves[0], 0, 0.5, 0.0, (moves[0].text,))],
                                0, 0, 0, 0, 0.0, 0, ["only one legal move"])
        return None

    def choose(self, state: State) -> Move:
        return self.choose_from(self.analyse(state))

    def _best_of(self, result: SearchResult) -> Move:
        """The best move; with ties "random", one drawn among the moves
        equal to it in visits and value (the bot's generator, drawn only on
        such a tie)."""
        best = result.best
        if self.ties == "first":
            return best.move
        tied = [m.move for m in result.moves
                if m.visits == best.visits and m.win_probability == best.win_probability]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    def choose_from(self, result: SearchResult) -> Move:
        """The move to play from a search result: most visits, or with a
        temperature, a draw weighted by visits ** (1 / temperature)."""
        if self.temperature <= 0 or len(result.moves) == 1:
            return self._best_of(result)
        most = max(m.visits for m in result.moves)
        if most == 0:
            return result.best.move
        # (visits / most) ** (1 / T) has the same ratios and cannot overflow
        weights = [(m.visits / most) ** (1 / self.temperature) for m in result.moves]
        return self.rng.choices([m.move for m in result.moves], weights=weights)[0]

    def analyse(self, state: State) -> SearchResult:
        raise NotImplementedError


class ISMCTSBot(SearchBot):
    """Information-set MCTS from the player to move's information only. Its
    worlds come from `sampler`: "uniform" (the game's resample), or "policy"
    (opponent-move inference: `particles` worlds weighted by the
    `likelihood` model, xenophon.search.sampler)."""

    resample = True
    settings = SearchBot.settings + ("sampler", "likelihood", "particles")

    def __init__(self, *args: Any, sampler: str = samplers.DEFAULT_SAMPLER,
                 likelihood: str = samplers.DEFAULT_LIKELIHOOD,
                 particles: int = samplers.DEFAULT_PARTICLES, **kwargs: Any):
        check_settings(sampler=sampler, likelihood=likelihood, particles=particles)
        super().__init__(*args, **kwargs)
        self.sampler, self.likelihood, self.particles = sampler, likelihood, particles
        budget = [f"{self.iterations}it"] if self.iterations else []
        budget += [f"{self.time_limit:g}s"] if self.time_limit else []
        self.name = f"ismcts({' '.join(budget)})"

    def _sampled_worlds(self, state: State, player: int) -> samplers.Worlds | None:
        """The policy sampler's worlds (None: iterations resample uniformly)."""
        if self.sampler != "policy":
            return None
        seed = self.seed * 1_000_033 + self.searches * 7907
        return samplers.policy_worlds(state, player, self.particles, seed, self.likelihood,
                                      evaluation=self.evaluation, weights=self.weights)

    def analyse(self, state: State, on_progress: Callable[[SearchResult], None] | None = None,
                every: float = 0.5, root_moves: list[int] | None = None) -> SearchResult:
        """Searches the position for the player to move. `on_progress` gets a
        partial result about every `every` seconds; `root_moves` restricts the
        search to those move codes."""
        player = state.current_player
        trivial = self._trivial(state, player)
        if trivial:
            return trivial
        self.searches += 1
        start = time.perf_counter()
        worlds = self._sampled_worlds(state, player)
        workers = self._workers_for(state, state.to_bytes(), player, self.workers,
                                    self.memory_bytes, root_moves, worlds)
        # the inference's time comes out of the move's budget
        run_time = search_time(self.time_limit) and max(
            0.001, search_time(self.time_limit) - (time.perf_counter() - start))
        if on_progress is None:
            self._run(workers, self.iterations, run_time)
        else:
            self._plan(workers, self.iterations, run_time)
            while True:
                done = sum(w.iterations for w in workers)
                left = run_time - (time.perf_counter() - start) if run_time else every
                if (self.iterations and done >= self.iterations) or left <= 0:
                    break
                self._run(workers, max(0, self.iterations - done), min(every, left))
                on_progress(self._result(state, player, workers, time.perf_counter() - start,
                                         sum(w.iterations for w in workers)))
        seconds = time.perf_counter() - start
        iterations = sum(w.iterations for w in workers)
        result = self._result(state, player, workers, seconds, worlds=iterations)
        if worlds is not None and not worlds.states:
            result.notes.append("no world fits the opponent's observed moves: sampled uniformly")
        return result


def search_time(time_limit: float) -> float:
    """The time given to the workers out of a move's budget: a margin is kept
    for starting them and for writing the result (the budget must hold
    within 5% + 20 ms)."""
    if not time_limit:
        return 0.0
    return max(0.001, time_limit * 0.97 - 0.008)


class PIMCBot(SearchBot):
    """Perfect-information Monte Carlo: K worlds sampled from the player's
    information, a perfect-information UCT in each, votes merged."""

    resample = False
    settings = SearchBot.settings + ("worlds",)

    def __init__(self, *args: Any, worlds: int = 8, **kwargs: Any):
        check_settings(worlds=worlds)
        super().__init__(*args, **kwargs)
        check_tree_memory(self.memory_bytes, worlds)
        self.worlds = worlds
        self.name = f"pimc({worlds}x{self.iterations // worlds if self.iterations else ''})"

    def analyse(self, state: State) -> SearchResult:
        player = state.current_player
        trivial = self._trivial(state, player)
        if trivial:
            return trivial
        self.searches += 1
        start = time.perf_counter()
        votes: dict[int, int] = {}
        all_workers = []
        share = search_time(self.time_limit) / self.worlds if self.time_limit else 0.0
        for _ in range(self.worlds):
            world = state.resample(player, self.rng)
            workers = self._workers_for(state, world.to_bytes(), player, 1,
                                        self.memory_bytes // self.worlds)
            self._run(workers, max(1, self.iterations // self.worlds) if self.iterations else 0,
                      share)
            stats = workers[0].root_statistics()
            best = min(stats, key=lambda s: self._rank_key(s[1], s[2] / max(1, s[1]), s[3],
                                                           s[0]))[0]
            votes[best] = votes.get(best, 0) + 1
            all_workers.extend(workers)
        result = self._result(state, player, all_workers, time.perf_counter() - start,
                              worlds=self.worlds)
        # the choice is by votes; visits and values stay as merged statistics
        result.moves.sort(key=lambda m: (-votes.get(m.move.code, 0), -m.visits))
        return result


class CheatingUCTBot(SearchBot):
    """UCT on the true state, hidden cards included: a reference upper bound
    for measurements, never a fair opponent."""

    resample = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.name = f"cheating-uct({self.iterations or ''})"

    def analyse(self, state: State) -> SearchResult:
        player = state.current_player
        trivial = self._trivial(state, player)
        if trivial:
            return trivial
        self.searches += 1
        start = time.perf_counter()
        workers = self._workers_for(state, state.to_bytes(), player, self.workers,
                                    self.memory_bytes)
        self._run(workers, self.iterations, search_time(self.time_limit))
        return self._result(state, player, workers, time.perf_counter() - start, worlds=1)


class GreedyBot(Bot):
    """One ply with the static evaluation; chance after the move by expectation
    (exhaustively while at most `max_branches` leaves, else by sampling)."""

    settings = ("max_branches", "samples")

    def __init__(self, seed: int | None = None, max_branches: int = 64, samples: int = 8):
        check_settings(seed=seed, max_branches=max_branches, samples=samples)
        self.rng = random.Random(seed)
        self.max_branches = max_branches
        self.samples = samples
        self.name = "greedy"

    def _value(self, state: State, player: int, branches: int) -> float:
        if state.is_terminal():
            return state.returns()[player]
        if not state.is_chance():
            return state.evaluate(player)
        outcomes = state.chance_probabilities()
        if branches * len(outcomes) > self.max_branches:
            total = 0.0
            for _ in range(self.samples):
                code = self.rng.choices([c for c, _ in outcomes],
                                        weights=[p for _, p in outcomes])[0]
                state.apply_code(code)
                total += self._value(state, player, branches)
                state.undo()
            return total / self.samples
        value = 0.0
        for code, probability in outcomes:
            state.apply_code(code)
            value += probability * self._value(state, player, branches * len(outcomes))
            state.undo()
        return value

    def choose(self, state: State) -> Move:
        player = state.current_player
        best, best_value = [], -math.inf
        for move in state.legal_moves():
            state.apply_code(move.code)
            value = self._value(state, player, 1)
            state.undo()
            if value > best_value + 1e-12:
                best, best_value = [move], value
            elif abs(value - best_value) <= 1e-12:
                best.append(move)
        return self.rng.choice(best)


def result_dict(result: SearchResult, top: int) -> dict[str, Any]:
    """A search result as JSON data: its first `top` moves with their
    statistics and principal lines (the engine's answers, `analyse --json`)."""
    return {
        "player": result.player,
        "moves": [{"move": m.move.text, "visits": m.visits,
                   "win_probability": round(m.win_probability, 4),
                   "lower_bound": round(m.lower_bound, 4),
                   "principal_variation": list(m.principal_variation)}
                  for m in result.moves[:top]],
        "iterations": result.iterations, "worlds": result.worlds, "nodes": result.nodes,
        "bytes_per_node": round(result.bytes_per_node, 1), "seconds": round(result.seconds, 3),
        "notes": result.notes,
    }
