"""The exact solver: each legal move's win probability over the rest of the
turn (and, if asked, through the opponent's next turn), by expectimax.

>>> result = solve(state, seat=0)                       # doctest: +SKIP
>>> result.moves[0].move.text, result.moves[0].win, result.moves[0].exact

Within one world (a full state drawn from the seat's information, never the
true one) the solver takes the maximum over the seat's own actions, the
minimum over the opponent's (its response windows, and its whole turn with
`through_reply`), and the expectation over every chance outcome with its
probability. The horizon ends when the game ends (an exact 0, ½ or 1) or
when the turn counter passes the horizon's last turn; a position left
undecided there is scored by the game's static evaluation, as a search
leaf is, and the values it reaches are marked not exact. A value is exact
when every leaf it rests on is the end of the game, or when it is a proven
win (a 1 the seat can reach) or loss (a 0 the opponent can force).

Worlds: the hidden cards reach the horizon only through the opponent's
decisions and through chance outcomes the seat is not shown. When the first
world's tree met neither, its values hold in every world the seat cannot
tell apart and one world is reported; otherwise the values are the weighted
average over `worlds` worlds of the draw (the search's own samplers,
`xenophon.search.belief`), and said to be.

Bounded: a transposition table on each world's state hash, at most
`Budget.table_entries` entries in all (further positions are solved but not
stored), and at most `Budget.nodes` positions visited and `Budget.seconds`
seconds; a move whose value was not finished in every world when either
runs out is reported "not solved within the budget" (with `estimate`, the moves
are deepened a ply at a time and keep the value of their deepest look-ahead:
`deepen`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import resolve
from xenophon.kernel.game import Move, State
from xenophon.search.belief import WorldDraw, draw_uniform_world

#: the default budget of a solve
DEFAULT_SECONDS = 10.0
DEFAULT_NODES = 5_000_000
DEFAULT_TABLE_ENTRIES = 1_000_000
#: worlds averaged over when the horizon depends on hidden cards, unless told
DEFAULT_WORLDS = 8
MAX_WORLDS = 1000
#: how far a proven best move must be above every other (`proven_best`)
PROOF_MARGIN = 0.10
#: how many positions are visited between two looks at the clock
CLOCK_STRIDE = 512


class OutOfBudget(Exception):
    """The solve ran out of positions or time."""


class HiddenMet(Exception):
    """A solve that proves only what holds in every world (`public_only`)
    met an opponent decision or a chance outcome hidden from the seat."""


@dataclass(frozen=True)
class Budget:
    """What a solve may spend: seconds, positions visited, table entries."""

    seconds: float = DEFAULT_SECONDS
    nodes: int = DEFAULT_NODES
    table_entries: int = DEFAULT_TABLE_ENTRIES

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise XenophonError("a solve needs a time budget above 0 seconds")
        if self.nodes < 1 or self.table_entries < 0:
            raise XenophonError("a solve needs at least one position and no negative table size")


@dataclass(frozen=True)
class MoveValue:
    """One root move: its win probability for the seat within the horizon
    (None when not solved within the budget) and whether the horizon
    decides it (exact) or the evaluation scored some of its leaves."""

    move: Move
    win: float | None
    exact: bool
    #: the plies the value looked ahead when the budget ran out before the
    #: horizon (an estimate: `solve(estimate=True)`); None: the whole horizon
    depth: int | None = None

    @property
    def solved(self) -> bool:
        return self.win is not None


@dataclass
class SolveResult:
    """A solve of one position for one seat."""

    seat: int
    through_reply: bool
    #: worlds the values are averaged over (1: the horizon met no hidden card)
    worlds: int
    hidden_matters: bool
    moves: list[MoveValue]
    nodes: int
    table_entries: int
    seconds: float
    exhausted: bool
    #: the bound that stopped the solve: "time", "positions" (None: neither)
    stopped_by: str | None = None

    @property
    def best(self) -> MoveValue:
        return self.moves[0]

    def value_of(self, text: str) -> MoveValue:
        for value in self.moves:
            if value.move.text == text:
                return value
        raise KeyError(text)


@dataclass
class _Spending:
    """What the solve has spent so far, checked against its budget and
    against the share of it the move being solved may take."""

    budget: Budget
    started: float = field(default_factory=time.monotonic)
    nodes: int = 0
    stored: int = 0
    node_limit: int = 0
    deadline: float = 0.0

    def share(self, moves_left: int) -> None:
        """Lets the next move take an equal share of what is left among
        `moves_left` moves (a move that needs less leaves the rest to the others)."""
        self.node_limit = self.nodes + (self.budget.nodes - self.nodes) // moves_left
        now = time.monotonic()
        self.deadline = now + (self.started + self.budget.seconds - now) / moves_left

    #: the bound that stopped the solve ("time", "positions"), once one has
    stopped_by: str | None = None

    def visit(self) -> None:
        self.nodes += 1
        if self.nodes > self.node_limit:
            self.stopped_by = "positions"
            raise OutOfBudget
        if self.nodes % CLOCK_STRIDE == 0 and time.monotonic() > self.deadline:
            self.stopped_by = "time"
            raise OutOfBudget

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def may_store(self) -> bool:
        return self.stored < self.budget.table_entries


def proven_best(result: SolveResult, margin: float = PROOF_MARGIN) -> MoveValue | None:
    """The move `result` proves best in every world the seat cannot tell
    apart, or None. Proven: the first world met no opponent decision and no
    chance outcome hidden from the seat (so its values hold in every world),
    and the best move is exact and either a win (1: nothing does better) or
    at least `margin` above every other move, each solved and exact."""
    if result.hidden_matters or not result.moves:
        return None
    best = result.best
    if best.win is None or not best.exact:
        return None
    if best.win == 1.0:
        return best
    others = result.moves[1:]
    if all(m.exact and m.win is not None and best.win - m.win >= margin for m in others):
        return best
    return None


def win_from_returns(returns: list[float], seat: int) -> float:
    """A finished game's result for `seat` as a win probability (draw ½)."""
    return (returns[seat] + 1.0) / 2.0


