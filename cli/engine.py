"""`xenophon engine`: line-delimited JSON analysis on stdin/stdout
(docs/engine-protocol.md). One query per line; answers carry the query's id.

The engine never stops on a line: a line that is too long, not UTF-8, not
JSON, nested too deep, or a query with a field of the wrong type or range
gets one error answer and the engine reads the next line. Answers are always
valid UTF-8 JSON, one per line, flushed as they are written."""
from __future__ import annotations

import argparse
import math
import sys
from typing import Any, BinaryIO, Iterator

from xenophon.cli.analyse import MAX_TOP, result_dict
from xenophon.errors import XenophonError
from xenophon.files import MAX_JSON_DEPTH, JsonError, decode_text, dumps_line, loads
from xenophon.games import check_file_name, game_with_options
from xenophon.records import load_record, make_game_for, replay
from xenophon.search.bots import (MAX_SECONDS, ISMCTSBot, SearchResult, Setting,
                                  check_setting)

MAX_LINE_BYTES = 16 * 1024 * 1024    # one query line
READ_CHUNK = 1024 * 1024             # how much of an over-long line is read at a time
MIN_STREAM_SECONDS = 0.01            # the shortest interval between partial answers
DEFAULT_ITERATIONS = 2000
DEFAULT_TOP = 10
#: the ranges of the fields that are not search settings (those are bots.SETTINGS)
TOP = Setting(int, 1, MAX_TOP)
STREAM = Setting(float, MIN_STREAM_SECONDS, MAX_SECONDS, none_allowed=True)
SEARCH_SEED = Setting(int)
SEAT = Setting(int, 0, 1, none_allowed=True)

#: every field a query may have
QUERY_FIELDS = ("id", "command", "game", "options", "seed", "moves", "record", "seat",
                "iterations", "time", "workers", "restrict", "top", "stream", "search_seed")
POSITION_FIELDS = ("game", "options", "seed", "moves")   # a position given by its moves


class QueryError(XenophonError):
    """A query the engine cannot answer; the message goes back in the answer."""


class LineTooLong:
    """Stands for an input line over the cap (its bytes were skipped)."""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "engine", help="JSON analysis protocol on stdin/stdout",
        description="Answer analysis queries, one JSON object per line "
                    f"(docs/engine-protocol.md). A line holds at most "
                    f"{MAX_LINE_BYTES // (1024 * 1024)} MiB of UTF-8 JSON nested at most "
                    f"{MAX_JSON_DEPTH} levels deep; any line that cannot be answered gets an "
                    "error answer and the engine goes on.")
    parser.set_defaults(run=run)


