"""The JSON analysis protocol of `xenophon engine`: line-delimited queries and
answers on a pair of byte streams
(docs/engine-protocol.md). One query per line; answers carry the query's id.

The engine never stops on a line: a line that is too long, not UTF-8, not
JSON, nested too deep, or a query with a field of the wrong type or range
gets one error answer and the engine reads the next line. Answers are always
valid UTF-8 JSON, one per line, flushed as they are written, in the order of
the queries: lines are read ahead while a thread of their own answers them,
so that a cancel (or the end of the input) stops the analyses before it at
once."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from xenophon.kernel.chance import ChanceStream
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.files import JsonError, decode_text, dumps_line, loads
from xenophon.kernel.game import CHANCE, State
from xenophon.kernel.naming import MoveNames
from xenophon.kernel.registry import check_file_name, game_with_options
from xenophon.play.explain import MAX_WORLDS, explain_search, named_result
from xenophon.play.records import (
    Record,
    is_seat,
    load_record,
    make_game_for,
    named,
    observation_lines,
    record_names,
    replay,
    seat_view,
)
from xenophon.play.seatview import is_hidden_text
from xenophon.search.bots import (
    MAX_SECONDS,
    MAX_TOP,
    ISMCTSBot,
    SearchResult,
    Setting,
    check_setting,
    result_dict,
)

MAX_LINE_BYTES = 16 * 1024 * 1024  # one query line
READ_CHUNK = 1024 * 1024  # how much of an over-long line is read at a time
MIN_STREAM_SECONDS = 0.01  # the shortest interval between partial answers
DEFAULT_ITERATIONS = 2000
DEFAULT_TOP = 10
#: the ranges of the fields that are not search settings (those are bots.SETTINGS)
TOP = Setting(int, 1, MAX_TOP)
STREAM = Setting(float, MIN_STREAM_SECONDS, MAX_SECONDS, none_allowed=True)
SEARCH_SEED = Setting(int)
SEAT = Setting(int, 0, 1, none_allowed=True)
WORLDS = Setting(int, 0, MAX_WORLDS)

CANCEL_POLL = 0.05  # how often a running search looks for a cancel
#: the bytes of query lines read ahead of their answers (a cancel is read at
#: once behind less than this)
MAX_QUEUED_BYTES = 64 * 1024 * 1024
#: every field a query may have
QUERY_FIELDS = (
    "id",
    "command",
    "game",
    "options",
    "seed",
    "moves",
    "observations",
    "record",
    "seat",
    "iterations",
    "time",
    "workers",
    "restrict",
    "top",
    "stream",
    "search_seed",
    "explain",
)
#: a position given by its moves or by one seat's observations
POSITION_FIELDS = ("game", "options", "seed", "moves", "observations")
#: what a query may ask; without 'command' it asks for an analysis
COMMANDS = ("analyse", "new_game", "legal_moves", "state", "cancel", "quit")


class QueryError(XenophonError):
    """A query the engine cannot answer; the message goes back in the answer."""


class LineTooLong:
    """Stands for an input line over the cap (its bytes were skipped)."""


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
        raise QueryError(
            f"unknown field '{shown(unknown[0])}' (a query's fields: {', '.join(QUERY_FIELDS)})"
        )
    if not holds_only_finite_numbers(query.get("id")):
        raise QueryError("'id' holds NaN or Infinity, which JSON does not allow")
    command = query.get("command", "analyse")
    if command not in COMMANDS:
        raise QueryError(
            f"'command' must be one of {', '.join(COMMANDS)} (a query without "
            "'command' asks for an analysis)"
        )


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
    if restrict is not None and (
        not isinstance(restrict, list)
        or not restrict
        or not all(isinstance(m, str) for m in restrict)
    ):
        raise QueryError("'restrict' must be a non-empty list of moves")
    return restrict


# -- the position ---------------------------------------------------------------
def position_from_record(query: dict[str, Any]):
    given = [name for name in POSITION_FIELDS if name in query]
    if given:
        raise QueryError(
            f"give either 'record' or 'game' with 'moves', not both ('{given[0]}' with 'record')"
        )
    path = query["record"]
    if not isinstance(path, str) or not path:
        raise QueryError("'record' must be the path of a record file")
    check_file_name(path, "'record'")
    record = load_record(path)
    game = make_game_for(record)
    state, before = replay(record, game)
    return state, record.view, record_names(record, game, before, state)


def game_of(query: dict[str, Any]):
    name = query.get("game")
    if not isinstance(name, str):
        raise QueryError("a query needs 'game' (with 'moves' or 'observations') or 'record'")
    options = query.get("options", {})
    if not isinstance(options, dict):
        raise QueryError('\'options\' must be an object, e.g. {"mode": "expert"}')
    return game_with_options(name, options, seed=query.get("seed"))


def texts_field(query: dict[str, Any], name: str, what: str) -> list[str]:
    texts = query.get(name, [])
    if not isinstance(texts, list) or not all(isinstance(m, str) for m in texts):
        raise QueryError(f"'{name}' must be a list of {what}")
    return texts


def position_from_moves(query: dict[str, Any]):
    if "observations" in query and "moves" in query:
        raise QueryError(
            "give either 'moves' (the whole game) or 'observations' (what one seat saw), not both"
        )
    if "observations" in query:
        return position_from_observations(query)
    game = game_of(query)
    moves = texts_field(query, "moves", "moves in the game's notation")
    state = game.new_initial_state()
    names = MoveNames(game.name)
    for number, move in enumerate(moves, start=1):
        try:
            played(state, names, move)
        except XenophonError as error:
            raise QueryError(f"move {number} ('{shown(move)}'): {error}") from None
    return state, None, names


def played(state: State, names: MoveNames, move: str) -> str:
    """Plays `move` (in the game's names, or its engine's notation: a slot
    is still read) on `state`, the names following; its engine text."""
    before = state.copy()
    text = state.apply(names.read(state, move)).text
    names.step(before, state, before.current_player, text)
    return text


def observation_line(item: Any, number: int) -> dict[str, Any]:
    """One entry of 'observations' as a record line: a text (a move, or a
    hidden action in words starting with "opponent"), or an object with
    'move' and 'reveals' (the cards a move turned up that it does not name)."""
    if isinstance(item, str):
        return {**observation_lines([item])[0], "line": f"observation {number}"}
    if (
        isinstance(item, dict)
        and set(item) <= {"move", "reveals"}
        and isinstance(item.get("move"), str)
        and not is_hidden_text(item["move"])
        and isinstance(item.get("reveals", []), list)
        and all(isinstance(name, str) for name in item.get("reveals", []))
    ):
        return {**item, "line": f"observation {number}"}
    raise QueryError(
        f"observation {number}: a text, or an object with 'move' and 'reveals' "
        "(a list of card names)"
    )


def position_from_observations(query: dict[str, Any]):
    """A world consistent with what `seat` observed (docs/records.md,
    "Seat-view records"): the seat is the viewing seat."""
    seat = query.get("seat")
    if not is_seat(seat):
        raise QueryError("'observations' are one seat's: give that 'seat' (0 or 1)")
    items = query["observations"]
    if not isinstance(items, list):
        raise QueryError(
            "'observations' must be a list of what the seat saw, in the seat-view notation"
        )
    game = game_of(query)
    record = Record(
        game.name,
        game.options(),
        None,
        game.card_digest(),
        ["?", "?"],
        seat,
        [observation_line(item, n) for n, item in enumerate(items, start=1)],
        names=True,  # a move names pieces as the notation does (a slot is still read)
    )
    try:
        state, before = replay(
            record, game, seed=SEARCH_SEED.check("'search_seed'", query.get("search_seed", 0))
        )
    except XenophonError as error:
        raise QueryError(f"observations: {error}") from None
    return state, seat, record_names(record, game, before, state)


def position_of(query: dict[str, Any]):
    """The state a query asks about and the seat whose view it is (a redacted
    or seat-view record's, observations'; None for a whole game)."""
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
        raise QueryError(
            f"the position is seat {view}'s view (a record or observations of seat {view})"
        )
    return seat


def move_codes(moves: list[str], state: Any, names: MoveNames) -> list[int]:
    try:
        return [state.move(names.read(state, move)).code for move in moves]
    except XenophonError as error:
        raise QueryError(f"restrict: {error}") from None


# -- answering ----------------------------------------------------------------
class Cancelled(Exception):
    """Raised inside a search's progress callback to stop it; carries what
    the search had found."""

    def __init__(self, partial: SearchResult):
        super().__init__("cancelled")
        self.partial = partial


def answer(
    query: dict[str, Any], out: BinaryIO, stop: threading.Event | None = None
) -> dict[str, Any]:
    """The final answer to an analysis query (partial ones are written to
    `out` on the way); every field is checked before the position is built.
    When `stop` is set (a cancel, the end of the input), the search ends
    within about CANCEL_POLL seconds and answers with what it found, marked
    cancelled; so does an explanation stopped before its last world. A
    search that had spent its budget is answered whole."""
    iterations, seconds, workers = budget_of(query)
    top = TOP.check("'top'", query.get("top", DEFAULT_TOP))
    stream = STREAM.check("'stream'", query.get("stream"))
    search_seed = SEARCH_SEED.check("'search_seed'", query.get("search_seed", 0))
    seat = SEAT.check("'seat'", query.get("seat"))
    worlds = WORLDS.check("'explain'", query.get("explain", 0))
    restrict = restrict_field(query)
    state, view, names = position_of(query)
    if state.is_terminal():
        raise QueryError("the game is over in that position")
    if state.is_chance():
        raise QueryError("that position is a chance node: nobody decides there")
    seat = viewing_seat(seat, state, view)
    root_moves = move_codes(restrict, state, names) if restrict else None
    bot = ISMCTSBot(iterations=iterations, time_limit=seconds, workers=workers, seed=search_seed)

    def as_data(found: SearchResult) -> dict[str, Any]:
        return named_result(result_dict(found, top), state, names, seat)

    progress = progress_callback(bot, query, out, seat, as_data, stream, stop)
    cancelled = False
    try:
        result = bot.analyse(
            state,
            on_progress=progress,
            every=min(stream or CANCEL_POLL, CANCEL_POLL) if progress else 0.5,
            root_moves=root_moves,
        )
    except Cancelled as stopped:
        result, cancelled = stopped.partial, True
    final = {"id": query.get("id"), "final": True, "seat": seat, **as_data(result)}
    if cancelled:
        return {**final, "cancelled": True}
    explanation = explain_search(
        state,
        seat,
        result,
        worlds,
        search_seed,
        top,
        stopped=stop.is_set if stop is not None else lambda: False,
    )
    if explanation:
        final["explanation"] = named_result(
            {"moves": [], "explanation": explanation.as_dict()}, state, names, seat
        )["explanation"]
        if explanation.worlds < worlds:  # stopped before its last world
            return {**final, "cancelled": True}
    return final


def progress_callback(
    bot: ISMCTSBot,
    query: dict[str, Any],
    out: BinaryIO,
    seat: int,
    as_data: Callable[[SearchResult], dict[str, Any]],
    stream: float | None,
    stop: threading.Event | None,
) -> Callable[[SearchResult], None] | None:
    """What the search calls between its slices: a partial answer every
    `stream` seconds, and a stop when `stop` is set (None: neither is asked)."""
    if stream is None and stop is None:
        return None
    # a partial result draws its principal variations from the bot's generator;
    # putting the generator back after each keeps the final answer the same
    # however many slices the search took
    saved = bot.rng.getstate()
    last = [time.perf_counter()]

    def progress(partial: SearchResult) -> None:
        bot.rng.setstate(saved)
        # a search that spent its budget in this slice is whole, not cancelled
        spent = bool(bot.iterations) and partial.iterations >= bot.iterations
        if stop is not None and stop.is_set() and not spent:
            raise Cancelled(partial)
        if stream is not None and time.perf_counter() - last[0] >= stream * 0.999:
            last[0] = time.perf_counter()
            write(
                out,
                {"id": query.get("id"), "final": False, "seat": seat, **as_data(partial)},
            )

    return progress


# -- the other commands ---------------------------------------------------------
def new_game(query: dict[str, Any]) -> dict[str, Any]:
    """A game whose chance is drawn from `seed` (as `xenophon play --seed`
    draws it: one fixed sequence per kind of chance event, so no choice of
    moves can steer it), after the decisions in `moves`; answered as `seat`
    sees it: its observations (the seat-view notation), the state and the
    legal moves when the seat is to move."""
    seed = query.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise QueryError("a new game needs its 'seed' (a whole number), which draws its chance")
    seat = SEAT.check("'seat'", query.get("seat"))
    if seat is None:
        raise QueryError("a new game is answered as one seat sees it: give 'seat' (0 or 1)")
    if "observations" in query or "record" in query:
        raise QueryError(
            "a new game is given by 'game', 'options', 'seed' and 'moves' "
            "(its decisions; chance comes from the seed)"
        )
    game = game_of(query)
    chance = ChanceStream.from_seed(seed)
    state = game.new_initial_state()
    record = Record(game.name, game.options(), None, game.card_digest(), ["?", "?"])
    names = MoveNames(game.name)
    draw_chance(state, chance, record, names)
    for number, move in enumerate(
        texts_field(query, "moves", "decisions in the game's notation"), start=1
    ):
        player = state.current_player
        try:
            record.add(player, played(state, names, move))
        except XenophonError as error:
            raise QueryError(f"move {number} ('{shown(move)}'): {error}") from None
        draw_chance(state, chance, record, names)
    observed = named(seat_view(record, game, seat), game)
    return {
        "id": query.get("id"),
        "seat": seat,
        "observations": [observation_text(line) for line in observed.lines],
        **state_answer(state, seat, names),
    }


def draw_chance(state: State, chance: ChanceStream, record: Record, names: MoveNames) -> None:
    """Plays the chance events from `state` on, up to a decision or the end."""
    while state.is_chance():
        outcome = chance.draw(state)
        before = state.copy()
        state.apply_code(outcome.code)
        names.step(before, state, CHANCE, outcome.text)
        record.add(CHANCE, outcome.text)


def observation_text(line: dict[str, Any]) -> Any:
    """A seat-view line as an entry of 'observations' (an object when the
    move turned up cards it does not name)."""
    if "hidden" in line:
        return line["hidden"]
    return {"move": line["move"], "reveals": line["reveals"]} if "reveals" in line else line["move"]


def state_answer(state: State, seat: int, names: MoveNames) -> dict[str, Any]:
    """The position as `seat` sees it: the state dict with what is hidden from
    it taken out (`State.view`), the board as text, who is to move, and the
    legal moves when `seat` is to move."""
    to_move = (
        "over" if state.is_terminal() else ("chance" if state.is_chance() else state.current_player)
    )
    answered: dict[str, Any] = {
        "to_move": to_move,
        "state": state.view(seat),
        "board": names.board(state, seat),
    }
    if state.is_terminal():
        answered["returns"] = state.returns()
    if to_move == seat:
        answered["legal_moves"] = names.said_all(state, [move.text for move in state.legal_moves()])
    return answered


def view_seat(query: dict[str, Any], state: State, view: int | None) -> int:
    """The seat a state or legal-moves query is answered for: the view's
    seat, else 'seat', else the player to move."""
    seat = SEAT.check("'seat'", query.get("seat"))
    if view is not None and seat not in (None, view):
        raise QueryError(f"the position is seat {view}'s view; it is shown to seat {view} only")
    seat = view if view is not None else seat
    if seat is None:
        if state.current_player not in (0, 1):
            raise QueryError("nobody decides in that position: say which 'seat' asks")
        seat = state.current_player
    return seat


def state_query(query: dict[str, Any]) -> dict[str, Any]:
    state, view, names = position_of(query)
    seat = view_seat(query, state, view)
    return {"id": query.get("id"), "seat": seat, **state_answer(state, seat, names)}


def legal_moves_query(query: dict[str, Any]) -> dict[str, Any]:
    state, view, names = position_of(query)
    seat = view_seat(query, state, view)
    if state.is_terminal():
        raise QueryError("the game is over in that position")
    if state.is_chance():
        if view is not None:
            raise QueryError(
                "that position is a chance node whose outcomes depend on cards "
                f"hidden from seat {view}"
            )
        return {
            "id": query.get("id"),
            "seat": seat,
            "to_move": "chance",
            "legal_moves": [move.text for move, _ in state.chance_outcomes()],
        }
    if state.current_player != seat:
        # the opponent's moves would show its hidden hand
        raise QueryError(
            f"seat {state.current_player} is to move there, not seat {seat}: "
            "a seat is told its own legal moves only"
        )
    return {
        "id": query.get("id"),
        "seat": seat,
        "to_move": seat,
        "legal_moves": names.said_all(state, [move.text for move in state.legal_moves()]),
    }


COMMAND_ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "new_game": new_game,
    "legal_moves": legal_moves_query,
    "state": state_query,
}


def write(out: BinaryIO, data: dict[str, Any]) -> None:
    out.write(dumps_line(data).encode("utf-8") + b"\n")
    out.flush()


def error_answer(query_id: Any, error: BaseException) -> dict[str, Any]:
    if isinstance(error, XenophonError):
        return {"id": query_id, "error": str(error)}
    # a bug: answered, so that one query cannot stop the engine
    return {"id": query_id, "error": f"internal error: {type(error).__name__}: {error}"}


# -- serving: lines read ahead, answered in order --------------------------------
@dataclass(eq=False)
class Job:
    """One input line, answered in its turn: its query, or why it is none."""

    query: dict[str, Any] | None = None
    query_id: Any = None
    error: Exception | None = None
    size: int = 0  # the line's bytes, while it waits
    #: an analysis: set to stop it; `stopped_by` is the cancel that set it
    #: (None for the end of the input), `cut_short` whether its answer was
    stop: threading.Event = field(default_factory=threading.Event)
    stopped_by: Job | None = None
    cut_short: bool = False
    #: a cancel: the analyses it stopped
    stopped: list[Job] = field(default_factory=list)

    @property
    def command(self) -> str | None:
        return None if self.query is None else self.query.get("command", "analyse")


def read_job(line: bytes | LineTooLong, number: int) -> Job:
    """The job of one input line: its checked query, or the error to answer."""
    job = Job(size=0 if isinstance(line, LineTooLong) else len(line))
    try:
        query = parse_query(line, number)
        job.query_id = query.get("id") if holds_only_finite_numbers(query.get("id")) else None
        check_fields(query)
        job.query = query
    except Exception as error:
        job.error = error
    return job


class Jobs:
    """The jobs read and not yet answered, in order: the reader adds them as
    it reads, the answerer takes them one by one. A cancel acts when it is
    read, on every analysis read before it and not yet answered (the running
    one and those waiting), whatever waits between them."""

    def __init__(self, max_bytes: int = MAX_QUEUED_BYTES):
        self.max_bytes = max_bytes
        self.condition = threading.Condition()
        self.waiting: deque[Job] = deque()
        self.analyses: list[Job] = []  # read and not yet answered
        self.bytes = 0
        self.ended = False  # nothing more will be added
        self.closed = False  # nothing more will be answered

    def add(self, job: Job) -> bool:
        """Queues a job (waiting while MAX_QUEUED_BYTES of lines wait); False
        once nothing more is answered."""
        with self.condition:
            while self.waiting and self.bytes + job.size > self.max_bytes and not self.closed:
                self.condition.wait()
            if self.closed:
                return False
            if job.command == "cancel":
                job.stopped = self._stop_all(job)
            elif job.command == "analyse":
                self.analyses.append(job)
            self.waiting.append(job)
            self.bytes += job.size
            self.condition.notify_all()
            return True

    def _stop_all(self, by: Job | None) -> list[Job]:
        stopped = [job for job in self.analyses if not job.stop.is_set()]
        for job in stopped:
            job.stopped_by = by
            job.stop.set()
        return stopped

    def end(self, cancel: bool) -> None:
        """No more input: at its end (`cancel`) every analysis not yet
        answered is stopped; after a quit they are answered in full."""
        with self.condition:
            if cancel:
                self._stop_all(None)
            self.ended = True
            self.condition.notify_all()

    def close(self) -> None:
        """Nothing more is answered (the answers cannot be written, or the
        engine was interrupted): the running analysis is stopped, the waiting
        jobs dropped."""
        with self.condition:
            self._stop_all(None)
            self.closed = self.ended = True
            self.waiting.clear()
            self.bytes = 0
            self.condition.notify_all()

    def take(self) -> Job | None:
        """The next job to answer, waiting for one; None when there is none
        left to answer."""
        with self.condition:
            while not self.waiting and not self.ended:
                self.condition.wait()
            if not self.waiting:
                return None
            job = self.waiting.popleft()
            self.bytes -= job.size
            self.condition.notify_all()
            return job

    def answered(self, job: Job) -> None:
        with self.condition:
            if job in self.analyses:
                self.analyses.remove(job)


def answer_job(job: Job, out: BinaryIO) -> None:
    """Writes the answer to one job (an error answer when it has none)."""
    try:
        if job.error is not None:
            raise job.error
        assert job.query is not None
        command = job.command
        if command == "cancel":
            # the analyses it stopped were read before it, so are answered now
            cancelled = any(
                stopped.stopped_by is job and stopped.cut_short for stopped in job.stopped
            )
            write(out, {"id": job.query_id, "cancelled": cancelled})
        elif command == "analyse":
            final = answer(job.query, out, job.stop)
            job.cut_short = bool(final.get("cancelled"))
            write(out, final)
        else:
            write(out, COMMAND_ANSWERS[str(command)](job.query))
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except Exception as error:
        write(out, error_answer(job.query_id, error))


def answer_jobs(jobs: Jobs, out: BinaryIO, failure: list[BaseException]) -> None:
    """Answers the jobs in order until none is left (the answerer's thread)."""
    try:
        while (job := jobs.take()) is not None:
            try:
                answer_job(job, out)
            finally:
                jobs.answered(job)
    except BaseException as error:  # the answers cannot be written: stop reading
        failure.append(error)
        jobs.close()


def serve(stream: BinaryIO, out: BinaryIO) -> None:
    """Answers every line of `stream`, in order, until its end or a quit
    command. Lines are read while the answers are worked out, so that a
    cancel acts at once; at the end of the input the analyses not yet
    answered are cancelled, after a quit they are finished."""
    jobs = Jobs()
    failure: list[BaseException] = []
    answerer = threading.Thread(target=answer_jobs, args=(jobs, out, failure), daemon=True)
    answerer.start()
    try:
        quit_read = False
        for number, line in enumerate(read_lines(stream), start=1):
            if not isinstance(line, LineTooLong) and not line.strip():
                continue
            job = read_job(line, number)
            if job.command == "quit":
                quit_read = True
                break
            if not jobs.add(job):
                break
        jobs.end(cancel=not quit_read)
        answerer.join()
    except BaseException:
        jobs.close()
        answerer.join(timeout=CANCEL_POLL * 20)
        raise
    if failure:
        raise failure[0]