def evaluator(state: State):
    """backend, seat -> the win probability the game's default evaluation
    gives a position (what a search leaf is scored with), in [0, 1]."""
    learned = resolve(state.game, "default") == "learned"

    def evaluate(backend, seat: int) -> float:
        score = backend.evaluate_learned(seat) if learned else backend.evaluate(seat)
        return min(1.0, max(0.0, (score + 1.0) / 2.0))

    return evaluate


class WorldSolver:
    """Expectimax over one world's horizon, with its own transposition table."""

    def __init__(
        self,
        world: State,
        seat: int,
        last_turn: int,
        spending: _Spending,
        public_only: bool = False,
        horizon_loses: bool = False,
    ):
        self.world = world
        #: a position past the horizon counts as not won, exactly (`solve`)
        self.horizon_loses = horizon_loses
        #: stop (HiddenMet) at the first position whose value may differ between worlds
        self.public_only = public_only
        self.seat = seat
        self.last_turn = last_turn
        self.spending = spending
        self.evaluate = evaluator(world)
        self.table: dict[int | tuple[int, int], tuple[float, bool]] = {}
        #: the tree met an opponent decision or a chance outcome hidden from the seat
        self.hidden_met = False
        #: plies looked ahead at most (None: to the horizon), the ply of the
        #: position being valued, and whether the limit cut some line short
        self.limit: int | None = None
        self.ply = 0
        self.cut = False
        #: the table's positions whose value a cut line reached
        self.cut_keys: set[int | tuple[int, int]] = set()

    def limited(self, limit: int | None) -> None:
        """Values from now on look `limit` plies ahead at most (a position
        there is scored as at the horizon); a fresh table, its values being
        the limit's."""
        self.limit, self.cut = limit, False
        self.table, self.cut_keys = {}, set()

    def move_value(self, code: int) -> tuple[float, bool]:
        """(win, exact) of the root move `code` in this world."""
        backend = self.world.backend.clone()
        backend.apply(code)
        self.ply = 1
        return self.value(backend)

    def value(self, backend) -> tuple[float, bool]:
        """(win probability for the seat, exact) of a position within the horizon."""
        self.spending.visit()
        if backend.is_terminal():
            return win_from_returns(backend.returns(), self.seat), True
        if backend.turn() > self.last_turn:
            if self.horizon_loses:
                return 0.0, True
            return self.evaluate(backend, self.seat), False
        key: int | tuple[int, int] = backend.hash()
        if self.limit is not None:
            if self.ply >= self.limit:
                self.cut = True
                return self.evaluate(backend, self.seat), False
            key = (backend.hash(), self.limit - self.ply)
        known = self.table.get(key)
        if known is not None:
            self.cut = self.cut or key in self.cut_keys
            return known
        outer_cut, self.cut = self.cut, False
        if backend.is_chance():
            result = self.chance_value(backend)
        else:
            result = self.decision_value(backend)
        if self.spending.may_store():
            self.table[key] = result
            self.spending.stored += 1
            if self.cut:
                self.cut_keys.add(key)
        self.cut = self.cut or outer_cut
        return result

    def meet_hidden(self) -> None:
        self.hidden_met = True
        if self.public_only:
            raise HiddenMet

    def child_value(self, backend, code: int) -> tuple[float, bool]:
        backend.apply(code)
        self.ply += 1
        try:
            return self.value(backend)
        finally:
            self.ply -= 1
            backend.undo()

    def chance_value(self, backend) -> tuple[float, bool]:
        outcomes = backend.chance_outcomes()
        if not self.hidden_met and any(
            not backend.observed_by(code, self.seat) for code, _ in outcomes
        ):
            self.meet_hidden()
        total, exact = 0.0, True
        for code, probability in outcomes:
            win, child_exact = self.child_value(backend, code)
            total += probability * win
            exact = exact and child_exact
        return total, exact

    def ends_with(self, backend, code: int, win: float) -> bool:
        """Whether the action `code` ends the game at once with `win` for the seat."""
        self.spending.visit()
        backend.apply(code)
        try:
            return backend.is_terminal() and win_from_returns(backend.returns(), self.seat) == win
        finally:
            backend.undo()

    def decision_value(self, backend) -> tuple[float, bool]:
        maximising = backend.current_player() == self.seat
        if not maximising:
            self.meet_hidden()
        proven = 1.0 if maximising else 0.0
        legal = backend.legal_actions()
        if any(self.ends_with(backend, code, proven) for code in legal):
            return proven, True  # a win in one (a mate in one) is looked for first
        best: tuple[float, bool] | None = None
        all_exact = True
        for code in legal:
            win, exact = self.child_value(backend, code)
            all_exact = all_exact and exact
            if exact and win == proven:
                return win, True  # nothing does better than a proven result
            if best is None or (win > best[0] if maximising else win < best[0]):
                best = (win, exact)
        assert best is not None
        return best[0], all_exact


