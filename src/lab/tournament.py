"""Matches between two bots: seats alternated, a seed schedule, all cores.

Bots and games are named by short spec strings so that worker processes can
build their own (bot specs: `xenophon.play.players`; ``"ismcts:iterations=2000"``,
``"pimc:worlds=8,iterations=2000"``, ``"greedy"``, ``"random"``, ``"cheat:iterations=2000"``, and
with OpenSpiel ``"openspiel:iterations=2000"``, its C++ ISMCTS; game specs ``"GAME"`` or
``"GAME:key=value,..."``, `xenophon.kernel.registry`, each game's forms in its plugin's
`spec_forms`).
A bot spec's options are the bot's settings (``time`` for ``time_limit``),
checked against the ranges in `xenophon.search.bots.SETTINGS`; a spec that
gives a time and no iterations searches for that time only.

>>> from xenophon.kernel.registry import GAMES
>>> report = play_match(GAMES[0], "greedy", "random", games=2, processes=1, progress=False)
>>> report.games
2
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from xenophon.kernel.files import write_atomic
from xenophon.kernel.registry import SpecError, game_from_spec, spec_files
from xenophon.kernel.stats import wilson_interval
from xenophon.lab.dealfit import ELO_PER_LOGIT, DealFit, Outcomes, fit_deals, fit_point, pair_score
from xenophon.lab.jobs import Job, LocalBackend, read_results, results_header, run_jobs
from xenophon.play.external import Forfeit, finish_players, forfeit_returns, play_step
from xenophon.play.players import bot_in_full, make_bot
from xenophon.search import bots

MAX_GAMES = 1_000_000  # games of one match
MAX_PROCESSES = 256  # processes playing a match
MAX_SPRT_ELO = 1000.0  # an SPRT bound's size (1000 Elo is a 99.7% score)
#: what the Elo of an SPRT's hypotheses means: the edge within a deal of the
#: deal-effect fit (`xenophon.lab.dealfit`, the default), or the logistic Elo
#: of the mean score (Fishtest's)
SPRT_SCALES = ("deal", "logistic")
#: bots' seeds: the deal's seed plus the salt times this (`bot_seed`)
SALT_STRIDE = 2**32


@dataclass
class GameRecord:
    seed: int
    first_seat_of_a: int  # the seat bot A played
    returns: list[float]  # per seat
    turns: int
    actions: int
    #: a game an external player lost by its fault: {"seat", "reason", "message"}
    #: (`xenophon.play.external.Forfeit`); absent from a results line otherwise
    forfeit: dict[str, Any] | None = None

    @property
    def score_of_a(self) -> float:
        return (self.returns[self.first_seat_of_a] + 1) / 2


def bot_seed(seed: int, salt: int = 0) -> int:
    """The number the bots of a deal are seeded from (bot A with twice it
    plus 1, bot B plus 2): the deal's seed, or with a salt other seeds, so
    that a match of the same bots on the same deals (an A/A check on a deal
    book screened by those bots) does not replay the same games."""
    return seed + salt * SALT_STRIDE


def play_one(
    game_spec: str, bot_specs: tuple[str, str] | list[str], seed: int, a_seat: int, salt: int = 0
) -> GameRecord:
    """One game: bot A in `a_seat`, bot B in the other; chance from the seed."""
    game = game_from_spec(game_spec, seed=seed)
    players: list[Any] = [None, None]
    base = bot_seed(seed, salt)
    players[a_seat] = make_bot(bot_specs[0], base * 2 + 1)
    players[1 - a_seat] = make_bot(bot_specs[1], base * 2 + 2)
    return play_out(game, players, seed, a_seat)


def play_out(game: Any, players: list[Any], seed: int, a_seat: int) -> GameRecord:
    """A game between two bots (players[seat]), chance drawn from `seed`; a
    player that forfeits (an external one: `xenophon.play.external`) loses
    it there, and every player's child process is ended whatever happens."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    actions = 0
    forfeit: Forfeit | None = None
    try:
        while not state.is_terminal():
            if state.is_chance():
                code = state.sample_chance(rng).code
            else:
                code = players[state.current_player].choose(state).code
            play_step(state, code, players)  # an external player follows it
            actions += 1
    except Forfeit as lost:
        forfeit = lost
    finally:
        finish_players(players, state, forfeit)
    if forfeit is None:
        return GameRecord(seed, a_seat, state.returns(), state.to_dict()["turn"], actions)
    returns = forfeit_returns(forfeit.seat)
    return GameRecord(seed, a_seat, returns, state.to_dict()["turn"], actions, forfeit.record())


