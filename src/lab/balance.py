"""Balance studies: the win-rate matrix of a game's sides, each cell from
paired deals (one deal played twice with the sides' seats swapped) with its
95% interval, every game played by the same bot. What the sides are is the
game's (GamePlugin.balance), in one of two shapes:

- matchups: the sides play against each other (decks, say: the prebuilt ones
  and any files added); cell (row, column) is the row side's score against
  the column side.
- by seat: each side is a variant of the game (a mode, say), the rows the
  sides, the columns the seats; a cell is that seat's score in that variant.

The games run as jobs of `xenophon.lab.jobs` (one deal of one cell a job), so a
study runs on a local pool or a Ray cluster and resumes from its results file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xenophon.kernel.files import read_bytes
from xenophon.kernel.plugin import BalanceSides, plugins
from xenophon.kernel.registry import SpecError, game_plugin
from xenophon.lab.heatmap import Picture, heatmap
from xenophon.lab.jobs import Job, Run
from xenophon.lab.tournament import paired_interval

SEATS = ("seat 0", "seat 1")


@dataclass(frozen=True)
class Study:
    """What a balance study plays: its rows and columns, and how."""

    game: str
    sides: tuple[str, ...]  # each a row (BalanceSides)
    bot: str
    deals: int
    seed: int

    @property
    def balance(self) -> BalanceSides:
        return game_plugin(self.game).balance

    @property
    def rows(self) -> list[str]:
        return [side_label(side) for side in self.sides]

    @property
    def columns(self) -> list[str]:
        return self.rows if self.balance.matchups else list(SEATS)

    def config(self) -> dict[str, Any]:
        """What a results file must have been made with to be resumed (the
        sides that are files, added to the game's own, with their digests)."""
        own = self.balance.default_sides()
        return {
            "game": self.game,
            "sides": list(self.sides),
            "bot": self.bot,
            "deals": self.deals,
            "seed": self.seed,
            "deck_files": {
                side: file_digest(side)
                for side in self.sides
                if self.balance.matchups and side not in own
            },
        }

    def jobs(self) -> list[Job]:
        """One job a deal of a cell: in matchups each pair of sides once (the
        other cell is its complement), by seat each side."""
        seeds = range(self.seed, self.seed + self.deals)
        spec = self.balance.spec
        if not self.balance.matchups:
            return [
                Job(
                    f"{side}:{seed}",
                    "match_pair",
                    {
                        "plays": [[spec(side), 0], [spec(side), 1]],
                        "bots": [self.bot, self.bot],
                        "seed": seed,
                    },
                )
                for side in self.sides
                for seed in seeds
            ]
        jobs: list[Job] = []
        for i, first in enumerate(self.sides):
            for j, second in enumerate(self.sides[i + 1 :], start=i + 1):
                plays = [[spec(first, second), 0], [spec(second, first), 1]]
                jobs.extend(
                    Job(
                        f"{i}-{j}:{seed}",
                        "match_pair",
                        {"plays": plays, "bots": [self.bot, self.bot], "seed": seed},
                    )
                    for seed in seeds
                )
        return jobs

    def cells_of(self, job: Job, games: list[dict[str, Any]]) -> list[tuple[int, int, float]]:
        """(row, column, score on the deal) for the cells a finished job
        feeds: the row side's mean score over the deal's two games."""
        if not self.balance.matchups:
            row = self.sides.index(job.key.split(":")[0])
            seat0 = sum((g["returns"][0] + 1) / 2 for g in games) / len(games)
            return [(row, 0, seat0), (row, 1, 1 - seat0)]
        i, j = (int(x) for x in job.key.split(":")[0].split("-"))
        first = sum((g["returns"][g["first_seat_of_a"]] + 1) / 2 for g in games) / len(games)
        return [(i, j, first), (j, i, 1 - first)]


def side_label(side: str) -> str:
    return Path(side).stem if side.endswith(".toml") else side


def file_digest(path: str) -> str:
    return hashlib.sha256(read_bytes(path, "deck file")).hexdigest()[:16]


def make_study(game: str, deck_files: list[str], bot: str, deals: int, seed: int) -> Study:
    """A study with its sides checked: every deck file loads as a deck of the
    game (one clear line otherwise)."""
    balance = game_plugin(game).balance
    if balance.check_extra_side is None:
        if deck_files:
            takers = [
                plugin.name for plugin in plugins() if plugin.balance.check_extra_side is not None
            ]
            raise SpecError(
                f"--decks is for {' or '.join(takers)} ({game} compares {balance.compares})"
            )
        return Study(game, balance.default_sides(), bot, deals, seed)
    prebuilt = balance.default_sides()
    for path in deck_files:
        balance.check_extra_side(path, prebuilt)
    sides = tuple(dict.fromkeys([*prebuilt, *deck_files]))
    if len({side_label(s) for s in sides}) != len(sides):
        raise SpecError("two decks of the study have the same name; rename one file")
    return Study(game, sides, bot, deals, seed)


def matrix(study: Study, jobs: list[Job], run: Run) -> dict[str, Any]:
    """The study's results: per cell the score, its paired-deal interval and
    the deals and games it counts (None on the diagonal)."""
    n_rows, n_columns = len(study.rows), len(study.columns)
    scores: list[list[list[float]]] = [[[] for _ in range(n_columns)] for _ in range(n_rows)]
    games = 0
    for job in jobs:
        if job.key in run.results:
            games += len(run.results[job.key])
            for r, c, score in study.cells_of(job, run.results[job.key]):
                scores[r][c].append(score)
    cells = [[_cell(values) for values in row] for row in scores]
    return {
        "game": study.game,
        "bot": study.bot,
        "deals_per_cell": study.deals,
        "seed": study.seed,
        "rows": study.rows,
        "columns": study.columns,
        "meaning": _meaning(study),
        "games": games,
        "cells": cells,
    }


def _cell(values: list[float]) -> dict[str, Any] | None:
    if not values:
        return None
    low, high = paired_interval(values)
    return {
        "score": round(sum(values) / len(values), 4),
        "interval95": [round(low, 4), round(high, 4)],
        "deals": len(values),
        "games": 2 * len(values),
    }


def _meaning(study: Study) -> str:
    return study.balance.meaning


def budget(result: dict[str, Any]) -> str:
    return (
        f"{result['bot']} for both sides, {result['deals_per_cell']} deals (each from "
        f"both seats) a cell, {result['games']} games"
    )


def table(result: dict[str, Any]) -> str:
    """The matrix as plain text: score and 95% interval per cell."""
    texts = [[_cell_text(cell, " ") for cell in row] for row in result["cells"]]
    width = max(len(r) for r in result["rows"]) + 2
    cell_w = max(len(t) for t in [*result["columns"], *sum(texts, [])]) + 2
    lines = [
        f"{result['game']}: {result['meaning']}",
        f"budget: {budget(result)}",
        " " * width + "".join(c.ljust(cell_w) for c in result["columns"]).rstrip(),
    ]
    for name, row in zip(result["rows"], texts):
        lines.append((name.ljust(width) + "".join(t.ljust(cell_w) for t in row)).rstrip())
    return "\n".join(lines) + "\n"


def _cell_text(cell: dict[str, Any] | None, gap: str) -> str:
    if cell is None:
        return "-"
    low, high = cell["interval95"]
    return f"{cell['score']:.1%}{gap}[{low:.1%}, {high:.1%}]"


def picture(result: dict[str, Any]) -> Picture:
    cells = [
        [(cell["score"], _cell_text(cell, "\n")) if cell else None for cell in row]
        for row in result["cells"]
    ]
    return heatmap(
        f"{result['game']}: {result['meaning']}",
        result["rows"],
        result["columns"],
        cells,
        note=budget(result),
    )