def world_states(
    state: State, seat: int, draw: WorldDraw, seed: int
) -> Iterator[tuple[State, float]]:
    """Worlds drawn from `seat`'s information, with their weights, for ever."""
    rng = random.Random(seed)
    while True:
        yield draw(state, seat, rng)


def check_position(state: State, seat: int) -> None:
    if seat not in (0, 1):
        raise XenophonError("a solve is for a seat: give 0 or 1")
    if state.game.engine != "c":
        raise XenophonError("the solver runs on the C engine only")
    if state.is_terminal():
        raise XenophonError("the game is over: there is nothing to solve")
    if state.current_player != seat:
        raise XenophonError(f"seat {seat} is not to move in this position")


def solve(
    state: State,
    seat: int,
    through_reply: bool = False,
    worlds: int = DEFAULT_WORLDS,
    budget: Budget | None = None,
    seed: int = 0,
    draw: WorldDraw = draw_uniform_world,
    public_only: bool = False,
    horizon_loses: bool = False,
    estimate: bool = False,
) -> SolveResult:
    """Each legal move's win probability for `seat` (to move in `state`)
    over the rest of the turn, or through the opponent's next turn with
    `through_reply`; from `seat`'s information only (`draw` draws the worlds).
    With `public_only`, only values that hold in every world are wanted: the
    solve stops at the first opponent decision or hidden chance outcome and
    then reports every move unsolved, `hidden_matters` set. With
    `horizon_loses`, a position past the horizon counts as not won instead of
    the evaluation's estimate: each value is then, exactly, the probability
    of winning the game within the horizon. With `estimate`, the moves are
    solved a ply deeper at a time (`deepen`), so that a move the budget does
    not solve to the horizon keeps its value at the deepest look-ahead
    finished (`MoveValue.depth`)."""
    check_position(state, seat)
    if not 1 <= worlds <= MAX_WORLDS:
        raise XenophonError(f"worlds must be 1 to {MAX_WORLDS}")
    budget = budget or Budget()
    spending = _Spending(budget)
    last_turn = state.backend.turn() + (1 if through_reply else 0)
    moves = state.legal_moves()
    drawn = world_states(state, seat, draw, seed)
    if estimate:
        if horizon_loses:
            raise XenophonError("estimate and horizon_loses do not go together")
        return deepen(state, seat, through_reply, worlds, drawn, spending, last_turn)
    first, weight = next(drawn)
    solvers = [(WorldSolver(first, seat, last_turn, spending, public_only, horizon_loses), weight)]
    values: dict[int, list[tuple[float, bool]]] = {move.code: [] for move in moves}
    try:
        exhausted = _solve_moves(moves, solvers, values, spending)
    except HiddenMet:
        values = {move.code: [] for move in moves}
        exhausted = False
    hidden_matters = solvers[0][0].hidden_met
    if hidden_matters and worlds > 1 and not public_only:
        solved = [move for move in moves if values[move.code]]
        solvers += [
            (WorldSolver(world, seat, last_turn, spending, horizon_loses=horizon_loses), weight)
            for world, weight in (next(drawn) for _ in range(worlds - 1))
        ]
        exhausted = _solve_moves(solved, solvers[1:], values, spending) or exhausted
    weights = [weight for _, weight in solvers]
    counted = worlds if hidden_matters else 1
    results = [_move_value(move, values[move.code], weights, counted) for move in moves]
    results.sort(key=lambda value: (value.win is None, -(value.win or 0.0), value.move.code))
    return SolveResult(
        seat=seat,
        through_reply=through_reply,
        worlds=counted,
        hidden_matters=hidden_matters,
        moves=results,
        nodes=spending.nodes,
        table_entries=spending.stored,
        seconds=spending.elapsed(),
        exhausted=exhausted,
    )