# -- reading ------------------------------------------------------------------
def read_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | LineTooLong]:
    """The input's lines (without their end), never holding more than `limit`
    bytes of one: a longer line is skipped in chunks and given as LineTooLong."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(READ_CHUNK)
            yield LineTooLong()
            continue
        yield line.rstrip(b"\r\n")


def parse_query(line: bytes | LineTooLong, number: int) -> dict[str, Any]:
    """A query object from one input line (QueryError otherwise)."""
    if isinstance(line, LineTooLong):
        raise QueryError(f"line {number}: longer than {MAX_LINE_BYTES:,} bytes; skipped")
    text = decode_text(line, f"line {number}", "query")
    try:
        query = loads(text)
    except JsonError as error:
        raise QueryError(f"line {number}: {error}") from None
    if not isinstance(query, dict):
        raise QueryError(f"line {number}: a query is a JSON object")
    return query


# -- checking the fields -------------------------------------------------------
def holds_only_finite_numbers(value: Any) -> bool:
    """JSON has no NaN or Infinity (Python's reader takes them): an id holding
    one could not be copied into a valid answer."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(holds_only_finite_numbers(item) for item in value)
    if isinstance(value, dict):
        return all(holds_only_finite_numbers(item) for item in value.values())
    return True


def check_fields(query: dict[str, Any]) -> None:
    unknown = [name for name in query if name not in QUERY_FIELDS]
    if unknown:
        raise QueryError(f"unknown field '{unknown[0]}' (a query's fields: "
                         f"{', '.join(QUERY_FIELDS)})")
    if not holds_only_finite_numbers(query.get("id")):
        raise QueryError("'id' holds NaN or Infinity, which JSON does not allow")
    command = query.get("command")
    if command is not None and command != "quit":
        raise QueryError("'command' must be \"quit\" (a query without 'command' asks for an "
                         "analysis)")


def budget_of(query: dict[str, Any]) -> tuple[int | None, float | None, int]:
    """Iterations, seconds and workers, within the search's own ranges."""
    iterations = check_setting("iterations", query.get("iterations"))
    seconds = check_setting("time_limit", query.get("time"), "'time'")
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    workers = check_setting("workers", query.get("workers", 1))
    return iterations, seconds, workers


def restrict_field(query: dict[str, Any]) -> list[str] | None:
    restrict = query.get("restrict")
    if restrict is not None and (not isinstance(restrict, list) or not restrict
                                 or not all(isinstance(m, str) for m in restrict)):
        raise QueryError("'restrict' must be a non-empty list of moves")
    return restrict


# -- the position ---------------------------------------------------------------
def position_from_record(query: dict[str, Any]):
    given = [name for name in POSITION_FIELDS if name in query]
    if given:
        raise QueryError(f"give either 'record' or 'game' with 'moves', not both "
                         f"('{given[0]}' with 'record')")
    path = query["record"]
    if not isinstance(path, str) or not path:
        raise QueryError("'record' must be the path of a record file")
    check_file_name(path, "'record'")
    record = load_record(path)
    state, _ = replay(record, make_game_for(record))
    return state, record.view


def position_from_moves(query: dict[str, Any]):
    name = query.get("game")
    if not isinstance(name, str):
        raise QueryError("a query needs 'game' (with 'moves') or 'record'")
    options = query.get("options", {})
    if not isinstance(options, dict):
        raise QueryError("'options' must be an object, e.g. {\"mode\": \"expert\"}")
    moves = query.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise QueryError("'moves' must be a list of moves in the game's notation")
    state = game_with_options(name, options, seed=query.get("seed")).new_initial_state()
    for number, move in enumerate(moves, start=1):
        try:
            state.apply(move)
        except XenophonError as error:
            raise QueryError(f"move {number} ('{move}'): {error}") from None
    return state, None


def position_of(query: dict[str, Any]):
    """The state a query asks about and the seat its record was redacted for."""
    if "record" in query:
        return position_from_record(query)
    return position_from_moves(query)


def viewing_seat(seat: int | None, state: Any, view: int | None) -> int:
    """The seat the search views from: the player to move, who must be the
    seat asked for and the seat a redacted record was written for."""
    if seat is None:
        seat = state.current_player
    if seat != state.current_player:
        raise QueryError(f"seat {seat} is not to move there (seat {state.current_player} is)")
    if view is not None and view != seat:
        raise QueryError(f"the record is redacted for seat {view}")
    return seat


def move_codes(moves: list[str], state: Any) -> list[int]:
    try:
        return [state.move(move).code for move in moves]
    except XenophonError as error:
        raise QueryError(f"restrict: {error}") from None


# -- answering ----------------------------------------------------------------
def answer(query: dict[str, Any], out: BinaryIO) -> dict[str, Any]:
    """The final answer to a query (partial ones are written to `out` on the
    way); every field is checked before the position is built."""
    iterations, seconds, workers = budget_of(query)
    top = TOP.check("'top'", query.get("top", DEFAULT_TOP))
    stream = STREAM.check("'stream'", query.get("stream"))
    search_seed = SEARCH_SEED.check("'search_seed'", query.get("search_seed", 0))
    seat = SEAT.check("'seat'", query.get("seat"))
    restrict = restrict_field(query)
    state, view = position_of(query)
    if state.is_terminal():
        raise QueryError("the game is over in that position")
    if state.is_chance():
        raise QueryError("that position is a chance node: nobody decides there")
    seat = viewing_seat(seat, state, view)
    root_moves = move_codes(restrict, state) if restrict else None
    bot = ISMCTSBot(iterations=iterations, time_limit=seconds, workers=workers,
                    seed=search_seed)

    def progress(partial: SearchResult) -> None:
        write(out, {"id": query.get("id"), "final": False, "seat": seat,
                    **result_dict(partial, top)})

    result = bot.analyse(state, on_progress=progress if stream else None,
                         every=stream or 0.5, root_moves=root_moves)
    return {"id": query.get("id"), "final": True, "seat": seat, **result_dict(result, top)}


def write(out: BinaryIO, data: dict[str, Any]) -> None:
    out.write(dumps_line(data).encode("utf-8") + b"\n")
    out.flush()


def serve(stream: BinaryIO, out: BinaryIO) -> None:
    """Answers every line of `stream` until its end or a quit command."""
    for number, line in enumerate(read_lines(stream), start=1):
        if not isinstance(line, LineTooLong) and not line.strip():
            continue
        query_id = None
        try:
            query = parse_query(line, number)
            query_id = query.get("id") if holds_only_finite_numbers(query.get("id")) else None
            check_fields(query)
            if query.get("command") == "quit":
                return
            write(out, answer(query, out))
        except XenophonError as error:
            write(out, {"id": query_id, "error": str(error)})
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception as error:   # a bug: answered, so that one query cannot stop the engine
            write(out, {"id": query_id,
                        "error": f"internal error: {type(error).__name__}: {error}"})


def run(args: argparse.Namespace) -> int:
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0
