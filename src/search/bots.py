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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Move, State
from xenophon.kernel.plugin import find_plugin
from xenophon.kernel.stats import wilson_interval
from xenophon.search import world_sampling
from xenophon.search.ismcts import SharedTree, Worker
from xenophon.search.settings import (
    DEFAULT_PRESET,
    MAX_ITERATIONS,
    MAX_SECONDS,
    MAX_TOP,
    MAX_WORKERS,
    PRESETS,
    SEARCH_SETTINGS,
    SETTINGS,
    SearchSettings,
    Setting,
    SettingError,
    check_setting,
    check_settings,
)
from xenophon.search.solver import Budget, proven_best, solve

#: what the floors above read from here: the bots and their results, and the
#: settings' ranges, presets and checks (owned by xenophon.search.settings)
__all__ = [
    "DEFAULT_PRESET",
    "MAX_ITERATIONS",
    "MAX_SECONDS",
    "MAX_TOP",
    "MAX_WORKERS",
    "PRESETS",
    "SETTINGS",
    "Setting",
    "SettingError",
    "check_setting",
    "SearchSettings",
    "MoveStat",
    "SearchResult",
    "wilson_lower_bound",
    "Bot",
    "RandomBot",
    "SearchBot",
    "ISMCTSBot",
    "PIMCBot",
    "CheatingUCTBot",
    "GreedyBot",
    "search_time",
    "result_dict",
]


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
    #: the exact solver proved the best move best in every world (`root_solver`)
    proven: bool = False
    #: how deep the tree reached in turns: the mean and the most turns a
    #: descent's last tree step lay past the root's turn (0: the root's turn)
    mean_turns: float = 0.0
    most_turns: int = 0

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
    return wilson_interval(probability, n, z)[0]


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
    """Shared machinery of the tree searches: budgets, workers, results.

    A bot's search settings are one `SearchSettings` (`search_settings`),
    given whole, or setting by setting as keywords (each replacing the given
    object's), and read as the bot's attributes too (`bot.c_uct`); the seed
    is the bot's own randomness, not a setting of its search."""

    resample = True
    settings: tuple[str, ...] = (
        "iterations",
        "time_limit",
        "workers",
        "parallel",
        "c_uct",
        "cutoff_turns",
        "memory_mb",
        "temperature",
        "max_playout_actions",
        "uniform_playouts",
        "evaluation",
        "weights",
        "preset",
        "value_scaling",
        "transpositions",
        "prior_weight",
        "root_policy",
        "chance",
        "opponent_nodes",
        "ties",
    )

    def __init__(
        self, search_settings: SearchSettings | None = None, seed: int | None = 0, **given: Any
    ):
        unknown = sorted(set(given) - set(self.settings))
        if unknown:
            raise TypeError(f"{type(self).__name__} takes no setting '{unknown[0]}'")
        self.search_settings = (
            SearchSettings(**given)
            if search_settings is None
            else replace(search_settings, **given)
        )
        check_settings(seed=seed)
        if seed is None:
            seed = random.getrandbits(32)
        # the budgets in effect (0: none of that kind)
        self.iterations = self.search_settings.iterations or 0
        self.time_limit = self.search_settings.time_limit or 0.0
        self.seed = seed
        self.rng = random.Random(seed)
        self.searches = 0

    def __getattr__(self, name: str) -> Any:
        """The search settings read as the bot's attributes (`bot.evaluation`)."""
        search_settings = self.__dict__.get("search_settings")
        if search_settings is not None and (name in SEARCH_SETTINGS or name == "memory_bytes"):
            return getattr(search_settings, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def reseed(self, seed: int) -> None:
        """Starts the bot's randomness afresh from `seed`, as if it were new:
        a game that derives the seed from the position makes the bot's choice
        there the same every time (so taking a move back cannot re-roll it)."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.searches = 0

    def cutoff_for(self, game: Any) -> int:
        """The playout turns before the evaluation in a search of `game`."""
        return self.search_settings.cutoff_for(game)

    def _settings_for(self, game: Any) -> SearchSettings:
        """The settings of a search of `game`: the game's own tree options
        where the settings leave them to it, in an information-set search;
        the perfect-information baselines (PIMC, cheating UCT) keep v2's, as
        they were measured."""
        return self.search_settings.for_game(game, own=self.resample)

    # -- running workers ----------------------------------------------------
    def _workers_for(
        self,
        state: State,
        root: bytes,
        player: int,
        count: int,
        memory_bytes: int,
        root_moves: list[int] | None = None,
        worlds: world_sampling.Worlds | None = None,
    ) -> list[Worker]:
        """`count` workers that share `memory_bytes`: a tree each, or one
        SharedTree (`parallel` shared, with more than one worker)."""
        api, tables = state.game.search_interface(self.evaluation, self.weights)
        base = self.seed * 1_000_003 + self.searches * 7919
        shared = SharedTree(memory_bytes) if self.parallel == "shared" and count > 1 else None
        return [
            Worker(
                api,
                tables,
                root,
                player,
                (base + index * 104_729) & (2**63 - 1),
                self._settings_for(state.game),
                self.resample,
                memory_bytes // count,
                self.cutoff_for(state.game),
                state.game,
                root_moves,
                worlds.states if worlds else None,
                worlds.weights if worlds else None,
                shared,
            )
            for index in range(count)
        ]

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
        threads = [
            threading.Thread(target=w.run, args=(share, time_limit))
            for w, share in zip(workers, shares)
        ]
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

    @staticmethod
    def _rank_key(rule: str, visits: int, probability: float, halvings: float, code: int) -> tuple:
        """The order of the root moves, best first: by visits (then value), or
        after sequential halving by the rounds survived (summed over the
        workers, each halving alone) and then by value: the last candidates
        have equal visits, the halving's choice is the better value."""
        if rule == "halving":
            return (-halvings, -probability, -visits, code)
        return (-visits, -probability, code)

    def _describe_line(self, state: State, line: list) -> tuple[str, ...]:
        texts = []
        for _, code, before in line:
            texts.append(state.game.state_from_bytes(before).format_code(code))
        return tuple(texts)

    def _result(
        self, state: State, player: int, workers: list[Worker], seconds: float, worlds: int
    ) -> SearchResult:
        merged = self._merge(workers)
        legal = {m.code: m for m in state.legal_moves()}
        stats = []
        for code, (visits, value_sum, halvings) in merged.items():
            mean = value_sum / visits if visits else 0.0
            probability = (mean + 1) / 2
            stats.append((code, int(visits), probability, halvings))
        rule = self._settings_for(state.game).root_rule
        stats.sort(key=lambda s: self._rank_key(rule, s[1], s[2], s[3], s[0]))
        proven = self._proven_root_move(workers)
        if proven is not None:
            # a proven win is played whatever the visits say
            stats.sort(key=lambda s: s[0] != proven)
        lead = max(workers, key=lambda w: w.iterations)
        moves = []
        for rank, (code, visits, probability, _) in enumerate(stats):
            line: tuple[str, ...] = ()
            if rank < 5 and visits:
                pv = lead.principal_variation(code, 8, self.rng.getrandbits(63))
                line = (legal[code].text,) + self._describe_line(state, pv)
            moves.append(
                MoveStat(
                    legal[code], visits, probability, wilson_lower_bound(probability, visits), line
                )
            )
        iterations = sum(w.iterations for w in workers)
        trees = self._trees(workers)
        notes = (
            ["tree full: the search went on without growing"]
            if any(w.tree_full for w in trees)
            else []
        )
        if proven is not None:
            notes.append(f"proven win in the tree: {legal[proven].text} ends the game at once")
        return SearchResult(
            player,
            moves,
            iterations,
            worlds,
            sum(w.nodes for w in trees),
            sum(w.tree_bytes for w in trees),
            seconds,
            len(workers),
            notes,
            proven=proven is not None,
            mean_turns=sum(w.turn_steps for w in workers) / max(1, iterations),
            most_turns=max(w.most_turns for w in workers),
        )

    @staticmethod
    def _proven_root_move(workers: list[Worker]) -> int | None:
        """The code of a root move some worker proved a win (the solver option)."""
        for worker in workers:
            code = worker.proven_root_move()
            if code is not None:
                return code
        return None

    def _trivial(self, state: State, player: int) -> SearchResult | None:
        if state.is_terminal():
            raise XenophonError("the game is over: there is nothing to search")
        if state.is_chance():
            raise XenophonError("it is a chance node: nobody decides here")
        moves = state.legal_moves()
        if len(moves) == 1:
            return SearchResult(
                player,
                [MoveStat(moves[0], 0, 0.5, 0.0, (moves[0].text,))],
                0,
                0,
                0,
                0,
                0.0,
                0,
                ["only one legal move"],
            )
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
        tied = [
            m.move
            for m in result.moves
            if m.visits == best.visits and m.win_probability == best.win_probability
        ]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    def choose_from(self, result: SearchResult) -> Move:
        """The move to play from a search result: most visits, or with a
        temperature, a draw weighted by visits ** (1 / temperature); a
        proven move whatever the temperature."""
        if result.proven:
            return result.best.move
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
    `likelihood` model, xenophon.search.world_sampling)."""

    resample = True
    settings = SearchBot.settings + (
        "sampler",
        "likelihood",
        "particles",
        "solver",
        "root_solver",
        "futile_moves",
        "priors",
    )

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        budget = [f"{self.iterations}it"] if self.iterations else []
        budget += [f"{self.time_limit:g}s"] if self.time_limit else []
        self.name = f"ismcts({' '.join(budget)})"

    def _sampled_worlds(self, state: State, player: int) -> world_sampling.Worlds | None:
        """The policy sampler's worlds (None: iterations resample uniformly)."""
        if self.sampler != "policy":
            return None
        seed = self.seed * 1_000_033 + self.searches * 7907
        return world_sampling.policy_worlds(
            state,
            player,
            self.particles,
            seed,
            self.likelihood,
            evaluation=self.evaluation,
            weights=self.weights,
        )

    def analyse(
        self,
        state: State,
        on_progress: Callable[[SearchResult], None] | None = None,
        every: float = 0.5,
        root_moves: list[int] | None = None,
    ) -> SearchResult:
        """Searches the position for the player to move. `on_progress` gets a
        partial result about every `every` seconds; `root_moves` restricts the
        search to those move codes."""
        player = state.current_player
        trivial = self._trivial(state, player)
        if trivial:
            return trivial
        self.searches += 1
        start = time.perf_counter()
        if self.root_solver and root_moves is None:
            proven = self._root_proof(state, player)
            if proven:
                return proven
        if root_moves is None:
            root_moves = self._root_without_futile(state)
        worlds = self._sampled_worlds(state, player)
        workers = self._workers_for(
            state, state.to_bytes(), player, self.workers, self.memory_bytes, root_moves, worlds
        )
        # the inference's time comes out of the move's budget
        run_time = search_time(self.time_limit) and max(
            0.001, search_time(self.time_limit) - (time.perf_counter() - start)
        )
        if on_progress is None:
            self._run(workers, self.iterations, run_time)
        else:
            self._plan(workers, self.iterations, run_time)
            while True:
                done = sum(w.iterations for w in workers)
                left = run_time - (time.perf_counter() - start) if run_time else every
                finished = self.iterations and done >= self.iterations
                if finished or left <= 0 or self._proven_root_move(workers) is not None:
                    break
                self._run(workers, max(0, self.iterations - done), min(every, left))
                on_progress(
                    self._result(
                        state,
                        player,
                        workers,
                        time.perf_counter() - start,
                        sum(w.iterations for w in workers),
                    )
                )
        seconds = time.perf_counter() - start
        iterations = sum(w.iterations for w in workers)
        result = self._result(state, player, workers, seconds, worlds=iterations)
        if worlds is not None and not worlds.states:
            result.notes.append("no world fits the opponent's observed moves: sampled uniformly")
        return result

    def _root_without_futile(self, state: State) -> list[int] | None:
        """The root moves to search when the game names some futile
        (GamePlugin.futile_moves) and `futile_moves` is "skip": the legal
        moves but those, unless every legal move is one (None: all of them)."""
        plugin = find_plugin(state.game.name)
        if self.futile_moves != "skip" or plugin is None or plugin.futile_moves is None:
            return None
        futile = set(plugin.futile_moves(state))
        if not futile:
            return None
        kept = [move.code for move in state.legal_moves() if move.code not in futile]
        return kept or None

    def _root_proof(self, state: State, player: int) -> SearchResult | None:
        """The exact solver over the rest of the turn, on a world drawn from
        the player's information: a result naming the move it proves best in
        every world (`proven_best`), or None (the search then runs)."""
        start = time.perf_counter()
        solved = solve(
            state,
            player,
            worlds=1,
            budget=root_solver_budget(self.time_limit),
            seed=self.seed * 1_000_033 + self.searches,
            public_only=True,
        )
        best = proven_best(solved)
        if best is None:
            return None
        # the moves in the solver's order (best first, unsolved last at 0)
        moves = [
            MoveStat(v.move, 0, v.win or 0.0, v.win or 0.0, (v.move.text,)) for v in solved.moves
        ]
        note = f"proven by the exact solver over the rest of the turn ({solved.nodes:,} positions)"
        return SearchResult(
            player, moves, 0, 1, 0, 0, time.perf_counter() - start, 0, [note], proven=True
        )