def deepen(
    state: State,
    seat: int,
    through_reply: bool,
    worlds: int,
    drawn: Iterator[tuple[State, float]],
    spending: _Spending,
    last_turn: int,
) -> SolveResult:
    """Every move solved 1, 2, 3 ... plies ahead until each reaches the
    horizon or the budget runs out: each keeps the value of the deepest
    look-ahead finished in every world. The worlds are drawn when the tree
    first meets a hidden card: values found before hold in every world."""
    moves = state.legal_moves()
    first, weight = next(drawn)
    solvers = [(WorldSolver(first, seat, last_turn, spending), weight)]
    found: dict[int, MoveValue] = {}
    pending = list(moves)
    limit = 0
    spending.share(1)  # the whole budget, for all the moves together
    while pending and spending.stopped_by is None:
        limit += 1
        spending.stored = 0  # each look-ahead fills fresh tables
        for solver, _ in solvers:
            solver.limited(limit)
        for move in list(pending):
            value = _deepened(move, limit, solvers, drawn, worlds, spending)
            if value is None:
                break
            found[move.code] = value
            if value.depth is None:
                pending.remove(move)
    results = [found.get(move.code, MoveValue(move, None, False)) for move in moves]
    results.sort(key=lambda value: (value.win is None, -(value.win or 0.0), value.move.code))
    hidden = solvers[0][0].hidden_met
    return SolveResult(
        seat=seat,
        through_reply=through_reply,
        worlds=len(solvers) if hidden else 1,
        hidden_matters=hidden,
        moves=results,
        nodes=spending.nodes,
        table_entries=spending.stored,
        seconds=spending.elapsed(),
        exhausted=spending.stopped_by is not None,
        stopped_by=spending.stopped_by,
    )


def _deepened(
    move: Move,
    limit: int,
    solvers: list[tuple[WorldSolver, float]],
    drawn: Iterator[tuple[State, float]],
    worlds: int,
    spending: _Spending,
) -> MoveValue | None:
    """`move` valued `limit` plies ahead in every world (None: the budget ran
    out first); the first hidden card met draws the other worlds."""
    try:
        per_world = [solver.move_value(move.code) for solver, _ in solvers]
        if solvers[0][0].hidden_met and len(solvers) < worlds:
            for world, weight in (next(drawn) for _ in range(worlds - len(solvers))):
                solvers.append(
                    (
                        WorldSolver(world, solvers[0][0].seat, solvers[0][0].last_turn, spending),
                        weight,
                    )
                )
                solvers[-1][0].limited(limit)
                per_world.append(solvers[-1][0].move_value(move.code))
    except OutOfBudget:
        return None
    total = sum(weight for _, weight in solvers)
    win = sum(w * value for (_, w), (value, _) in zip(solvers, per_world)) / total
    cut = any(solver.cut for solver, _ in solvers)
    for solver, _ in solvers:
        solver.cut = False
    exact = all(exact for _, exact in per_world)
    return MoveValue(move, win, exact and not cut, None if not cut else limit)


def _solve_moves(
    moves: list[Move],
    solvers: list[tuple[WorldSolver, float]],
    values: dict[int, list[tuple[float, bool]]],
    spending: _Spending,
) -> bool:
    """Each move solved in every world of `solvers`, each move with an
    equal share of the budget left; a move that runs out of its share keeps
    no value (what its table entries hold is complete and stays). True if
    some move ran out."""
    exhausted = False
    for index, move in enumerate(moves):
        spending.share(len(moves) - index)
        try:
            found = [solver.move_value(move.code) for solver, _ in solvers]
        except OutOfBudget:
            values[move.code] = []
            exhausted = True
            continue
        values[move.code].extend(found)
    return exhausted


def _move_value(
    move: Move, per_world: list[tuple[float, bool]], weights: list[float], worlds: int
) -> MoveValue:
    if len(per_world) < worlds:
        return MoveValue(move, None, False)
    total = sum(weights[:worlds])
    win = sum(w * value for w, (value, _) in zip(weights, per_world)) / total
    return MoveValue(move, win, all(exact for _, exact in per_world))