def play_pair_job(
    plays: list[list[Any]], bots: list[str], seed: int, salt: int = 0
) -> list[dict[str, Any]]:
    """The job of a pair of games on one deal (`xenophon.lab.jobs`): each play is
    [game spec, the seat of bot A]; usually the same game with the seats
    swapped, for a balance study the decks swapped with them."""
    return [result_line(play_one(spec, bots, seed, a_seat, salt)) for spec, a_seat in plays]


def result_line(record: GameRecord) -> dict[str, Any]:
    """A game as a results file keeps it (no `forfeit` field for a game played out)."""
    line = asdict(record)
    if line["forfeit"] is None:
        del line["forfeit"]
    return line


def match_deals(games: int, seed: int, book: list[int] | None = None) -> list[int]:
    """The deals (chance seeds) of a match of `games` games: `seed`,
    `seed + 1`, ..., or the first deals of a deal book (`xenophon.lab.dealbook`),
    as many as the games cover (a book of fewer deals caps the match)."""
    pairs = (games + 1) // 2
    return list(book[:pairs]) if book is not None else [seed + pair for pair in range(pairs)]


def match_jobs(
    game: str,
    bot_a: str,
    bot_b: str,
    games: int,
    seed: int,
    book: list[int] | None = None,
    salt: int = 0,
) -> list[Job]:
    """A match as jobs: game k on deal `seed + k // 2` (or the book's deal
    k // 2) with bot A in seat k % 2, two games (one deal, seats swapped) a
    job, keyed by the deal."""
    deals = match_deals(games, seed, book)
    games = min(games, 2 * len(deals))
    return [
        Job(
            str(deal),
            "match_pair",
            {
                "plays": [[game, a_seat] for a_seat in range(min(2, games - 2 * pair))],
                "bots": [bot_a, bot_b],
                "seed": deal,
                **({"salt": salt} if salt else {}),
            },
        )
        for pair, deal in enumerate(deals)
    ]


def paired_interval(pair_scores: list[float], z: float = 1.96) -> tuple[float, float]:
    """The normal 95% interval of a mean score from per-deal scores (each the
    mean of the games played on one deal): pairing takes the deal's luck out
    of the variance, as in pentanomial engine testing."""
    n = len(pair_scores)
    if n < 2:
        return (0.0, 1.0)
    mean = sum(pair_scores) / n
    spread = z * math.sqrt(sum((s - mean) ** 2 for s in pair_scores) / (n - 1) / n)
    return (max(0.0, mean - spread), min(1.0, mean + spread))