#: what the solver at the root (`root_solver`) may spend before each search:
#: positions (which fix its answer whatever the machine's load) and, as a
#: guard, seconds (at most a quarter of a timed move's budget)
ROOT_SOLVER_NODES = 20_000
ROOT_SOLVER_SECONDS = 1.0


def root_solver_budget(time_limit: float) -> Budget:
    seconds = min(ROOT_SOLVER_SECONDS, time_limit / 4) if time_limit else ROOT_SOLVER_SECONDS
    return Budget(seconds=seconds, nodes=ROOT_SOLVER_NODES, table_entries=ROOT_SOLVER_NODES)


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

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.search_settings.check_trees(self.worlds)
        share = self.iterations // self.worlds if self.iterations else ""
        self.name = f"pimc({self.worlds}x{share})"

    def analyse(self, state: State) -> SearchResult:
        player = state.current_player
        trivial = self._trivial(state, player)
        if trivial:
            return trivial
        self.searches += 1
        start = time.perf_counter()
        votes: dict[int, int] = {}
        all_workers = []
        rule = self._settings_for(state.game).root_rule
        share = search_time(self.time_limit) / self.worlds if self.time_limit else 0.0
        for _ in range(self.worlds):
            world = state.resample(player, self.rng)
            workers = self._workers_for(
                state, world.to_bytes(), player, 1, self.memory_bytes // self.worlds
            )
            self._run(
                workers, max(1, self.iterations // self.worlds) if self.iterations else 0, share
            )
            stats = workers[0].root_statistics()
            best = min(
                stats, key=lambda s: self._rank_key(rule, s[1], s[2] / max(1, s[1]), s[3], s[0])
            )[0]
            votes[best] = votes.get(best, 0) + 1
            all_workers.extend(workers)
        result = self._result(
            state, player, all_workers, time.perf_counter() - start, worlds=self.worlds
        )
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
        workers = self._workers_for(
            state, state.to_bytes(), player, self.workers, self.memory_bytes
        )
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
                code = self.rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[
                    0
                ]
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
        "moves": [
            {
                "move": m.move.text,
                "visits": m.visits,
                "win_probability": round(m.win_probability, 4),
                "lower_bound": round(m.lower_bound, 4),
                "principal_variation": list(m.principal_variation),
            }
            for m in result.moves[:top]
        ],
        "iterations": result.iterations,
        "worlds": result.worlds,
        "nodes": result.nodes,
        "bytes_per_node": round(result.bytes_per_node, 1),
        "seconds": round(result.seconds, 3),
        "notes": result.notes,
        "proven": result.proven,
    }
