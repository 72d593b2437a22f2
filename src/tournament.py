"""Matches between two bots: seats alternated, a seed schedule, all cores.

Bots and games are named by short spec strings so that worker processes can
build their own (bot specs: `xenophon.players`; ``"ismcts:iterations=2000"``, ``"pimc:worlds=8,iterations=2000"``,
``"greedy"``, ``"random"``, ``"cheat:iterations=2000"``, and with OpenSpiel
``"openspiel:iterations=2000"``, its C++ ISMCTS; games ``"anabasis"``,
``"anabasis:mode=expert"``, ``"hero"``, ``"hero:decks=crimson_conqueror+wild_grove"``).
A bot spec's options are the bot's settings (``time`` for ``time_limit``),
checked against the ranges in `xenophon.search.bots.SETTINGS`; a spec that
gives a time and no iterations searches for that time only.

>>> report = play_match("anabasis", "greedy", "random", games=2, processes=1, progress=False)
>>> report.games
2
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from xenophon.files import write_atomic
from xenophon.games import SpecError, game_from_spec
from xenophon.players import make_bot
from xenophon.search import bots

MAX_GAMES = 1_000_000             # games of one match
MAX_PROCESSES = 256               # processes playing a match
MAX_SPRT_ELO = 1000.0             # an SPRT bound's size (1000 Elo is a 99.7% score)


@dataclass
class GameRecord:
    seed: int
    first_seat_of_a: int       # the seat bot A played
    returns: list[float]       # per seat
    turns: int
    actions: int

    @property
    def score_of_a(self) -> float:
        return (self.returns[self.first_seat_of_a] + 1) / 2


def play_one(game_spec: str, bot_specs: tuple[str, str], seed: int, a_seat: int) -> GameRecord:
    """One game: bot A in `a_seat`, bot B in the other; chance from the seed."""
    game = game_from_spec(game_spec, seed=seed)
    rng = random.Random(seed)
    players = [None, None]
    players[a_seat] = make_bot(bot_specs[0], seed * 2 + 1)
    players[1 - a_seat] = make_bot(bot_specs[1], seed * 2 + 2)
    state = game.new_initial_state()
    actions = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
        else:
            state.apply_code(players[state.current_player].choose(state).code)
        actions += 1
    return GameRecord(seed, a_seat, state.returns(), state.to_dict()["turn"], actions)


def _play_job(job: tuple) -> GameRecord:
    return play_one(*job)


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

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson 95% interval of the score (draws as half points)."""
        n, p = self.games, self.score
        if n == 0:
            return (0.0, 1.0)
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - spread), min(1.0, centre + spread))

    @staticmethod
    def elo(score: float) -> float:
        score = min(max(score, 1e-4), 1 - 1e-4)
        return -400 * math.log10(1 / score - 1)

    def summary(self) -> dict[str, Any]:
        low, high = self.interval()
        return {
            "game": self.game, "bot_a": self.bot_a, "bot_b": self.bot_b, "games": self.games,
            "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "score": round(self.score, 4), "interval95": [round(low, 4), round(high, 4)],
            "elo": round(self.elo(self.score), 1),
            "elo_interval95": [round(self.elo(low), 1), round(self.elo(high), 1)],
            "sprt": self.sprt,
        }

    def text(self) -> str:
        s = self.summary()
        line = (f"{self.bot_a} vs {self.bot_b} ({self.game}): {s['games']} games, "
                f"+{s['wins']} ={s['draws']} -{s['losses']}, score {s['score']:.1%} "
                f"[{s['interval95'][0]:.1%}, {s['interval95'][1]:.1%}], "
                f"Elo {s['elo']:+.0f} [{s['elo_interval95'][0]:+.0f}, "
                f"{s['elo_interval95'][1]:+.0f}]")
        return line + (f", SPRT: {self.sprt}" if self.sprt else "")

    def write_json(self, path: str) -> None:
        """The summary and every game, written atomically (check the path with
        xenophon.files.check_output before the match)."""
        data = {"summary": self.summary(), "games": [asdict(r) for r in self.records]}
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


def sprt_llr(report: MatchReport, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), normal approximation
    of the per-game score as in the usual engine-testing practice."""
    n = report.games
    if n < 2:
        return 0.0
    scores = [r.score_of_a for r in report.records]
    mean = sum(scores) / n
    variance = sum((s - mean) ** 2 for s in scores) / n
    if variance <= 0:
        return 0.0
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def check_sprt(elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> None:
    """SPRT bounds a match can decide between (an error naming the bound otherwise)."""
    for label, elo in (("elo0", elo0), ("elo1", elo1)):
        bots.Setting(float, -MAX_SPRT_ELO, MAX_SPRT_ELO).check(f"SPRT {label}", elo)
    if not elo0 < elo1:
        raise SpecError(f"SPRT elo0 ({elo0:g}) must be below elo1 ({elo1:g})")
    for label, error_rate in (("alpha", alpha), ("beta", beta)):
        bots.Setting(float, 0, 0.5, above=True).check(f"SPRT {label}", error_rate)


def check_match(games: int, processes: int | None) -> None:
    bots.Setting(int, 1, MAX_GAMES).check("the number of games", games)
    bots.Setting(int, 1, MAX_PROCESSES, none_allowed=True).check("the number of processes",
                                                                  processes)


def play_match(game: str, bot_a: str, bot_b: str, games: int = 200, seed: int = 1,
               processes: int | None = None, progress: bool | None = None,
               sprt: tuple[float, float, float, float] | None = None) -> MatchReport:
    """Plays `games` games, bot A taking seat 0 in even games and seat 1 in odd
    ones; game k uses seed `seed + k // 2` so each deal is played from both
    seats. `sprt=(elo0, elo1, alpha, beta)` stops early on a decision. Every
    argument and spec is checked before the first game."""
    check_match(games, processes)
    if sprt:
        check_sprt(*sprt)
    game_from_spec(game)
    for spec in (bot_a, bot_b):
        make_bot(spec, 0)
    report = MatchReport(game, bot_a, bot_b)
    jobs = [(game, (bot_a, bot_b), seed + k // 2, k % 2) for k in range(games)]
    processes = min(games, processes or os.cpu_count() or 1)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=games, desc=f"{bot_a} vs {bot_b}", unit="game")
    bounds = None
    if sprt:
        elo0, elo1, alpha, beta = sprt
        bounds = (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))
    pool = multiprocessing.get_context("fork").Pool(processes) if processes > 1 else None
    try:
        results = pool.imap(_play_job, jobs) if pool else map(_play_job, jobs)
        for record in results:
            report.add(record)
            if bar:
                bar.update(1)
                bar.set_postfix_str(f"score {report.score:.1%}")
            if bounds:
                llr = sprt_llr(report, sprt[0], sprt[1])
                if llr <= bounds[0] or llr >= bounds[1]:
                    report.sprt = f"{'H1' if llr >= bounds[1] else 'H0'} accepted (LLR {llr:.2f})"
                    break
    finally:
        if pool:
            pool.terminate()
        if bar:
            bar.close()
    return report