@dataclass
class MatchReport:
    game: str
    bot_a: str
    bot_b: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    records: list[GameRecord] = field(default_factory=list)
    sprt: str | None = None
    _fit: tuple[int, DealFit] | None = field(default=None, repr=False, compare=False)

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson 95% interval of the score (draws as half points)."""
        return wilson_interval(self.score, self.games, z)

    @staticmethod
    def elo(score: float) -> float:
        return logistic_elo(score)

    def summary(self) -> dict[str, Any]:
        low, high = self.interval()
        deal_points = self.deal_points()
        elo, elo_low, elo_high = pair_elo(deal_points)
        return {
            "game": self.game,
            "bot_a": self.bot_a,
            "bot_b": self.bot_b,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "interval95": [round(low, 4), round(high, 4)],
            "elo": round(self.elo(self.score), 1),
            "elo_interval95": [round(self.elo(low), 1), round(self.elo(high), 1)],
            "pairs": len(self.pair_scores()),
            "paired_interval95": [round(x, 4) for x in paired_interval(self.pair_scores())],
            "pentanomial": pentanomial(deal_points),
            "pair_elo": round(elo, 1),
            "pair_elo_interval95": [round(elo_low, 1), round(elo_high, 1)],
            "first_seat_score": round(self.first_seat_score(), 4),
            "seat_split_deals": self.seat_split_deals(),
            "deal_fit": self.deal_fit().summary(),
            "forfeits": self.forfeits(),
            "sprt": self.sprt,
        }

    def forfeits(self) -> dict[str, dict[str, int]]:
        """The games each bot ("a", "b") lost by forfeit, counted by reason."""
        counts: dict[str, dict[str, int]] = {"a": {}, "b": {}}
        for record in self.records:
            if record.forfeit is not None:
                bot = "a" if record.forfeit["seat"] == record.first_seat_of_a else "b"
                reason = record.forfeit["reason"]
                counts[bot][reason] = counts[bot].get(reason, 0) + 1
        return counts

    def forfeits_text(self) -> str:
        """'; forfeits: A 2 (timeout 2), B 0', or nothing when no game was forfeited."""
        counts = self.forfeits()
        if not any(counts.values()):
            return ""
        parts = []
        for label, by_reason in (("A", counts["a"]), ("B", counts["b"])):
            reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(by_reason.items()))
            parts.append(
                f"{label} {sum(by_reason.values())}" + (f" ({reasons})" if reasons else "")
            )
        return "; forfeits: " + ", ".join(parts)

    def seat_scores(self) -> dict[int, tuple[float | None, float | None]]:
        """Bot A's score on each deal (keyed by its seed, in the order
        played) from seat 0 and from seat 1, None for a seat the deal was
        not played from."""
        deals = {}
        for seed, deal in self._records_by_deal().items():
            by_seat: list[float | None] = [None, None]
            for record in deal:
                by_seat[record.first_seat_of_a] = record.score_of_a
            deals[seed] = (by_seat[0], by_seat[1])
        return deals

    def deal_outcomes(self) -> list[tuple[float | None, float | None]]:
        """What the deal-effect fit reads: `seat_scores` in order."""
        return list(self.seat_scores().values())

    def deal_fit(self) -> DealFit:
        """The deal-effect fit of the games so far (`xenophon.lab.dealfit`):
        bot A's Elo within a deal with its interval, the seat's edge α and the
        deals' spread τ (kept until a game is added)."""
        if self._fit is None or self._fit[0] != self.games:
            self._fit = (self.games, fit_deals(self.deal_outcomes()))
        return self._fit[1]

    def first_seat_score(self) -> float:
        """The first seat's mean score over the games, whichever bot sat there."""
        if not self.records:
            return 0.5
        return sum((record.returns[0] + 1) / 2 for record in self.records) / len(self.records)

    def seat_split_deals(self) -> list[int]:
        """Of the deals played from both seats, those on which one seat won
        both games (each bot won from the same seat, so the deal says nothing
        of the bots): how many the first seat won, how many the second."""
        pairs = [
            [record.returns[0] for record in deal]
            for deal in self._records_by_deal().values()
            if len(deal) == 2
        ]
        return [
            sum(all(r > 0 for r in pair) for pair in pairs),
            sum(all(r < 0 for r in pair) for pair in pairs),
        ]

    def pair_scores(self) -> list[float]:
        """Bot A's mean score on each deal, in the order the deals were played."""
        return [sum(scores) / len(scores) for scores in self._deals().values()]

    def deal_points(self) -> list[float]:
        """Bot A's points (0 to 2) on each deal played from both seats."""
        return [sum(scores) for scores in self._deals().values() if len(scores) == 2]

    def _deals(self) -> dict[int, list[float]]:
        """Bot A's scores on each deal, keyed by the deal's seed."""
        return {
            seed: [record.score_of_a for record in deal]
            for seed, deal in self._records_by_deal().items()
        }

    def _records_by_deal(self) -> dict[int, list[GameRecord]]:
        deals: dict[int, list[GameRecord]] = {}
        for record in self.records:
            deals.setdefault(record.seed, []).append(record)
        return deals

    def text(self) -> str:
        """The report as a short table: score, pentanomial, Elo within a deal
        with its interval, seats, verdict (a one-sided result said in words)."""
        s = self.summary()
        paired = s["paired_interval95"]
        rows = [
            (
                "score",
                f"+{s['wins']} ={s['draws']} -{s['losses']}, {s['score']:.1%} "
                f"[{s['interval95'][0]:.1%}, {s['interval95'][1]:.1%}]" + self.forfeits_text(),
            ),
            ("deals", f"pentanomial {s['pentanomial']} over {s['pairs']} deals"),
        ]
        one_sided = self.one_sided()
        if one_sided:
            rows.append(("strength", f"Elo within a deal not bounded: {one_sided}"))
        else:
            rows.append(("strength", self.deal_fit().text()))
            rows.append(
                (
                    "from pairs",
                    f"Elo {s['pair_elo']:+.0f} [{s['pair_elo_interval95'][0]:+.0f}, "
                    f"{s['pair_elo_interval95'][1]:+.0f}], paired-deal interval "
                    f"[{paired[0]:.1%}, {paired[1]:.1%}]",
                )
            )
        first, second = s["seat_split_deals"]
        rows.append(
            (
                "seats",
                f"the first seat scored {s['first_seat_score']:.1%}, and won both games "
                f"of {first} deals to the second seat's {second}",
            )
        )
        rows.append(("verdict", self.verdict(bool(one_sided))))
        head = f"{self.bot_a} vs {self.bot_b} ({self.game}): {s['games']} games"
        width = max(len(label) for label, _ in rows)
        return "\n".join([head] + [f"  {label:<{width}}  {text}" for label, text in rows])

    def one_sided(self) -> str | None:
        """'6-0: too few games to bound the Elo' when one bot won every game
        (no interval can be given then), else None."""
        if self.games and self.draws == 0 and 0 in (self.wins, self.losses):
            return f"{self.wins}-{self.losses}: too few games to bound the Elo"
        return None

    def verdict(self, one_sided: bool) -> str:
        """The SPRT's word when there is one, else what the Elo interval says."""
        if self.sprt:
            return f"SPRT: {self.sprt}"
        if one_sided:
            leader = self.bot_a if self.wins else self.bot_b
            return f"{leader} won every game; play more games to measure by how much"
        low, high = self.deal_fit().elo_interval
        if low > 0:
            return f"{self.bot_a} is stronger (the Elo interval is above 0)"
        if high < 0:
            return f"{self.bot_b} is stronger (the Elo interval is below 0)"
        return "undecided: the Elo interval holds 0"

    def write_json(self, path: str) -> None:
        """The summary and every game, written atomically (check the path with
        xenophon.kernel.files.check_output before the match)."""
        data = {"summary": self.summary(), "games": [result_line(r) for r in self.records]}
        write_atomic(path, json.dumps(data, indent=1) + "\n")

    def add(self, record: GameRecord) -> None:
        self.records.append(record)
        self.games += 1
        score = record.score_of_a
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1


