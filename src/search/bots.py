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
from typing import Any, Callable

from xenophon.errors import XenophonError
from xenophon.game import Move, State
from xenophon.search.ismcts import Worker

DEFAULT_MEMORY_MB = 256


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

    def choose(self, state: State) -> Move:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class RandomBot(Bot):
    """Uniformly random among the legal moves."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.name = "random"

    def choose(self, state: State) -> Move:
        return self.rng.choice(state.legal_moves())


class SearchBot(Bot):
    """Shared machinery of the tree searches: budgets, workers, results."""

    resample = True

    def __init__(self, iterations: int | None = 2000, time_limit: float | None = None,
                 workers: int = 1, seed: int = 0, c_uct: float = 0.4, cutoff_turns: int = 4,
                 memory_mb: float = DEFAULT_MEMORY_MB, temperature: float = 0.0,
                 max_playout_actions: int = 2000, uniform_playouts: bool = False):
        if not iterations and not time_limit:
            raise XenophonError("a search needs an iteration budget, a time budget, or both")
        if workers < 1:
            raise XenophonError("workers must be at least 1")
        self.iterations = iterations or 0
        self.time_limit = time_limit or 0.0
        self.workers = workers
        self.seed = seed
        self.c_uct = c_uct
        self.cutoff_turns = cutoff_turns
        self.memory_bytes = int(memory_mb * 1024 * 1024)
        self.temperature = temperature
        self.max_playout_actions = max_playout_actions
        # uniformly random playout actions instead of the game's policy (to
        # compare with searches that use random rollouts)
        self.uniform_playouts = uniform_playouts
        self.rng = random.Random(seed)
        self.searches = 0

    def reseed(self, seed: int) -> None:
        """Starts the bot's randomness afresh from `seed`, as if it were new:
        a game that derives the seed from the position makes the bot's choice
        there the same every time (so taking a move back cannot re-roll it)."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.searches = 0

    # -- running workers ----------------------------------------------------
    def _workers_for(self, state: State, root: bytes, player: int, count: int,
                     memory_bytes: int, root_moves: list[int] | None = None) -> list[Worker]:
        api, tables = state.game.search_interface()
        base = self.seed * 1_000_003 + self.searches * 7919
        return [Worker(api, tables, root, player, (base + index * 104_729) & (2**63 - 1),
                       self.c_uct, self.cutoff_turns, self.max_playout_actions, self.resample,
                       memory_bytes, state.game, root_moves, self.uniform_playouts)
                for index in range(count)]

    def _run(self, workers: list[Worker], iterations: int, time_limit: float) -> None:
        shares = [iterations // len(workers) + (1 if i < iterations % len(workers) else 0)
                  for i in range(len(workers))] if iterations else [0] * len(workers)
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
        merged: dict[int, list[float]] = {}
        for worker in workers:
            for code, visits, value_sum in worker.root_statistics():
                entry = merged.setdefault(code, [0, 0.0])
                entry[0] += visits
                entry[1] += value_sum
        return merged

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
        for code, (visits, value_sum) in merged.items():
            mean = value_sum / visits if visits else 0.0
            probability = (mean + 1) / 2
            stats.append((code, int(visits), probability))
        stats.sort(key=lambda s: (-s[1], -s[2], s[0]))
        lead = max(workers, key=lambda w: w.iterations)
        moves = []
        for rank, (code, visits, probability) in enumerate(stats):
            line: tuple[str, ...] = ()
            if rank < 5 and visits:
                pv = lead.principal_variation(code, 8, self.rng.getrandbits(63))
                line = (legal[code].text,) + self._describe_line(state, pv)
            moves.append(MoveStat(legal[code], visits, probability,
                                  wilson_lower_bound(probability, visits), line))
        iterations = sum(w.iterations for w in workers)
        notes = ["tree full: the search went on without growing"] \
            if any(w.tree_full for w in workers) else []
        return SearchResult(player, moves, iterations, worlds, sum(w.nodes for w in workers),
                            sum(w.tree_bytes for w in workers), seconds, len(workers), notes)

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

    def choose_from(self, result: SearchResult) -> Move:
        """The move to play from a search result: most visits, or with a
        temperature, a draw weighted by visits ** (1 / temperature)."""
        if self.temperature <= 0 or len(result.moves) == 1:
            return result.best.move
        weights = [m.visits ** (1 / self.temperature) for m in result.moves]
        if sum(weights) == 0:
            return result.best.move
        return self.rng.choices([m.move for m in result.moves], weights=weights)[0]

    def analyse(self, state: State) -> SearchResult:
        raise NotImplementedError


class ISMCTSBot(SearchBot):
    """Information-set MCTS from the player to move's information only."""

    resample = True

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        budget = [f"{self.iterations}it"] if self.iterations else []
        budget += [f"{self.time_limit:g}s"] if self.time_limit else []
        self.name = f"ismcts({' '.join(budget)})"

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
        workers = self._workers_for(state, state.to_bytes(), player, self.workers,
                                    self.memory_bytes // self.workers, root_moves)
        run_time = search_time(self.time_limit)
        if on_progress is None:
            self._run(workers, self.iterations, run_time)
        else:
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
        return self._result(state, player, workers, seconds, worlds=iterations)


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

    def __init__(self, *args: Any, worlds: int = 8, **kwargs: Any):
        super().__init__(*args, **kwargs)
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
            best = max(stats, key=lambda s: (s[1], s[2]))[0]
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
                                    self.memory_bytes // self.workers)
        self._run(workers, self.iterations, search_time(self.time_limit))
        return self._result(state, player, workers, time.perf_counter() - start, worlds=1)


class GreedyBot(Bot):
    """One ply with the static evaluation; chance after the move by expectation
    (exhaustively while at most `max_branches` leaves, else by sampling)."""

    def __init__(self, seed: int | None = None, max_branches: int = 64, samples: int = 8):
        self.rng = random.Random(seed)
        self.max_branches = max_branches
        self.samples = samples
        self.name = "greedy"

    def _value(self, state: State, player: int, branches: int) -> float:
        if state.is_terminal():
            return state.returns()[player]
        if not state.is_chance():
            return state.backend.evaluate(player)
        outcomes = state.backend.chance_outcomes()
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
