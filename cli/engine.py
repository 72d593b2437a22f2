"""`xenophon engine`: line-delimited JSON analysis on stdin/stdout
(docs/engine-protocol.md). One query per line; answers carry the query's id;
a malformed query gets an error answer and the engine keeps running."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from xenophon.cli.analyse import result_dict
from xenophon.errors import XenophonError
from xenophon.games import make_game
from xenophon.records import load_record, make_game_for, replay
from xenophon.search.bots import ISMCTSBot, SearchResult

MAX_ITERATIONS = 50_000_000
MAX_SECONDS = 3600.0


class QueryError(XenophonError):
    """A query the engine cannot answer; the message goes back in the answer."""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("engine", help="JSON analysis protocol on stdin/stdout",
                                 description="Answer analysis queries, one JSON object per "
                                             "line (docs/engine-protocol.md).")
    parser.set_defaults(run=run)


def position_of(query: dict[str, Any]):
    """The state a query asks about: from a record file or from a list of moves."""
    if "record" in query:
        if not isinstance(query["record"], str):
            raise QueryError("'record' must be a file path")
        record = load_record(query["record"])
        game = make_game_for(record)
        state, _ = replay(record, game)
        return state, record.view
    name = query.get("game")
    if not isinstance(name, str):
        raise QueryError("a query needs 'game' (with 'moves') or 'record'")
    options = query.get("options") or {}
    if not isinstance(options, dict):
        raise QueryError("'options' must be an object")
    if "decks" in options and isinstance(options["decks"], list):
        options["decks"] = tuple(options["decks"])
    seed = query.get("seed")
    game = make_game(name, seed=seed, **options)
    moves = query.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise QueryError("'moves' must be a list of moves in the game's notation")
    state = game.new_initial_state()
    for number, move in enumerate(moves, start=1):
        try:
            state.apply(move)
        except XenophonError as error:
            raise QueryError(f"move {number} ('{move}'): {error}") from None
    return state, None


def budget_of(query: dict[str, Any]) -> tuple[int | None, float | None, int]:
    iterations, seconds = query.get("iterations"), query.get("time")
    if iterations is None and seconds is None:
        iterations = 2000
    if iterations is not None and (not isinstance(iterations, int) or isinstance(iterations, bool)
                                   or not 1 <= iterations <= MAX_ITERATIONS):
        raise QueryError(f"'iterations' must be a whole number from 1 to {MAX_ITERATIONS}")
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
                                or not 0 < seconds <= MAX_SECONDS):
        raise QueryError(f"'time' must be a number of seconds, above 0, at most {MAX_SECONDS:g}")
    workers = query.get("workers", 1)
    if not isinstance(workers, int) or not 1 <= workers <= 64:
        raise QueryError("'workers' must be 1 to 64")
    return iterations, seconds, workers


def answer(query: dict[str, Any], out: TextIO) -> dict[str, Any]:
    iterations, seconds, workers = budget_of(query)
    top = query.get("top", 10)
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise QueryError("'top' must be a positive whole number")
    state, view = position_of(query)
    if state.is_terminal():
        raise QueryError("the game is over in that position")
    if state.is_chance():
        raise QueryError("that position is a chance node: nobody decides there")
    seat = query.get("seat", state.current_player)
    if seat != state.current_player:
        raise QueryError(f"seat {seat} is not to move there (seat {state.current_player} is)")
    if view is not None and view != seat:
        raise QueryError(f"the record is redacted for seat {view}")
    root_moves = None
    if query.get("restrict"):
        if not isinstance(query["restrict"], list):
            raise QueryError("'restrict' must be a list of moves")
        try:
            root_moves = [state.move(m).code for m in query["restrict"]]
        except XenophonError as error:
            raise QueryError(f"restrict: {error}") from None
    bot = ISMCTSBot(iterations=iterations, time_limit=seconds, workers=workers,
                    seed=query.get("search_seed", 0) if isinstance(query.get("search_seed", 0),
                                                                   int) else 0)
    stream = query.get("stream")

    def progress(partial: SearchResult) -> None:
        write(out, {"id": query.get("id"), "final": False, "seat": seat,
                    **result_dict(partial, top)})

    every = float(stream) if isinstance(stream, (int, float)) and stream > 0 else 0.5
    result = bot.analyse(state, on_progress=progress if stream else None, every=every,
                         root_moves=root_moves)
    return {"id": query.get("id"), "final": True, "seat": seat, **result_dict(result, top)}


def write(out: TextIO, data: dict[str, Any]) -> None:
    out.write(json.dumps(data, ensure_ascii=False) + "\n")
    out.flush()


def serve(lines, out: TextIO) -> None:
    for line in lines:
        if not line.strip():
            continue
        query_id = None
        try:
            query = json.loads(line)
            if not isinstance(query, dict):
                raise QueryError("a query is a JSON object")
            query_id = query.get("id")
            if query.get("command") == "quit":
                return
            write(out, answer(query, out))
        except json.JSONDecodeError as error:
            write(out, {"id": None, "error": f"not valid JSON: {error.msg}"})
        except XenophonError as error:
            write(out, {"id": query_id, "error": str(error)})


def run(args: argparse.Namespace) -> int:
    serve(sys.stdin, sys.stdout)
    return 0