#: bot A's points on one deal (two games, seats swapped), the five outcomes
#: of pentanomial testing: LL, LD+DL, LW+DD+WL, DW+WD, WW
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
#: a pentanomial count of 0 counts as this much, so that the likelihood is
#: defined (as Fishtest regularises)
EMPTY_OUTCOME = 1e-3


def logistic_score(elo: float) -> float:
    """The expected score of an Elo difference (logistic Elo)."""
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    """The Elo difference of an expected score (clamped away from 0 and 1)."""
    score = min(max(score, 1e-4), 1 - 1e-4)
    return 400 * math.log10(score / (1 - score)) + 0.0  # + 0.0: never -0


def pentanomial(deal_points: list[float]) -> list[int]:
    """Counts of the deals on which bot A scored 0, 0.5, 1, 1.5 and 2 points
    (`deal_points`: bot A's points on each complete pair)."""
    counts = [0] * len(PAIR_POINTS)
    for points in deal_points:
        counts[PAIR_POINTS.index(points)] += 1
    return counts


def _mean_constrained(frequencies: list[float], values: list[float], mean: float) -> list[float]:
    """The distribution on `values` of the given mean that makes the observed
    `frequencies` most likely: f_i / (1 + x (v_i - mean)), x the root of
    sum f_i (v_i - mean) / (1 + x (v_i - mean)) = 0 (Van den Bergh's
    proposition behind Fishtest's GSPRT), found by bisection."""
    shifted = [v - mean for v in values]
    low, high = -1 / max(shifted), -1 / min(shifted)  # where every 1 + x a_i stays > 0
    margin = (high - low) * 1e-12
    low, high = low + margin, high - margin

    def slope(x: float) -> float:
        return sum(f * a / (1 + x * a) for f, a in zip(frequencies, shifted))

    for _ in range(64):  # slope is decreasing in x; 64 halvings reach a double's precision
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    return [f / (1 + x * a) for f, a in zip(frequencies, shifted)]


