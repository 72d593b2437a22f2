"""Deal books: the deals a match plays when the seat decides too many.

In a game where the first seat or the deal itself often decides (a deal
won from the same seat by both bots says nothing of them), a match learns
more per deal from the deals that a pair of equal bots did not split by
seat. A book is screened once, by baseline games only (an A/A match of one
bot against itself: `bench/deal_book.py`), so which deals it holds does not
depend on the bots later compared on it; `xenophon match --book FILE` then
plays its deals in order.

A book file (JSON):

    {"format": "xenophon-deal-book", "format_version": 1, "game": "GAME spec",
     "deals": [seed, ...], "screening": {"bot": ..., "deals": ..., "seed": ..., ...}}

>>> book = screen_deals([(1, 1.0, 0.0), (2, 1.0, 1.0), (3, 0.0, 0.0), (4, 0.5, 1.0)])
>>> book
[2, 3, 4]
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import (
    FileError,
    JsonError,
    check_header,
    loads,
    read_text,
    write_atomic,
)

FORMAT = "xenophon-deal-book"
FORMAT_VERSION = 1
MAX_BOOK_DEALS = 1_000_000
MAX_BOOK_BYTES = 16 * 1024 * 1024


class BookError(XenophonError):
    """A deal book that cannot be used; the message names the file."""


@dataclass
class DealBook:
    game: str
    deals: list[int]
    screening: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return (
            json.dumps(
                {
                    "format": FORMAT,
                    "format_version": FORMAT_VERSION,
                    "game": self.game,
                    "deals": self.deals,
                    "screening": self.screening,
                },
                indent=1,
            )
            + "\n"
        )

    def write(self, path: str) -> None:
        write_atomic(path, self.to_json())


def read_book(path: str, game: str | None = None) -> DealBook:
    """A deal book from its file, checked (and, given `game`, checked to be
    that game spec's: a seed deals another game otherwise)."""
    try:
        data = loads(read_text(path, "deal book", MAX_BOOK_BYTES))
    except (FileError, JsonError) as error:
        raise BookError(f"{path}: {error}") from None
    check_header(data, str(path), "deal book", FORMAT, FORMAT_VERSION, BookError, "format_version")
    deals, book_game = data.get("deals"), data.get("game")
    if not isinstance(book_game, str):
        raise BookError(f"{path}: the book names no game")
    if (
        not isinstance(deals, list)
        or not deals
        or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in deals)
    ):
        raise BookError(f'{path}: "deals" must be a non-empty list of seeds (whole numbers ≥ 0)')
    if len(deals) > MAX_BOOK_DEALS:
        raise BookError(f"{path}: more than {MAX_BOOK_DEALS:,} deals")
    if len(set(deals)) != len(deals):
        raise BookError(f"{path}: a deal is listed twice")
    if game is not None and game != book_game:
        raise BookError(f"{path}: a book of the game '{book_game}', not '{game}'")
    screening = data.get("screening", {})
    return DealBook(book_game, deals, screening if isinstance(screening, dict) else {})


def screen_deals(deals: Iterable[tuple[int, float, float]]) -> list[int]:
    """The deals that did not split by seat, in the order given: each deal
    is (seed, A's score from seat 0, A's score from seat 1) of an A/A match.
    A deal splits by seat when A scored 1 point on it: each bot won it from
    the same seat (or both games were drawn), so the two games say nothing
    of the bots; kept are the deals on which one bot scored more."""
    return [seed for seed, seat0, seat1 in deals if seat0 + seat1 != 1]
