"""Issue 49, item 12 and "Review you can trust" (xenophon.play.review): a
mistake only when the move played and the better one were each searched
with the whole budget and differ by more than the threshold plus the 95%
interval; a move that keeps a won game won is none; `xenophon review` and the
web review flag the same steps in the same file with the same budget; the
seat worked out as for `suggest` (a saved game's human)."""

import json

import pytest

from conftest import run_cli
from xenophon.play.records import load_record, make_game_for, replay
from xenophon.play.review import (
    MISTAKE_THRESHOLD,
    ReviewPoint,
    drop_margin,
    is_mistake,
    review_point,
)
from xenophon.search.bots import ISMCTSBot
from xenophon.web.play import review

#: a random game of Anabasis its seat 1 wins with a final attack (`selfplay`
#: seed 22); the winner's decision at WON_LINE keeps the win, a move the
#: search of the whole position visited three times in REVIEW_BUDGET
WON_SEED, WON_LINE = 22, 645
REVIEW_BUDGET = 1000


def selfplay(folder, seed, game="anabasis"):
    made = run_cli("selfplay", game, "--bots", "random;random", "--seed", seed, "--out", folder)
    assert made.returncode == 0, made.stderr
    return folder / f"{game}-selfplay-{seed}.jsonl"


def as_saved_game(path, human):
    """The record as a saved game reads: `human` the seat of the human."""
    head, *lines = path.read_text().splitlines()
    header = json.loads(head)
    header["seats"] = ["easy", "easy"]
    header["seats"][human] = "human"
    path.write_text("\n".join([json.dumps(header), *lines]) + "\n")
    return path


def test_the_interval_of_a_drop():
    """z * sqrt(p1(1 - p1)/n1 + p2(1 - p2)/n2); none from certain values; the
    widest without visits."""
    assert drop_margin(0.5, 1000, 0.5, 1000) == pytest.approx(1.96 * (0.5 / 1000) ** 0.5)
    assert drop_margin(1.0, 1000, 1.0, 1000) == 0.0
    assert drop_margin(0.9, 0, 0.1, 1000) == 1.0


def test_a_drop_is_a_mistake_only_beyond_its_interval():
    point = ReviewPoint(0, 1, 0.8, "a", 0.6, "b", False, 1000, 1000, margin=0.05)
    assert is_mistake(point, 0.10)  # 0.20 > 0.10 + 0.05
    point.margin = 0.12  # as few visits make it
    assert not is_mistake(point, 0.10)


def test_a_move_that_keeps_the_win_is_no_mistake(tmp_path):
    """A winning final attack under way: the move played got a handful of
    the whole position's visits (its value from them well below the best's,
    which a review of those visits called a mistake); searched alone with the
    whole budget it wins as the best does, and is no mistake."""
    record = load_record(selfplay(tmp_path, WON_SEED))
    final, before = replay(record, make_game_for(record))
    assert final.returns()[1] > 0
    state, move = before[WON_LINE], record.lines[WON_LINE]["move"]
    scan = ISMCTSBot(iterations=REVIEW_BUDGET, seed=0).analyse(state)
    (seen,) = [stat for stat in scan.moves if stat.move.text == state.move(move).text]
    assert seen.visits < 10 and scan.best.win_probability - seen.win_probability > MISTAKE_THRESHOLD
    point = review_point(
        state, WON_LINE, move, ISMCTSBot(iterations=REVIEW_BUDGET, seed=0), MISTAKE_THRESHOLD
    )
    assert point.better != point.played
    assert point.played_visits == point.better_visits == REVIEW_BUDGET
    assert point.played_win > 0.9 and not point.mistake


def test_no_move_of_the_winners_last_turn_is_a_mistake_when_each_wins(tmp_path):
    """Two moves that both win (the same attack from two squares) are no
    mistake whichever is played: their values are equal."""
    record = load_record(selfplay(tmp_path, WON_SEED))
    _, before = replay(record, make_game_for(record))
    state = before[WON_LINE + 1]  # the next decision: attacks that each win
    bot = ISMCTSBot(iterations=REVIEW_BUDGET, seed=0)
    winners = [stat.move.text for stat in bot.analyse(state).moves if stat.win_probability == 1.0]
    assert len(winners) >= 2
    for move in winners:
        point = review_point(state, WON_LINE + 1, move, bot, MISTAKE_THRESHOLD)
        assert point.played_win == 1.0 and not point.mistake, point


def test_the_terminal_and_the_web_flag_the_same_steps(tmp_path):
    """One saved game, one budget: `xenophon review` and the web review
    (each working out the seat: the human's) find the same mistakes, the
    same curve."""
    path = as_saved_game(selfplay(tmp_path, 24), human=1)
    budget = 300
    terminal = run_cli("review", path, "--iterations", budget, "--json")
    assert terminal.returncode == 0, terminal.stderr
    said = json.loads(terminal.stdout)
    assert said["seat"] == 1 and said["mistakes"]
    sent = []
    review({"type": "review", "path": str(path), "iterations": budget}, sent.append, lambda: False)
    assert sent[0]["seat"] == 1 and sent[-1]["type"] == "review_done"
    points = [message for message in sent if message["type"] == "review_point"]
    assert [p["index"] + 2 for p in points if p["mistake"]] == [m["line"] for m in said["mistakes"]]
    assert [round(p["win"], 3) for p in points] == said["curve"]
    flagged = [p for p in points if p["mistake"]]
    for point, mistake in zip(flagged, said["mistakes"]):
        assert (point["played"], point["better"]) == (mistake["played"], mistake["better"])
        assert round(point["margin"], 3) == mistake["margin"]


def test_review_says_one_mistake_and_the_interval(tmp_path):
    path = as_saved_game(selfplay(tmp_path, 24), human=1)
    said = run_cli("review", path, "--iterations", 300)
    assert said.returncode == 0, said.stderr
    assert "2 mistakes (win probability drop above 10% plus its 95% interval" in said.stdout
    assert "each searched with 300 iterations" in said.stdout
    assert said.stdout.count(" ± ") == 2


def test_the_terminals_curve_has_its_axes(tmp_path):
    """Issue 49, item 5 ("axes on every curve"): the scale of the blocks, and
    below the curve the turns, each label under the column where it begins."""
    path = as_saved_game(selfplay(tmp_path, 24), human=1)
    lines = run_cli("review", path, "--iterations", 50).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("win probability before"))
    assert "▁ 0% to █ 100%" in lines[at] and lines[at].endswith("by turn:")
    curve, axis = lines[at + 1], lines[at + 2]
    assert len(curve.strip()) == 60  # 149 decisions in 60 columns
    labels = [(axis.index(label, start), int(label)) for label, start in labelled(axis)]
    assert labels[0] == (2, 1)  # the first decision's turn, under the first column
    assert [turn for _, turn in labels] == sorted({turn for _, turn in labels})
    assert all(column < len(curve) for column, _ in labels)


def labelled(axis):
    """The labels of the turn axis and where each begins."""
    start = 0
    for label in axis.split():
        yield label, start
        start = axis.index(label, start) + len(label)