def pentanomial_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (logistic Elo elo1) against
    H0 (elo0) from pentanomial counts, as Fishtest's GSPRT: the likelihood of
    the observed pair outcomes under the most likely distribution of each
    hypothesis' mean score."""
    return pentanomial_score_llr(counts, logistic_score(elo0), logistic_score(elo1))


def pentanomial_score_llr(counts: list[int], score0: float, score1: float) -> float:
    """Fishtest's GSPRT log-likelihood ratio of H1 (mean per-deal score
    `score1`) against H0 (`score0`) from pentanomial counts."""
    if sum(counts) == 0:
        return 0.0
    regular = [count or EMPTY_OUTCOME for count in counts]
    total = sum(regular)
    frequencies = [count / total for count in regular]
    values = [points / 2 for points in PAIR_POINTS]
    h0, h1 = (_mean_constrained(frequencies, values, score) for score in (score0, score1))
    return total * sum(f * math.log(p1 / p0) for f, p0, p1 in zip(frequencies, h0, h1))


class DealScaleLLR:
    """The GSPRT of `xenophon match --sprt ELO0,ELO1` with the Elo within a
    deal: Fishtest's GSPRT on the pentanomial counts, its two hypotheses on
    the mean per-deal score translated from the edge within a deal at the
    deal-effect fit's α and τ of the deals so far (`pair_score`; refitted at
    each deal). An edge of 0 is a mean score of exactly
    ½ whatever α and τ, so a test of ELO0 = 0 keeps Fishtest's guarantee
    under H0 whatever the deals; the fitted α and τ set the scale of the
    other hypothesis, and converge as the deals grow.

    Feed `add` each complete deal (A's score from seat 0 and from seat 1);
    `llr` and `scores` are those of the deals fed so far."""

    def __init__(self, elo0: float, elo1: float) -> None:
        self.elo0, self.elo1 = elo0, elo1
        self.deals: list[tuple[float | None, float | None]] = []
        self.counts = [0] * len(PAIR_POINTS)
        self.fitted: tuple[float, float, float] | None = None
        self.scores = (0.5, 0.5)

    def add(self, seat0: float, seat1: float) -> float:
        """The LLR once this deal is counted."""
        self.deals.append((seat0, seat1))
        self.counts[PAIR_POINTS.index(seat0 + seat1)] += 1
        alpha, tau, d, _ = fit_point(Outcomes.of(self.deals))
        self.fitted = (alpha, tau, d)
        self.scores = (
            pair_score(alpha, tau, self.elo0 / ELO_PER_LOGIT),
            pair_score(alpha, tau, self.elo1 / ELO_PER_LOGIT),
        )
        return self.llr()

    def llr(self) -> float:
        return pentanomial_score_llr(self.counts, *self.scores)


