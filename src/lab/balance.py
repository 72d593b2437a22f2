"""Balance studies: the win-rate matrix of a game's sides, each cell from
paired deals (one deal played twice with the sides' seats swapped) with its
95% interval, every game played by the same bot.

- Hero: the sides are decks (the prebuilt ones and any deck files); cell
  (row, column) is the row deck's score against the column deck.
- Anabasis: the rows are the modes, the columns the seats; a cell is that
  seat's score in that mode.

The games run as jobs of `xenophon.lab.jobs` (one deal of one cell a job), so a
study runs on a local pool or a Ray cluster and resumes from its results file.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xenophon.kernel.files import read_bytes
from xenophon.kernel.registry import DECK_SEPARATOR, GAME_OPTIONS, SpecError, make_game
from xenophon.lab.heatmap import Picture, heatmap
from xenophon.lab.jobs import Job, Run
from xenophon.lab.tournament import paired_interval

MODES = ("standard", "expert")
SEATS = ("seat 0", "seat 1")


def prebuilt_decks() -> list[str]:
    from xenophon.hero.cards import default_deck_dir
    return sorted(path.stem for path in default_deck_dir().glob("*.toml"))


@dataclass(frozen=True)
class Study:
    """What a balance study plays: its rows and columns, and how."""

    game: str
    sides: tuple[str, ...]             # Hero: decks (names or files); Anabasis: modes
    bot: str
    deals: int
    seed: int

    @property
    def rows(self) -> list[str]:
        return [side_label(side) for side in self.sides]

    @property
    def columns(self) -> list[str]:
        return self.rows if self.game == "hero" else list(SEATS)

    def config(self) -> dict[str, Any]:
        """What a results file must have been made with to be resumed."""
        return {"game": self.game, "sides": list(self.sides), "bot": self.bot,
                "deals": self.deals, "seed": self.seed,
                "deck_files": {side: file_digest(side) for side in self.sides
                               if self.game == "hero" and side not in prebuilt_decks()}}

    def jobs(self) -> list[Job]:
        """One job a deal of a cell: Hero each pair of decks once (the other
        cell is its complement), Anabasis each mode."""
        seeds = range(self.seed, self.seed + self.deals)
        if self.game == "anabasis":
            return [Job(f"{mode}:{seed}", "match_pair",
                        {"plays": [[f"anabasis:mode={mode}", 0], [f"anabasis:mode={mode}", 1]],
                         "bots": [self.bot, self.bot], "seed": seed})
                    for mode in self.sides for seed in seeds]
        jobs: list[Job] = []
        for i, first in enumerate(self.sides):
            for j, second in enumerate(self.sides[i + 1:], start=i + 1):
                plays = [[f"hero:decks={first}{DECK_SEPARATOR}{second}", 0],
                         [f"hero:decks={second}{DECK_SEPARATOR}{first}", 1]]
                jobs.extend(Job(f"{i}-{j}:{seed}", "match_pair",
                                {"plays": plays, "bots": [self.bot, self.bot], "seed": seed})
                            for seed in seeds)
        return jobs

    def cells_of(self, job: Job, games: list[dict[str, Any]]) -> list[tuple[int, int, float]]:
        """(row, column, score on the deal) for the cells a finished job
        feeds: the row side's mean score over the deal's two games."""
        if self.game == "anabasis":
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
    if game not in GAME_OPTIONS:
        raise SpecError(f"unknown game '{game}' ({' or '.join(GAME_OPTIONS)})")
    if game == "anabasis":
        if deck_files:
            raise SpecError("--decks is for hero (anabasis compares seats and modes)")
        return Study(game, MODES, bot, deals, seed)
    prebuilt = prebuilt_decks()
    for path in deck_files:
        if DECK_SEPARATOR in path or "," in path:
            raise SpecError(f"deck file {path}: a name with '{DECK_SEPARATOR}' or ',' cannot "
                            "be given to a game (rename the file)")
        if not path.endswith(".toml") or not Path(path).is_file():
            raise SpecError(f"deck file {path}: not found (a deck file ends in .toml)")
        make_game("hero", decks=(path, prebuilt[0]))
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
    return {"game": study.game, "bot": study.bot, "deals_per_cell": study.deals,
            "seed": study.seed, "rows": study.rows, "columns": study.columns,
            "meaning": _meaning(study), "games": games, "cells": cells}


def _cell(values: list[float]) -> dict[str, Any] | None:
    if not values:
        return None
    low, high = paired_interval(values)
    return {"score": round(sum(values) / len(values), 4), "interval95": [round(low, 4),
            round(high, 4)], "deals": len(values), "games": 2 * len(values)}


def _meaning(study: Study) -> str:
    if study.game == "hero":
        return "the row deck's score against the column deck"
    return "the column seat's score in the row mode"


def budget(result: dict[str, Any]) -> str:
    return (f"{result['bot']} for both sides, {result['deals_per_cell']} deals (each from "
            f"both seats) a cell, {result['games']} games")


def table(result: dict[str, Any]) -> str:
    """The matrix as plain text: score and 95% interval per cell."""
    texts = [[_cell_text(cell, " ") for cell in row] for row in result["cells"]]
    width = max(len(r) for r in result["rows"]) + 2
    cell_w = max(len(t) for t in [*result["columns"], *sum(texts, [])]) + 2
    lines = [f"{result['game']}: {result['meaning']}", f"budget: {budget(result)}",
             " " * width + "".join(c.ljust(cell_w) for c in result["columns"]).rstrip()]
    for name, row in zip(result["rows"], texts):
        lines.append((name.ljust(width) + "".join(t.ljust(cell_w) for t in row)).rstrip())
    return "\n".join(lines) + "\n"


def _cell_text(cell: dict[str, Any] | None, gap: str) -> str:
    if cell is None:
        return "-"
    low, high = cell["interval95"]
    return f"{cell['score']:.1%}{gap}[{low:.1%}, {high:.1%}]"


def picture(result: dict[str, Any]) -> Picture:
    cells = [[(cell["score"], _cell_text(cell, "\n")) if cell else None for cell in row]
             for row in result["cells"]]
    return heatmap(f"{result['game']}: {result['meaning']}", result["rows"], result["columns"],
                   cells, note=budget(result))


