"""Deal books (`xenophon.lab.dealbook`, `xenophon match --book`,
`bench/deal_book.py`): the screening keeps the deals that did not split by
seat, a match on a book plays its deals, a bad book is one clear line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from test_cli import assert_clean_error
from xenophon.lab.dealbook import BookError, DealBook, read_book, screen_deals
from xenophon.lab.tournament import finished_match, play_match

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "deal_book.py"


def test_screening_keeps_the_deals_one_bot_won_more_of():
    deals = [
        (1, 1.0, 0.0),
        (2, 0.0, 1.0),
        (3, 1.0, 1.0),
        (4, 0.0, 0.0),
        (5, 0.5, 0.5),
        (6, 0.5, 1.0),
    ]
    assert screen_deals(deals) == [3, 4, 6]


def test_a_book_round_trips_and_bad_books_are_refused(tmp_path):
    path = tmp_path / "book.json"
    DealBook("hero", [7, 3, 11], {"bot": "greedy"}).write(str(path))
    book = read_book(str(path), "hero")
    assert book.deals == [7, 3, 11] and book.screening == {"bot": "greedy"}
    with pytest.raises(BookError, match="a book of the game 'hero', not 'anabasis'"):
        read_book(str(path), "anabasis")
    for text, message in [
        ("[1, 2]", "not a deal book"),
        ('{"format": "xenophon-deal-book", "format_version": 9}', "format version 9"),
        (
            '{"format": "xenophon-deal-book", "format_version": 1, "game": "hero", "deals": []}',
            "non-empty list",
        ),
        (
            '{"format": "xenophon-deal-book", "format_version": 1, "game": "hero", "deals": [1, -2]}',
            "non-empty list",
        ),
        (
            '{"format": "xenophon-deal-book", "format_version": 1, "game": "hero", "deals": [1, 1]}',
            "listed twice",
        ),
        ("{", "not valid JSON"),
    ]:
        path.write_text(text)
        with pytest.raises(BookError, match=message):
            read_book(str(path))
    with pytest.raises(BookError, match="cannot read"):
        read_book(str(tmp_path / "missing.json"))


def test_a_match_on_a_book_plays_its_deals_in_order_up_to_the_cap(tmp_path):
    report = play_match(
        "hero", "greedy", "random", games=5, processes=1, progress=False, book=[40, 12, 99, 7]
    )
    assert [r.seed for r in report.records] == [40, 40, 12, 12, 99]
    assert [r.first_seat_of_a for r in report.records] == [0, 1, 0, 1, 0]
    # a book of fewer deals than the games caps the match
    short = play_match("hero", "greedy", "random", games=200, processes=1, progress=False, book=[5])
    assert short.games == 2
    # the same deal as a plain match's: the same games
    plain = play_match("hero", "greedy", "random", games=2, seed=12, processes=1, progress=False)
    assert [r.returns for r in plain.records] == [r.returns for r in report.records[2:4]]


def test_a_salt_seeds_the_bots_otherwise_and_is_recorded(tmp_path):
    bot = "ismcts:iterations=20"
    plays = [
        play_match("hero", bot, bot, games=6, seed=3, processes=1, progress=False, salt=salt)
        for salt in (0, 0, 1)
    ]
    moves = [[(r.turns, r.actions, r.returns) for r in p.records] for p in plays]
    assert moves[0] == moves[1] and moves[2] != moves[0]
    results = tmp_path / "r.jsonl"
    play_match(
        "hero", "greedy", "random", games=2, processes=1, progress=False,
        results=str(results), book=[8], salt=2,
    )  # fmt: skip
    config = json.loads(results.read_text().splitlines()[0])["config"]
    assert config["deals"] == [8] and config["salt"] == 2
    tally = finished_match("hero", "greedy", "random", 2, 1, str(results), book=[8], salt=2)
    assert tally.games == 2


def test_match_command_takes_a_book(tmp_path):
    book = tmp_path / "book.json"
    DealBook("hero", [21, 5]).write(str(book))
    out = tmp_path / "m.json"
    result = run_cli(
        "match", "greedy", "random", "--game", "hero", "--games", "4", "--processes", "1",
        "--book", book, "--json", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Elo within a deal" in result.stdout
    games = json.loads(out.read_text())["games"]
    assert [g["seed"] for g in games] == [21, 21, 5, 5]
    assert_clean_error(
        run_cli("match", "greedy", "random", "--game", "hero", "--book", book, "--seed", "3"),
        "--seed and --book",
    )
    assert_clean_error(
        run_cli("match", "greedy", "random", "--game", "anabasis", "--book", book),
        "a book of the game 'hero', not 'anabasis'",
    )


def test_the_screening_script_makes_a_book_and_resumes(tmp_path):
    out = tmp_path / "book.json"
    command = [
        sys.executable, str(SCRIPT), "--game", "hero", "--bot", "random", "--deals", "6",
        "--seed", "30", "--out", str(out), "--processes", "1",
    ]  # fmt: skip
    first = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    book = read_book(str(out), "hero")
    screen = finished_match("hero", "random", "random", 12, 30, str(tmp_path / "book-screen.jsonl"))
    scores = screen.seat_scores()
    assert book.deals == [s for s, (a, b) in scores.items() if a + b != 1]
    assert book.screening["deals_screened"] == 6
    again = subprocess.run([*command, "--check"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "A/A on the book" in again.stdout and "deals that did not split by seat" in again.stdout


def test_a_screening_that_keeps_no_deal_makes_no_book(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--game",
            "hero",
            "--bot",
            "greedy",
            "--deals",
            "3",
            "--seed",
            "30",
            "--out",
            str(tmp_path / "b.json"),
            "--processes",
            "1",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and "no book" in result.stderr
    assert not (tmp_path / "b.json").exists()