def deal_scale_llr(report: MatchReport, elo0: float, elo1: float) -> tuple[float, float, float]:
    """The within-deal GSPRT's LLR of a match played to its end (the
    hypotheses translated at the α and τ fitted on all its deals), and the
    two mean deal scores they were translated to."""
    fit = report.deal_fit()
    score0, score1 = fit.pair_score(elo0), fit.pair_score(elo1)
    return pentanomial_score_llr(pentanomial(report.deal_points()), score0, score1), score0, score1


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR below which an SPRT accepts H0, and above which H1 (Wald's)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def pair_elo(deal_points: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Bot A's logistic Elo and its 95% interval from the pairs' statistics:
    the mean and standard error of the per-deal score, its ends converted."""
    scores = [points / 2 for points in deal_points]
    low, high = paired_interval(scores, z)
    mean = sum(scores) / len(scores) if scores else 0.5
    return logistic_elo(mean), logistic_elo(low), logistic_elo(high)


def check_sprt(
    elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05, scale: str = "deal"
) -> None:
    """SPRT bounds a match can decide between (an error naming the bound otherwise)."""
    if scale not in SPRT_SCALES:
        raise SpecError(f"unknown SPRT scale '{scale}' ({', '.join(SPRT_SCALES)})")
    for label, elo in (("elo0", elo0), ("elo1", elo1)):
        bots.Setting(float, -MAX_SPRT_ELO, MAX_SPRT_ELO).check(f"SPRT {label}", elo)
    if not elo0 < elo1:
        raise SpecError(f"SPRT elo0 ({elo0:g}) must be below elo1 ({elo1:g})")
    for label, error_rate in (("alpha", alpha), ("beta", beta)):
        bots.Setting(float, 0, 0.5, above=True).check(f"SPRT {label}", error_rate)


def check_match(games: int, processes: int | None) -> None:
    bots.Setting(int, 1, MAX_GAMES).check("the number of games", games)
    bots.Setting(int, 1, MAX_PROCESSES, none_allowed=True).check(
        "the number of processes", processes
    )


def sprt_rule(
    sprt: tuple[float, float, float, float],
    decided: list[str],
    scale: str = "deal",
    earlier: list[tuple[float, float]] | None = None,
) -> Callable[[list[dict[str, Any]]], bool]:
    """The stop rule of `xenophon.lab.jobs.run_jobs` for an SPRT: given each
    job's games (one deal, seats swapped) in job order, true once the GSPRT
    on the pentanomial counts decides (the decision appended to `decided`).
    `scale`: the hypotheses in Elo within a deal (`DealScaleLLR`) or in
    logistic Elo of the mean score (Fishtest's). `earlier`: bot A's scores
    from seat 0 and seat 1 on the complete deals of earlier runs of the same
    test, counted first (a test carried on on new deals); they must not
    decide it already (`EarlierRunsDecide`)."""
    elo0, elo1, alpha, beta = sprt
    low, high = sprt_bounds(alpha, beta)
    counts = [0] * len(PAIR_POINTS)
    within = DealScaleLLR(elo0, elo1)
    carried = f"; {len(earlier)} deals of earlier runs counted first" if earlier else ""

    def count(seat0: float, seat1: float) -> tuple[float, str]:
        if scale == "deal":
            llr = within.add(seat0, seat1)
            return llr, (
                f"Elo within a deal {elo0:g} vs {elo1:g}: mean deal score "
                f"{within.scores[0]:.2%} vs {within.scores[1]:.2%} at the fitted "
                f"α {within.fitted[0]:.2f}, τ {within.fitted[1]:.2f}"  # type: ignore[index]
            )
        counts[PAIR_POINTS.index(seat0 + seat1)] += 1
        return pentanomial_llr(counts, elo0, elo1), f"Elo {elo0:g} vs {elo1:g}"

    def decision(llr: float, hypotheses: str) -> str:
        return (
            f"{'H1' if llr >= high else 'H0'} accepted (LLR {llr:.2f}, bounds "
            f"[{low:.2f}, {high:.2f}], {hypotheses}{carried})"
        )

    llr = 0.0
    for seat0, seat1 in earlier or []:
        llr, hypotheses = count(seat0, seat1)
    if not low < llr < high:
        decided_before = decision(llr, hypotheses)
        raise EarlierRunsDecide(f"the earlier runs decide the test already: {decided_before}")

    def stop(games: list[dict[str, Any]]) -> bool:
        if len(games) != 2:
            return False  # a deal played from one seat only is no pair
        by_seat = [0.0, 0.0]
        for game in games:
            record = GameRecord(**game_fields(game))
            by_seat[record.first_seat_of_a] = record.score_of_a
        llr, hypotheses = count(*by_seat)
        if low < llr < high:
            return False
        decided.append(decision(llr, hypotheses))
        return True

    return stop


class EarlierRunsDecide(SpecError):
    """A test to carry on whose earlier runs have decided it already."""


def pooled_report(paths: list[str]) -> MatchReport:
    """One report of every game of several results files of one match (the
    same game and bots) on disjoint deals, e.g. runs with --seed 1 and --seed
    51 of 100 games each; a file that cannot be read, or of another match, or
    sharing a deal with another, is a SpecError naming it."""
    report = None
    seen: dict[int, str] = {}
    for path in paths:
        seeds = set()
        for row in results_rows(path):
            if "config" in row:
                config = row["config"]
                match = (config["game"], config["bot_a"], config["bot_b"])
                if report is None:
                    report = MatchReport(*match)
                elif match != (report.game, report.bot_a, report.bot_b):
                    raise SpecError(f"{path}: another match ({', '.join(match)})")
            elif "job" in row and report is not None:
                missing = [name for name in RECORD_FIELDS if name not in row]
                if missing:
                    raise SpecError(f"{path}: a game line without '{missing[0]}'")
                record = GameRecord(**game_fields(row))
                if record.seed in seen and seen[record.seed] != path:
                    raise SpecError(f"{path}: deal {record.seed} is in {seen[record.seed]} too")
                seeds.add(record.seed)
                report.add(record)
        seen.update(dict.fromkeys(seeds, path))
    if report is None:
        raise SpecError(f"{paths[0]}: not a match results file (no header line)")
    return report


def results_rows(path: str) -> list[dict[str, Any]]:
    """The lines of a match results file (a SpecError naming it if it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    except OSError as error:
        raise SpecError(f"{path}: cannot read ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise SpecError(f"{path}: not a match results file (a line is not JSON)") from None
    if not all(isinstance(row, dict) for row in rows):
        raise SpecError(f"{path}: not a match results file (a line is not a JSON object)")
    return rows


#: the fields every game line of a results file has (GameRecord's without a default)
RECORD_FIELDS = tuple(f.name for f in fields(GameRecord) if f.default is MISSING)


def complete_deals(report: MatchReport) -> list[tuple[float, float]]:
    """Bot A's scores from seat 0 and seat 1 on each deal played from both seats."""
    return [
        (seat0, seat1)
        for seat0, seat1 in report.deal_outcomes()
        if seat0 is not None and seat1 is not None
    ]


def game_fields(line: dict[str, Any]) -> dict[str, Any]:
    """The GameRecord fields of a game line of a results file (`forfeit`
    only where a player forfeited)."""
    return {name: line[name] for name in GameRecord.__dataclass_fields__ if name in line}


def match_config(
    game: str,
    bot_a: str,
    bot_b: str,
    games: int,
    seed: int,
    sprt: tuple[float, float, float, float] | None,
    sprt_scale: str = "deal",
    book: list[int] | None = None,
    salt: int = 0,
    earlier: EarlierRuns | None = None,
) -> dict[str, Any]:
    """What identifies a match in its results file (a match without an SPRT,
    a book, a salt or earlier runs as before these existed, so that its file
    resumes)."""
    config: dict[str, Any] = {
        "game": game,
        "bot_a": bot_a,
        "bot_b": bot_b,
        "games": games,
        "seed": seed,
        "sprt": list(sprt) if sprt else None,
    }
    if sprt:
        config["sprt_scale"] = sprt_scale
    if book is not None:
        config["deals"] = match_deals(games, seed, book)
    if salt:
        config["salt"] = salt
    if earlier is not None:
        config["sprt_after"] = {"files": earlier.paths, "deals": len(earlier.deals)}
    return config


@dataclass
class EarlierRuns:
    """Earlier runs of a test that a match carries on (`--sprt-after`): the
    games of their results files and bot A's scores on their complete deals."""

    paths: list[str]
    report: MatchReport
    deals: list[tuple[float, float]]

    @classmethod
    def read(
        cls, paths: list[str], game: str, bot_a: str, bot_b: str, jobs: list[Job]
    ) -> EarlierRuns:
        """The runs of `paths`, which must be of the same game and bots as the
        match and share no deal with its `jobs` (a SpecError otherwise)."""
        report = pooled_report(paths)
        if (report.game, report.bot_a, report.bot_b) != (game, bot_a, bot_b):
            raise SpecError(
                f"{paths[0]}: another match ({report.game}, {report.bot_a}, {report.bot_b}): "
                "only runs of the same game and bots carry on a test"
            )
        deals = {job.args["seed"] for job in jobs}
        shared = sorted({record.seed for record in report.records} & deals)
        if shared:
            raise SpecError(
                f"deal {shared[0]} is in the earlier runs too: carry the test on on other deals "
                "(another --seed or --book)"
            )
        return cls(list(paths), report, complete_deals(report))


def joined_report(earlier: MatchReport, report: MatchReport) -> MatchReport:
    """The games of a match's earlier runs and of `report` as one report
    (with `report`'s SPRT decision)."""
    joined = MatchReport(report.game, report.bot_a, report.bot_b, sprt=report.sprt)
    for record in earlier.records + report.records:
        joined.add(record)
    return joined


def finished_match(
    game: str,
    bot_a: str,
    bot_b: str,
    games: int,
    seed: int,
    results: str,
    sprt: tuple[float, float, float, float] | None = None,
    sprt_scale: str = "deal",
    book: list[int] | None = None,
    salt: int = 0,
    sprt_after: list[str] | None = None,
) -> MatchReport:
    """The report of the deals a match's results file holds so far, in deal
    order, without playing any (the file made by `play_match` with the same
    arguments; with an SPRT, the deals up to its decision if it decided)."""
    jobs = match_jobs(game, bot_a, bot_b, games, seed, book, salt)
    earlier = EarlierRuns.read(sprt_after, game, bot_a, bot_b, jobs) if sprt_after else None
    config = match_config(game, bot_a, bot_b, games, seed, sprt, sprt_scale, book, salt, earlier)
    header = results_header("match", config)
    found = read_results(results, header, {job.key for job in jobs})
    decided: list[str] = []
    stop = (
        sprt_rule(sprt, decided, sprt_scale, earlier.deals if earlier else None) if sprt else None
    )
    report = MatchReport(game, bot_a, bot_b)
    for job in jobs:
        if job.key not in found:
            if stop:
                break  # an SPRT reads the deals in order, as far as the file holds them all
            continue
        for line in found[job.key]:
            report.add(GameRecord(**game_fields(line)))
        if stop and stop(found[job.key]):
            break
    report.sprt = decided[-1] if decided else None
    return report


def play_match(
    game: str,
    bot_a: str,
    bot_b: str,
    games: int = 200,
    seed: int = 1,
    processes: int | None = None,
    progress: bool | None = None,
    sprt: tuple[float, float, float, float] | None = None,
    backend: Any = None,
    results: str | None = None,
    resume: bool = False,
    force: bool = False,
    sprt_scale: str = "deal",
    book: list[int] | None = None,
    salt: int = 0,
    sprt_after: list[str] | None = None,
) -> MatchReport:
    """Plays `games` games, bot A taking seat 0 in even games and seat 1 in odd
    ones; game k uses seed `seed + k // 2` (or the `book`'s deal k // 2, a
    list of chance seeds: `xenophon.lab.dealbook`) so each deal is played from
    both seats. `sprt=(elo0, elo1, alpha, beta)` stops early on a decision,
    taken on the deals in order so that it does not depend on scheduling;
    `games` is then the cap. Its Elo are within a deal (`sprt_scale`
    "deal", `DealScaleLLR`) or logistic Elo of the mean score ("logistic").
    `sprt_after`: results files of earlier runs of the same test on other
    deals, whose complete deals the SPRT counts first (they must not have
    decided it). `salt` seeds the bots otherwise (`bot_seed`). The jobs run on `backend`
    (`xenophon.lab.jobs.make_backend`; default a pool of `processes`), each
    appended to the `results` file as it finishes, which `resume` continues.
    Every argument and spec is checked before the first game."""
    check_match(games, processes)
    if sprt:
        check_sprt(*sprt, scale=sprt_scale)
    elif sprt_after:
        raise SpecError("earlier runs to carry on (--sprt-after) go with an SPRT (--sprt)")
    bots.Setting(int, 0, 2**31).check("the salt", salt)
    if book is not None and not book:
        raise SpecError("the deal book holds no deal")
    played = game_from_spec(game)
    for spec in (bot_a, bot_b):
        make_bot(spec, 0)
    decided: list[str] = []
    jobs = match_jobs(game, bot_a, bot_b, games, seed, book, salt)
    earlier = EarlierRuns.read(sprt_after, game, bot_a, bot_b, jobs) if sprt_after else None
    config = match_config(game, bot_a, bot_b, games, seed, sprt, sprt_scale, book, salt, earlier)
    stop = (
        sprt_rule(sprt, decided, sprt_scale, earlier.deals if earlier else None) if sprt else None
    )
    run = run_jobs(
        jobs,
        results,
        command="match",
        config=config,
        backend=backend or LocalBackend(min(len(jobs), processes or os.cpu_count() or 1)),
        resume=resume,
        force=force,
        inputs=[*spec_files(game), *(sprt_after or [])],
        progress=progress,
        unit="deal",
        stop=stop,
        about={"bots": {"a": bot_in_full(bot_a, played), "b": bot_in_full(bot_b, played)}},
    )
    report = MatchReport(game, bot_a, bot_b, sprt=decided[-1] if decided else None)
    for deal in run.counted(jobs):
        for line in deal:
            report.add(GameRecord(**game_fields(line)))
    return report
