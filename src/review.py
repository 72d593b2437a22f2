"""Reviewing one seat's decisions in a record: the search's win probability
before each decision and the decisions that lost more than a threshold
(`xenophon review` and the review page of `xenophon serve`)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterator

from xenophon.game import State
from xenophon.records import Record


@dataclass
class ReviewPoint:
    """One decision of the reviewed seat."""

    index: int                 # the record line's index (0 = the first line after the header)
    turn: int
    win: float                 # the best move's win probability
    played: str
    played_win: float | None   # None when the search never tried the move played
    better: str
    mistake: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def decisions_of(record: Record, states: list[State], seat: int) -> list[int]:
    """Indexes of the record lines that are real decisions of `seat` (more than
    one legal move)."""
    return [i for i, line in enumerate(record.lines)
            if line["seat"] == seat and len(states[i].legal_actions()) > 1]


def review_points(record: Record, before: list[State], seat: int, bot: Any,
                  threshold: float) -> Iterator[ReviewPoint]:
    """Searches the position before each of `seat`'s decisions with `bot`."""
    for index in decisions_of(record, before, seat):
        state = before[index]
        result = bot.analyse(state)
        played = state.move(record.lines[index]["move"])
        best = result.best
        mine = next((m for m in result.moves if m.move.code == played.code), None)
        played_win = mine.win_probability if mine is not None and mine.visits else None
        mistake = played_win is not None and best.win_probability - played_win > threshold
        yield ReviewPoint(index, state.to_dict()["turn"], best.win_probability, played.text,
                          played_win, best.move.text, mistake)
