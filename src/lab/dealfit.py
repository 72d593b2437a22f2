"""The deal-effect fit: a match's strength within a deal.

Each deal d of a match is played twice, seats swapped. The model:

    P(A wins | deal d, A in seat 0) = σ(α + u_d + D)
    P(A wins | deal d, A in seat 1) = 1 − σ(α + u_d − D),    u_d ~ N(0, τ²)

σ the logistic function; α the first seat's advantage, u_d the deal's own
effect (shared by both games of the deal: a deal that favours the first seat
favours it whoever sits there), τ the spread of the deals, and D bot A's edge
within a deal. The four outcomes of a paired deal (A won both, A won from
seat 0 only, from seat 1 only, neither) identify α, τ and D: the model is
saturated on them.

D is a logit, quoted in Elo: ``Elo = D · 400 / ln 10`` (σ(D) is the logistic
of base e, logistic Elo the one of base 10^(1/400)). It is the Elo a bot
would show on a deal that both seats find even (α + u_d = 0); the score
shows less of it the more the deals are decided by seat: near 50% a gain of
D within a deal moves the mean score by ``score_factor`` times what it would
without deal effects (``4 E[σ'(α + u)]``).

The fit is maximum likelihood over (α, τ, D), u_d integrated out by
Gauss–Hermite quadrature (`NODES` nodes), maximised by a damped Newton
method on the exact gradient and Hessian. A draw
counts as half a win and half a loss (the factor p^½ (1−p)^½, as in
Bradley–Terry with ties split): the fit is then a quasi-likelihood, the
usual treatment where draws are rare (a turn limit, say).
A deal played from one seat only adds its one game. The interval of D is
the profile-likelihood one: the D whose likelihood, maximised over α and τ,
is within χ²₁(0.95)/2 = 1.92 of the maximum.

Each of the four outcomes of a complete deal counts `PSEUDO_DEALS` (0.001)
more deals than it has, as Fishtest regularises empty pentanomial counts,
and the parameters stay within `BOUND` (τ within `TAU_BOUND`): data of one
outcome only (every deal won twice by A, or every deal won by the first
seat) gives a finite fit at the edge, and the fit says so (`note`).

>>> fit = fit_deals([(1, 0), (1, 1), (0, 1), (1, 0), (0, 0), (1, 1)] * 10)
>>> round(fit.elo), fit.deals
(60, 60)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

#: Elo per logit of the edge within a deal: 400 / ln 10
ELO_PER_LOGIT = 400 / math.log(10)
#: Gauss–Hermite nodes: the cell probabilities are within 1e-4 of the exact
#: integral for τ up to 5 (the largest deal spread measured is about 5)
NODES = 128
#: |α| and |D| stay within this many logits (a 1 − 6e-6 win rate)
BOUND = 12.0
#: τ stays within this (the quadrature loses precision beyond)
TAU_BOUND = 8.0
#: a fit starts with its free parameters within this
START_BOUND = 5.0
#: each of the four outcomes of a complete deal counts this many deals more
PSEUDO_DEALS = 1e-3
#: half the 95% quantile of χ² with one degree of freedom
PROFILE_DROP = 1.920729410347062

_X, _W = np.polynomial.hermite.hermgauss(NODES)
_NODES = math.sqrt(2) * _X
_LOG_WEIGHTS = np.log(_W / math.sqrt(math.pi))

#: the games of one deal: A's score with A in seat 0 and in seat 1 (0, 0.5
#: or 1; None for a seat from which the deal was not played)
Deal = tuple[float | None, float | None]


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = -np.logaddexp(0.0, -x)
    return result


@dataclass(frozen=True)
class Outcomes:
    """A match's games reduced to what the likelihood needs: for each kind
    of deal, (A's points from seat 0, A's lost points from seat 0, the same
    from seat 1) and how many deals were of that kind."""

    kinds: np.ndarray  # (kinds, 4): won and lost points from seat 0, then seat 1
    counts: np.ndarray  # (kinds,)
    deals: int  # deals played from both seats
    games: int
    seat_wins: tuple[int, int, int, int]  # complete decisive deals: WW, WL, LW, LL

    @classmethod
    def of(cls, deals: Iterable[Deal]) -> Outcomes:
        kinds: dict[tuple[float, float, float, float], float] = {}
        complete = games = 0
        seat_wins = Counter[tuple[float | None, float | None]]()
        for y0, y1 in deals:
            for y in (y0, y1):
                if y is not None and y not in (0, 0.5, 1):
                    raise ValueError(f"a game's score is 0, 0.5 or 1, not {y}")
            if y0 is None and y1 is None:
                continue
            complete += y0 is not None and y1 is not None
            games += (y0 is not None) + (y1 is not None)
            seat_wins[(y0, y1)] += 1
            kind = (
                y0 or 0.0,
                0.0 if y0 is None else 1 - y0,
                y1 or 0.0,
                0.0 if y1 is None else 1 - y1,
            )
            kinds[kind] = kinds.get(kind, 0.0) + 1
        for won0, won1 in ((1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)):
            kind = (won0, 1 - won0, won1, 1 - won1)
            kinds[kind] = kinds.get(kind, 0.0) + PSEUDO_DEALS
        table = sorted(kinds.items())
        return cls(
            np.array([kind for kind, _ in table], dtype=float),
            np.array([count for _, count in table], dtype=float),
            complete,
            games,
            (seat_wins[(1, 1)], seat_wins[(1, 0)], seat_wins[(0, 1)], seat_wins[(0, 0)]),
        )

    def log_likelihood(self, alpha: float, tau: float, d: float) -> float:
        """log L(α, τ, D): each kind's integral over u_d by Gauss–Hermite."""
        return self.derivatives(alpha, tau, d, order=0)[0]

    def derivatives(
        self, alpha: float, tau: float, d: float, order: int = 2
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """log L(α, τ, D), its gradient and its Hessian in (α, τ, D) (zeros
        below `order`). log L is even in τ (the nodes are symmetric), so τ
        may be given negative."""
        x = _NODES
        seat0 = alpha + tau * x + d  # logit of A winning from seat 0
        seat1 = d - alpha - tau * x  # logit of A winning from seat 1
        logs = _log_sigmoid(np.stack([seat0, -seat0, seat1, -seat1]))  # (4, nodes)
        per_node = self.kinds @ logs + _LOG_WEIGHTS  # (kinds, nodes)
        top = per_node.max(axis=1)
        weights = np.exp(per_node - top[:, None])
        sums = weights.sum(axis=1)
        value = float(self.counts @ (top + np.log(sums)))
        gradient, hessian = np.zeros(3), np.zeros((3, 3))
        if order == 0:
            return value, gradient, hessian
        posterior = weights / sums[:, None] * self.counts[:, None]  # counts × P(node | kind)
        won0, lost0, won1, lost1 = (self.kinds[:, i : i + 1] for i in range(4))
        p0, p1 = 1 / (1 + np.exp(-seat0)), 1 / (1 + np.exp(-seat1))
        e0 = won0 - (won0 + lost0) * p0  # d g / d seat0, g a node's log term
        e1 = won1 - (won1 + lost1) * p1
        # d seat0 = (1, x, 1) . d(α, τ, D), d seat1 = (-1, -x, 1) . d(α, τ, D)
        parts = np.stack([e0 - e1, (e0 - e1) * x, e0 + e1])  # (3, kinds, nodes)
        means = (parts * posterior).sum(axis=2) / self.counts  # (3, kinds)
        gradient = means @ self.counts
        h0 = -(won0 + lost0) * p0 * (1 - p0)
        h1 = -(won1 + lost1) * p1 * (1 - p1)
        plus, minus = h0 + h1, h0 - h1
        curvature = np.stack(
            [
                np.stack([plus, plus * x, minus]),
                np.stack([plus * x, plus * x * x, minus * x]),
                np.stack([minus, minus * x, plus]),
            ]
        )  # (3, 3, kinds, nodes)
        outer = parts[:, None] * parts[None, :]
        hessian = ((curvature + outer) * posterior).sum(axis=(2, 3)) - np.einsum(
            "ic,jc,c->ij", means, means, self.counts
        )
        return value, gradient, hessian


def pair_score(alpha: float, tau: float, d: float) -> float:
    """Bot A's expected mean score on a deal (two games, seats swapped) at
    edge D within a deal: ½ + ½ E[σ(α + u + D) − σ(α + u − D)]. It is ½ at
    D = 0 whatever α and τ, rises with D, and 1 − pair_score(−D)."""
    u = tau * _NODES
    weights = np.exp(_LOG_WEIGHTS)
    gap = 1 / (1 + np.exp(-(alpha + u + d))) - 1 / (1 + np.exp(-(alpha + u - d)))
    return float(0.5 + 0.5 * (weights @ gap))


def score_factor(alpha: float, tau: float) -> float:
    """How much of an edge within a deal shows in the mean score near 50%:
    d(pair score)/dD at D = 0, over its value without deal effects (¼):
    4 E[σ(α + u)(1 − σ(α + u))]."""
    p = 1 / (1 + np.exp(-(alpha + tau * _NODES)))
    return float(4 * (np.exp(_LOG_WEIGHTS) @ (p * (1 - p))))


def maximise(
    outcomes: Outcomes,
    start: Sequence[float],
    free: Sequence[int] = (0, 1, 2),
    iterations: int = 100,
) -> tuple[np.ndarray, float]:
    """The maximum of log L over the `free` parameters of (α, τ, D), the
    others held at `start`'s: Newton's method damped as Levenberg–Marquardt
    (the step solves (λI − H) δ = ∇, λ raised until the step gains and
    lowered after), the parameters kept within the bounds. τ starts at 0.5
    at least (log L is even in τ, so τ = 0 is a stationary point) and the
    free parameters within ±`START_BOUND` (where the logistic saturates,
    log L is too flat for a step to leave)."""
    theta = _clipped(np.array(start, dtype=float))
    theta[1] = max(abs(theta[1]), 0.5)
    for i in free:
        theta[i] = min(max(theta[i], -START_BOUND), START_BOUND)
    index = np.array(free)
    value, gradient, hessian = outcomes.derivatives(*theta)
    damping = 1e-3
    for _ in range(iterations):
        g = gradient[index]
        if float(np.max(np.abs(g))) < 1e-9:
            break
        h = hessian[np.ix_(index, index)]
        while damping < 1e12:
            try:
                step = np.linalg.solve(damping * np.eye(len(index)) - h, g)
            except np.linalg.LinAlgError:
                damping *= 10
                continue
            trial = theta.copy()
            trial[index] += step
            trial = _clipped(trial)
            trial_value = outcomes.log_likelihood(*trial)
            if trial_value >= value:
                break
            damping *= 10
        else:
            break  # no step gains: a maximum to the precision of the sums
        moved = float(np.max(np.abs(trial - theta)))
        gained = trial_value - value
        theta = trial
        value, gradient, hessian = outcomes.derivatives(*theta)
        damping = max(damping / 10, 1e-9)
        if moved < 1e-9 or gained < 1e-10 and moved < 1e-4:
            break  # at the maximum, or on a ridge toward a bound that gains nothing more
    theta[1] = abs(theta[1])
    return theta, value


@dataclass(frozen=True)
class DealFit:
    """The fitted model (logits): the first seat's advantage `alpha`, the
    deals' spread `tau`, bot A's edge within a deal `d` and its 95%
    profile-likelihood interval; `note` says where the data do not bound
    the fit."""

    alpha: float
    tau: float
    d: float
    d_low: float
    d_high: float
    deals: int
    games: int
    log_likelihood: float
    note: str | None = None

    @property
    def elo(self) -> float:
        return self.d * ELO_PER_LOGIT + 0.0

    @property
    def elo_interval(self) -> tuple[float, float]:
        return self.d_low * ELO_PER_LOGIT + 0.0, self.d_high * ELO_PER_LOGIT + 0.0

    @property
    def score_factor(self) -> float:
        return score_factor(self.alpha, self.tau)

    def pair_score(self, elo: float) -> float:
        """The expected mean per-deal score of an edge of `elo` within a deal
        at the fitted α and τ."""
        return pair_score(self.alpha, self.tau, elo / ELO_PER_LOGIT)

    def summary(self) -> dict[str, object]:
        low, high = self.elo_interval
        return {
            "elo": round(self.elo, 1),
            "elo_interval95": [round(low, 1), round(high, 1)],
            "alpha": round(self.alpha, 3),
            "tau": round(self.tau, 3),
            "d": round(self.d, 4),
            "score_factor": round(self.score_factor, 3),
            "deals": self.deals,
            "note": self.note,
        }

    def text(self) -> str:
        low, high = self.elo_interval
        ends = [
            f"{'≤ ' if low <= -BOUND * ELO_PER_LOGIT + 1e-6 else ''}{low:+.0f}",
            f"{'≥ ' if high >= BOUND * ELO_PER_LOGIT - 1e-6 else ''}{high:+.0f}",
        ]
        return (
            f"Elo within a deal {self.elo:+.0f} [{ends[0]}, {ends[1]}] (deal-effect fit: "
            f"seat-0 edge α {self.alpha:.2f}, deal spread τ {self.tau:.2f}, a gain within "
            f"a deal shows in the score at {self.score_factor:.2f}x"
            + (f"; {self.note}" if self.note else "")
            + ")"
        )


def _clipped(theta: np.ndarray) -> np.ndarray:
    """(α, τ, D) within the bounds."""
    result: np.ndarray = np.clip(theta, [-BOUND, -TAU_BOUND, -BOUND], [BOUND, TAU_BOUND, BOUND])
    return result


def _start(outcomes: Outcomes) -> list[float]:
    """A first guess: α and D from the seat's and bot A's win rates."""
    kinds, counts = outcomes.kinds, outcomes.counts
    won0, lost0, won1, lost1 = (float(counts @ kinds[:, i]) for i in range(4))
    seat0_wins = won0 + lost1  # seat 0 won: A from seat 0, or B when A sat in seat 1
    seat1_wins = lost0 + won1
    a_wins, a_losses = won0 + won1, lost0 + lost1
    return [
        0.5 * math.log((seat0_wins + 1) / (seat1_wins + 1)),
        1.0,
        0.5 * math.log((a_wins + 1) / (a_losses + 1)),
    ]


def _profile(outcomes: Outcomes, d: float, start: Sequence[float]) -> float:
    """max over α and τ of log L(α, τ, D) at this D."""
    return maximise(outcomes, [start[0], start[1], d], free=(0, 1))[1]


def fit_point(
    outcomes: Outcomes, start: Sequence[float] | None = None
) -> tuple[float, float, float, float]:
    """The maximum-likelihood (α, τ, D) and the log-likelihood there, from
    `start` (e.g. the fit of the same match a deal shorter) or a guess."""
    point, value = maximise(outcomes, start if start is not None else _start(outcomes))
    alpha, tau, d = (float(v) for v in point)
    return alpha, tau, d, value


def fit_outcomes(outcomes: Outcomes, start: Sequence[float] | None = None) -> DealFit:
    """The maximum-likelihood fit with D's profile-likelihood interval."""
    alpha, tau, d, best = fit_point(outcomes, start)
    nuisance = [alpha, tau]

    def end(direction: float) -> float:
        """Where the profile likelihood falls PROFILE_DROP below the
        maximum on this side of D̂ (the bound if it never does)."""
        inside, step = d, 0.1
        while True:
            outside = min(max(inside + direction * step, -BOUND), BOUND)
            if best - _profile(outcomes, outside, nuisance) > PROFILE_DROP:
                break
            inside = outside
            if abs(outside) >= BOUND:
                return outside
            step *= 2
        while abs(outside - inside) > 1e-4:
            middle = (inside + outside) / 2
            if best - _profile(outcomes, middle, nuisance) > PROFILE_DROP:
                outside = middle
            else:
                inside = middle
        return (inside + outside) / 2

    return DealFit(
        alpha,
        tau,
        d,
        end(-1.0),
        end(1.0),
        outcomes.deals,
        outcomes.games,
        best,
        _note(outcomes, tau),
    )


def _note(outcomes: Outcomes, tau: float) -> str | None:
    """What the data leave unbounded, in words (None if nothing)."""
    if outcomes.deals == 0:
        return "no deal was played from both seats: α, τ and D rest on single games"
    ww, wl, lw, ll = outcomes.seat_wins
    notes = []
    if ww == outcomes.deals or ll == outcomes.deals:
        side = "won" if ww else "lost"
        notes.append(f"A {side} every game: only the bound keeps D finite")
    if wl == outcomes.deals or lw == outcomes.deals:
        notes.append("one seat won every game: only the bound keeps α finite")
    elif tau >= TAU_BOUND - 0.1:
        notes.append("the deals split by seat as far as they can: τ is at its bound")
    return "; ".join(notes) or None


def fit_deals(deals: Iterable[Deal], start: Sequence[float] | None = None) -> DealFit:
    """The fit of a match given as its deals, each (A's score from seat 0,
    A's score from seat 1), None for a game not played."""
    return fit_outcomes(Outcomes.of(deals), start)
