"""The levels' Elo figures the docs quote come from src/data/levels.json
(issue 66 item 9): docs/play.md's table, the README's first game, and
docs/players.md's word on which levels are measured and which estimated;
and no doc claims a count of tests."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEVELS = json.loads((ROOT / "src" / "data" / "levels.json").read_text())
GAMES = ("anabasis", "hero")


def elo_of(game, level):
    """(the level's Elo, whether it is an estimate) as levels.json gives it."""
    if level in LEVELS["elo"][game]:
        return LEVELS["elo"][game][level], False
    return LEVELS["estimated"][game][level], True


def table_rows():
    """docs/play.md's levels table: {level: (Anabasis cell, Hero cell)}."""
    rows = {}
    for line in (ROOT / "docs" / "play.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].split()[0] in (*LEVELS["elo"]["hero"], "max"):
            rows[cells[0].split()[0]] = (cells[4], cells[5])
    return rows


@pytest.mark.parametrize("game", GAMES)
def test_the_play_docs_table_quotes_levels_json(game):
    rows = table_rows()
    levels = set(LEVELS["elo"][game]) | set(LEVELS["estimated"][game])
    assert set(rows) == levels
    for level, cells in rows.items():
        cell = cells[GAMES.index(game)]
        elo, estimated = elo_of(game, level)
        assert int(re.search(r"\d+", cell).group()) == elo, (level, cell)
        assert ("estimate" in cell) == estimated, (level, cell)


def test_the_readme_quotes_the_easy_levels_elo():
    readme = (ROOT / "README.md").read_text()
    for game in GAMES:
        quoted = re.search(rf"{game}: .*? level easy \(Elo (\d+)", readme)
        assert quoted and int(quoted.group(1)) == LEVELS["elo"][game]["easy"]


def test_the_players_doc_calls_estimated_exactly_the_estimated_levels():
    text = " ".join((ROOT / "docs" / "players.md").read_text().split())
    said = re.search(r"Not every Elo there is measured: ([^(]*)\(", text).group(1)
    for game in GAMES:
        for level in LEVELS["estimated"][game]:
            assert f"`{level}` is estimated" in said
        assert (
            "expert" not in LEVELS["estimated"][game] or "expert" not in said.split("measured")[0]
        )
    estimated = set().union(*(LEVELS["estimated"][game] for game in GAMES))
    for level in set(LEVELS["elo"]["hero"]) - estimated:
        assert f"`{level}` is estimated" not in said


def test_no_doc_claims_a_count_of_tests():
    for path in [ROOT / "CONTRIBUTING.md", ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert not re.search(r"\b\d[\d,]* tests in\b", path.read_text()), path
