"""One game or one review in the browser, as messages: what the page is sent
and what it may ask. Nothing here touches the network (server.py does); every
message is built from the human seat's view only (State.view), the human's
view of the record (Session.view_lines) and the search's results for the
human's own decisions, so a test can check the messages directly."""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from xenophon.kernel.errors import XenophonError, one_line, shown
from xenophon.kernel.files import REPLACE_WITH_FORCE, FileError
from xenophon.kernel.game import CHANCE, State
from xenophon.kernel.naming import MoveNames
from xenophon.kernel.narration import narrator_for
from xenophon.kernel.plugin import GamePlugin, find_plugin, game_names, plugins
from xenophon.kernel.registry import game_options_from_text, game_with_options, make_game
from xenophon.play.levels import LEVELS, bot_for_level
from xenophon.play.records import (
    Record,
    load_record,
    make_game_for,
    new_record,
    parse_record,
    replay,
    seen_steps,
)
from xenophon.play.review import (
    MISTAKE_THRESHOLD,
    REVIEW_ITERATIONS,
    review_points,
    review_seat,
)
from xenophon.play.session import (
    DEFAULT_LEVEL,
    HIDDEN,
    HINT_LEVEL,
    Session,
    Start,
    default_save_path,
    new_game,
    resumed_game,
    shown_move,
)
from xenophon.search.bots import ISMCTSBot, SearchResult
from xenophon.web.catalogue import (
    anchors_of,
    catalogue,
    moves_for_page,
    opponent_anchors,
    reach,
)
from xenophon.web.searches import PROGRESS_EVERY, Searches, Stopped

Send = Callable[[dict[str, Any]], None]
TOP_MOVES = 5
MAX_REVIEW_ITERATIONS = 20000
RESULT_TEXT = {1: "You win.", -1: "The AI wins.", 0: "Draw."}
WHOLE_NUMBER = re.compile(r"-?[0-9]+")  # a seed or seat as text
RANDOM_SEAT = "random"
UNSEALED_WARNING = (
    "the game was written in full, unsealed: that file shows the AI's hidden "
    "cards, do not open it if you mean to play on fairly"
)
UNSAVED_END = "Save with a file name can still write it; leaving tries its place again."


#: where the server serves each game's page code (its plugin's page_code folder)
PAGE_CODE_URL = "/games/{name}/"
#: the largest message a page may send: an uploaded record for review (a long
#: game's record is some tens of kB); a larger record is reviewed by its path
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def waiting(send: Send) -> Callable[[int], None]:
    """Tells the page its search waits for one of the server's search threads."""
    return lambda ahead: send({"type": "waiting", "ahead": ahead})


def hello_message() -> dict[str, Any]:
    """What the page offers before any game: the levels, and each game: its
    name and title, the controls of its options (its modes, its decks...)
    and where its board's code is."""
    return {
        "type": "hello",
        "levels": list(LEVELS),
        "default_level": DEFAULT_LEVEL,
        "review_iterations": REVIEW_ITERATIONS,
        "max_message_bytes": MAX_MESSAGE_BYTES,
        "games": [
            {
                "name": plugin.name,
                "title": plugin.title,
                "controls": [control.as_message() for control in plugin.page_controls()],
                "code": PAGE_CODE_URL.format(name=plugin.name),
            }
            for plugin in plugins()
        ],
    }


class PageError(XenophonError):
    """A request from the page that cannot be carried out as sent."""


def _plugin(request: dict[str, Any]) -> GamePlugin:
    """The plugin of the game a request names (one line if there is none)."""
    name = _text(request, "game")
    plugin = find_plugin(name) if name is not None else None
    if plugin is None:
        raise PageError(f"unknown game {quoted(name)} ({' or '.join(game_names())})")
    return plugin


def rules_message(request: dict[str, Any]) -> dict[str, Any]:
    """The rules of the game the request names, as `xenophon rules GAME`
    prints them (its plugin's text, for the game with its default options)."""
    plugin = _plugin(request)
    return {
        "type": "rules",
        "game": plugin.name,
        "title": plugin.title,
        "lines": plugin.rules(make_game(plugin.name)),
    }


def error_message(text: str) -> dict[str, Any]:
    """The page's `error`: one line (xenophon.kernel.errors.one_line)."""
    return {"type": "error", "message": one_line(text)}


def quoted(value: Any) -> str:
    """A value of the page's message as an error quotes it: its JSON-like
    form (Python's repr), escaped and cut (xenophon.kernel.errors.shown)."""
    return shown(repr(value))


def analysis_message(
    result: SearchResult, state: State, names: MoveNames, final: bool
) -> dict[str, Any]:
    """A hint: the search's top moves and lines in the notation's names
    (each line followed on a world of the human's information), with the
    anchors of each move on the board."""
    return {
        "type": "analysis",
        "final": final,
        "iterations": result.iterations,
        "moves": [
            {
                "text": names.said(state, stat.move.text),
                "win": stat.win_probability,
                "visits": stat.visits,
                "line": names.line(state, stat.principal_variation, result.player)[1:6],
                "anchors": anchors_of(state.game.name, stat.move.text),
            }
            for stat in result.moves[:TOP_MOVES]
        ],
    }


def _text(request: dict[str, Any], key: str, default: str | None = None) -> str | None:
    value = request.get(key, default)
    if value is not None and not isinstance(value, str):
        raise PageError(f"'{key}' must be a text")
    return value


def _whole_number(value: Any) -> int | None:
    """A JSON whole number, or the text of one (as a form sends it); None
    for anything else (true is not 1, nor 1.5 or '1_000' a seed)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and WHOLE_NUMBER.fullmatch(value.strip()):
        try:
            return int(value)
        except ValueError:  # more digits than Python converts
            return None
    return None


def _seat(request: dict[str, Any]) -> int | None:
    """0 or 1 (a whole number or its text), or None: random (null, "" or
    "random"); anything else (true, 1.0, "1.0", 2) is refused."""
    seat = request.get("seat")
    if seat is None or seat in ("", RANDOM_SEAT):
        return None
    number = _whole_number(seat)
    if number not in (0, 1):
        raise PageError(f"the seat must be 0, 1 or {RANDOM_SEAT} (got {quoted(seat)})")
    return number


def _seed(request: dict[str, Any]) -> int | None:
    seed = request.get("seed")
    if seed is None or seed == "":
        return None
    number = _whole_number(seed)
    if number is None:
        raise PageError(f"the seed must be a whole number (got {quoted(seed)})")
    return number


def game_for_request(request: dict[str, Any]) -> Any:
    """The game a 'new' request names, its options checked by the game API."""
    plugin = _plugin(request)
    # each option a text ("mode": true is refused, not dropped); an empty one is the default
    given = {key: text for key in plugin.options if (text := _text(request, key))}
    return game_with_options(
        plugin.name, game_options_from_text(plugin.name, given), seed=_seed(request)
    )


_RESERVED: set[Path] = set()  # the autosave files of this server's new games
_OPEN: set[Path] = set()  # the saved games resumed by this server's pages, while open
_RESERVING = threading.Lock()


def autosave_path(game_name: str) -> Path:
    """The game's own file: never one another game of this server has."""
    with _RESERVING:
        path = default_save_path(game_name, _RESERVED)
        _RESERVED.add(path)
        return path


def open_saved_game(path: str) -> Path:
    """A saved game a page resumes: its own file, updated in place (as the
    terminal's resume), so never open in two pages at once."""
    own = Path(path).resolve()
    with _RESERVING:
        if own in _OPEN:
            raise PageError(f"{path} is open in another page: play it there, or close that page")
        _OPEN.add(own)
        return own


def close_saved_game(path: Path) -> None:
    with _RESERVING:
        _OPEN.discard(path)


# -- the story: what happened, in words ----------------------------------------
#: the labels Session.folded_chance puts before folded chance outcomes
CHANCE_LABELS = ("setup: ", "chance: ")


class Story:
    """What happened in the game as the human saw it, in the narrator's
    words (the terminal's: xenophon.kernel.narration), each line with the
    turn it belongs to and its kind: 'you', 'ai', 'chance' or 'phase' (a
    turn or phase begins). Only the narrator's lines go in, and they are
    made from the human's views and the steps the human observed."""

    def __init__(self, session: Session):
        self.session = session
        self.entries: list[dict[str, Any]] = []
        self.marks: list[int] = []  # the story's length before each of the human's moves

    def _turn(self) -> int:
        return int(self.session.state.view(self.session.human)["turn"])

    def step(
        self, kind: str, do: Callable[[], Any], notation: Callable[[Any], str] | None = None
    ) -> tuple[Any, list[dict[str, Any]]]:
        """Runs one step (`do`, which plays it on the session) and adds its
        lines: those before the phase line it announced belong to the turn
        it was played in, the phase line and what follows to the new one.
        A move the narrator has no words for is said in its notation as the
        human reads it (`notation` of the step's result); each line of a
        move carries that notation as `move`."""
        session = self.session
        turn, announced, length = self._turn(), session.announced, len(self.entries)
        result = do()  # an illegal move raises here, with nothing added
        if kind == "you":
            self.marks.append(length)
        lines, session.events = session.events, []
        move = notation(result) if notation else None
        phase = session.announced if session.announced != announced else None
        if move is not None and all(
            line == phase or line.startswith(CHANCE_LABELS) for line in lines
        ):
            own = next((i for i, line in enumerate(lines) if line == phase), len(lines))
            lines.insert(own, f"{'you' if kind == 'you' else 'the opponent'}: {move}")
        added = self._add(lines, kind, turn, phase)
        for entry in added:
            if move is not None and entry["kind"] == kind:
                entry["move"] = move
        return result, added

    def flush(self) -> None:
        """The chance outcomes still waiting to be folded, as one line."""
        self._add(self.session.folded_chance(), "chance", self._turn(), None)

    def _add(
        self, lines: list[str], kind: str, turn: int, phase: str | None
    ) -> list[dict[str, Any]]:
        added = []
        for line in lines:
            if line == phase:
                turn, entry = self._turn(), {"kind": "phase", "text": line}
            else:
                folded = line.startswith(CHANCE_LABELS)
                entry = {"kind": "chance" if folded else kind, "text": line}
            added.append({"turn": turn, **entry})
        self.entries += added
        return added

    def undo(self) -> None:
        if self.marks:
            del self.entries[self.marks.pop() :]


def replayed_story(start: Start) -> Story:
    """The story of a resumed game, narrated again from its full record by a
    session of its own (the same narrator, the same views), with the undo
    marks at the human's lines."""
    game = start.state.game
    shadow = Session(
        game.new_initial_state(),
        new_record(game, list(start.record.seats)),
        [],
        start.human,
        start.chance,
        None,
    )
    story = Story(shadow)
    for line in start.record.lines:
        seat = line["seat"]
        move = shadow.state.move(line["move"])
        hidden = not shadow.state.observed_by(move.code, start.human)
        play = partial(shadow.apply_and_narrate, CHANCE if seat == "chance" else seat, move, hidden)
        if seat == "chance":
            story.step("chance", play)
        else:
            shown = shadow.narrator.as_seen(shown_move(move.text, hidden), seat)
            kind = "you" if seat == start.human else "ai"
            story.step(kind, play, lambda _, text=shown: text)  # type: ignore[misc]
    story.flush()
    return story


class WebGame:
    """A game between the page's human and the AI over the shared Session;
    its searches run as `searches` runs them (here, unless told)."""

    def __init__(
        self,
        start: Start,
        autosave: Path | None,
        resumed_from: Path | None = None,
        searches: Searches | None = None,
    ):
        self.session: Session = start.session(autosave)
        self.level = start.level
        self.bot = bot_for_level(start.level, 0)
        self.hint_bot = bot_for_level(HINT_LEVEL, 0)
        self.note = start.note
        self.searches = searches or Searches()
        self.end_unsaved = False  # the game ended and its end could not save it
        # the human has moved in this page (a page left before that leaves
        # no file: nothing of the human's is in the game yet)
        self.moved = False
        self.resumed_from = resumed_from
        if resumed_from is not None:
            self.session.written.append(resumed_from)
        self.story = Story(self.session)
        if start.record.lines:  # a resumed game: its story so far, and its narrator
            told = replayed_story(start)
            self.story.entries, self.story.marks = told.entries, told.marks
            self.session.narrator, self.session.announced = (
                told.session.narrator,
                told.session.announced,
            )

    @classmethod
    def new(cls, request: dict[str, Any], searches: Searches | None = None) -> WebGame:
        level = _text(request, "level") or DEFAULT_LEVEL
        bot_for_level(level, 0)  # an unknown level: one line, before the game
        game = game_for_request(request)
        start = new_game(game, _seat(request), level, _seed(request))
        return cls(start, autosave_path(game.name), searches=searches)

    @classmethod
    def resume(cls, request: dict[str, Any], searches: Searches | None = None) -> WebGame:
        """A saved game, saved back to its own file (replaced whole by a
        rename: until the new one is complete, the earlier save stays)."""
        path = _text(request, "path")
        if not path:
            raise PageError("give the path of a saved game to resume")
        level = _text(request, "level") or None
        start = resumed_game(path, level)
        own = open_saved_game(path)
        try:
            return cls(start, own, own, searches)
        except BaseException:
            close_saved_game(own)
            raise

    def resumes(self, request: dict[str, Any]) -> bool:
        """Whether `request` resumes this page's own resumed game (leaving
        it first saves it in its place, where the request reads it)."""
        path = _text(request, "path")
        return bool(path) and self.resumed_from == Path(path).resolve()  # type: ignore[arg-type]

    # -- messages -------------------------------------------------------------
    def setup_message(self) -> dict[str, Any]:
        game = self.session.game
        return {
            "type": "setup",
            "game": game.name,
            "options": game.options(),
            "seat": self.session.human,
            "level": self.level,
            "cards": catalogue(game),
            "note": self.note,
            "save_path": str(self.session.autosave),
            "resumed": self.resumed_from is not None,
        }

    def position_message(self) -> dict[str, Any]:
        session = self.session
        to_move = session.to_move()
        view = session.state.view(session.human)
        return {
            "type": "position",
            "view": view,
            "reach": reach(session.game, view),
            "to_move": to_move,
            "legal": moves_for_page(session.state, session.said) if to_move == "human" else [],
            "labels": session.narrator.labels(session.state),
            "story": self.story.entries,
            "asking": session.narrator.asking(session.state) if to_move == "human" else None,
            "can_undo": bool(session.snapshots),
        }

    # -- play -----------------------------------------------------------------
    def advance(self, send: Send) -> None:
        """Plays chance and the AI until the human decides or the game ends,
        sending each step; then the position (and the end, saved)."""
        session = self.session
        while True:
            to_move = session.to_move()
            if to_move == "chance":
                text, _ = self.story.step("chance", session.chance_step)
                send({"type": "chance", "text": text})
            elif to_move == "ai":
                self.ai_step(send)
            else:
                break
        self.story.flush()
        send(self.position_message())
        if to_move == "over":
            self.finish(send)

    def ai_step(self, send: Send) -> None:
        session = self.session

        def search(checked: Callable[[Any], None]) -> Any:
            # one message a decision, when its search starts (after any wait
            # for the pool), and nothing of the search: its progress,
            # candidates and estimates come from the AI's hidden cards (the
            # search's slices only let a closing page or a shutdown stop it)
            send({"type": "thinking"})
            return session.ai_search(self.bot, checked, PROGRESS_EVERY)

        result = self.searches.run(search, None, waiting(send))
        played, told = self.story.step(
            "ai",
            lambda: session.ai_play(self.bot, result),
            lambda move: move.said,  # named as its pieces stood before it
        )
        hidden = session.view_lines[-1].get("hidden", False)
        view = session.state.view(session.human)
        send(
            {
                "type": "ai_move",
                "seat": played.seat,
                "text": played.said,
                "anchors": [] if hidden else opponent_anchors(session.game.name, played.shown),
                "lines": [entry["text"] for entry in told if entry["kind"] == "ai"],
                "view": view,
                "reach": reach(session.game, view),
                "labels": session.narrator.labels(session.state),
            }
        )

    def finish(self, send: Send) -> None:
        session = self.session
        session.finish()
        path, reasons = session.save_somewhere()
        self.end_unsaved = path is None
        outcome = int(session.state.returns()[session.human])
        send(
            {
                "type": "over",
                "result": session.state.returns(),
                "text": RESULT_TEXT[outcome],
                "path": str(path) if path else None,
                "error": None if path else f"not saved: {'; '.join(reasons)}. {UNSAVED_END}",
            }
        )

    def move(self, request: dict[str, Any], send: Send) -> None:
        text = _text(request, "move")
        if self.session.to_move() != "human":
            raise PageError("it is not your move")
        if not text or not text.strip():
            raise PageError("type a move, e.g. one from the list")
        legal, _ = self.story.step(
            "you", lambda: self.session.human_play(text), lambda _: self.session.last_said
        )
        self.moved = True
        anchors = anchors_of(self.session.game.name, legal.text)
        send({"type": "played", "text": self.session.last_said, "anchors": anchors})
        self.advance(send)

    def hint(self, send: Send) -> None:
        if self.session.to_move() != "human":
            raise PageError("a hint is for your own move")
        state, names = self.session.state.copy(), self.session.move_names()
        result = self.searches.run(
            lambda checked: self.session.hint(self.hint_bot, checked, PROGRESS_EVERY),
            lambda partial: send(analysis_message(partial, state, names, False)),
            waiting(send),
        )
        send(analysis_message(result, state, names, True))

    def undo(self, send: Send) -> None:
        if not self.session.undo():
            raise PageError("nothing to undo: this is your first decision")
        self.story.undo()
        send(self.position_message())

    def save(self, request: dict[str, Any], send: Send) -> None:
        path = _text(request, "path")
        if path:
            # never forced: the page replaces no file but this game's own
            try:
                saved: Path | None = self.session.save(Path(path))
            except FileError as error:
                raise PageError(
                    str(error).replace(
                        REPLACE_WITH_FORCE,
                        "(choose another name: the page replaces no file but this game's own)",
                    )
                ) from None
        else:
            saved, reasons = self.session.save_somewhere()
            if saved is None:
                raise PageError("not saved: " + "; ".join(reasons))
        self.end_unsaved = False  # a finished game saved by hand is saved
        send({"type": "saved", "path": str(saved)})

    def leave(self) -> dict[str, Any] | None:
        """Saves the game when the page goes (as the terminal's quit): a game
        in progress the human has moved in, or a finished one its end could
        not save; a resumed game back to its own file. What the page is
        told: `saved` and where; when it cannot be sealed or written in its
        place, a game in progress is written in full, unsealed, beside it or
        in the working folder (the terminal's last resort), `saved` with a
        warning; an `error` naming each place and why when nothing works.
        None when there is nothing to save: a page left before its human's
        first move leaves no file (a resumed game's stays as it was)."""
        try:
            return self._leave()
        finally:
            if self.resumed_from is not None:
                close_saved_game(self.resumed_from)

    def _leave(self) -> dict[str, Any] | None:
        session = self.session
        over = session.to_move() == "over"
        if over and not self.end_unsaved:
            return None
        if not over and not self.in_progress_to_save():
            return None
        path, reasons = session.save_somewhere()
        if path is not None:
            return {"type": "saved", "path": str(path), "left": True}
        if over:  # its full record is what failed: there is nothing else to write
            return error_message("the finished game could not be saved: " + "; ".join(reasons))
        return self._leave_unsealed(reasons)

    def in_progress_to_save(self) -> bool:
        """A game in progress that leaving saves: the human has moved in it
        since the page began or resumed it."""
        return self.moved and bool(self.session.record.lines)

    def _leave_unsealed(self, reasons: list[str]) -> dict[str, Any]:
        path, more = self.session.save_unsealed_somewhere()
        if path is None:
            everything = "; ".join(dict.fromkeys(reasons + more))
            return error_message(f"the game could not be saved anywhere: {everything}")
        warning = f"not saved as usual ({'; '.join(reasons)}); {UNSEALED_WARNING}"
        return {"type": "saved", "path": str(path), "left": True, "warning": warning}


# -- review -------------------------------------------------------------------
def _record_for_request(request: dict[str, Any]) -> Record:
    text, path = _text(request, "text"), _text(request, "path")
    if text is not None:
        return parse_record(text, _text(request, "name") or "the uploaded record")
    if not path:
        raise PageError("give the path of a record, or choose a file")
    return load_record(path)


def _review_iterations(request: dict[str, Any]) -> int:
    """A whole number (or its text, in ASCII digits) from 1 to MAX_REVIEW_ITERATIONS."""
    value = _whole_number(request.get("iterations", REVIEW_ITERATIONS))
    if value is None or not 1 <= value <= MAX_REVIEW_ITERATIONS:
        raise PageError(
            f"review iterations must be a whole number from 1 to {MAX_REVIEW_ITERATIONS:,}"
        )
    return value


def terminal_review_command(request: dict[str, Any], seat: int, iterations: int) -> str:
    """The `xenophon review` that reviews the same file as the page, with the
    same seat and budget: it finds the same mistakes (the same search, seed
    and threshold)."""
    where = _text(request, "path") or _text(request, "name") or "FILE"
    return f"xenophon review {shlex.quote(where)} --as {seat} --iterations {iterations}"


class _ReviewBot:
    """The review's bot, its searches run as `searches` runs them: stopped
    within a slice when `cancelled()` (a later request) or the page goes."""

    def __init__(self, bot: ISMCTSBot, searches: Searches, cancelled: Callable[[], bool]):
        self.bot, self.searches, self.cancelled = bot, searches, cancelled

    def analyse(self, state: Any, root_moves: list[int] | None = None) -> SearchResult:
        return self.searches.run(
            lambda checked: self.bot.analyse(
                state, on_progress=checked, every=PROGRESS_EVERY, root_moves=root_moves
            ),
            cancelled=self.cancelled,
        )


def _reviewed_lines(
    record: Record, states: list[State], seat: int
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """A replayed record's lines for the review tab, each move in the
    notation's names as `seat` reads them (as the play tab shows moves), and
    the names the board shows on its pieces before the first line and after
    each (`labels`, as the position message's), followed as the seat saw the
    game (`states[i]` before line `i`, the last after the last line)."""
    narrator = narrator_for(states[0], seat)
    lines, labels = [], [narrator.labels(states[0])]
    for line, (state, after, actor, seen) in zip(record.lines, seen_steps(record, states, seat)):
        text = line.get("move", HIDDEN)
        if "move" in line and actor != CHANCE:
            text = narrator.as_seen(text, actor)  # named before it is followed
        narrator.events(state.view(seat), after.view(seat), actor, seen)
        lines.append({"seat": line["seat"], "text": text})
        labels.append(narrator.labels(after))
    return lines, labels


def review(
    request: dict[str, Any],
    send: Send,
    cancelled: Callable[[], bool],
    searches: Searches | None = None,
) -> None:
    """Loads a record (full, redacted or a saved game in progress, which reads
    as redacted), sends every position as the reviewed seat saw it, then the
    win-probability curve one decision at a time, until `cancelled()` (its
    searches as `searches` runs them)."""
    record = _record_for_request(request)
    iterations = _review_iterations(request)
    game = make_game_for(record)
    final, before = replay(record, game)
    seat = review_seat(record, final, _seat(request), "reviewed", "in the Seat menu")
    positions = [state.view(seat) for state in before[1:]] + ([final.view(seat)] if before else [])
    lines, labels = _reviewed_lines(record, before + [final], seat)
    start = before[0].view(seat) if before else final.view(seat)
    send(
        {
            "type": "review",
            "game": game.name,
            "options": game.options(),
            "seat": seat,
            "cards": catalogue(game),
            "start": start,
            "positions": positions,
            "lines": lines,
            "labels": labels,
            "reach": [reach(game, view) for view in [start, *positions]],
            "result": record.result,
            "redacted": record.view is not None,
            "iterations": iterations,
            "threshold": MISTAKE_THRESHOLD,
            "command": terminal_review_command(request, seat, iterations),
        }
    )
    bot = _ReviewBot(ISMCTSBot(iterations=iterations, seed=0), searches or Searches(), cancelled)
    try:
        for point in review_points(record, before, seat, bot, MISTAKE_THRESHOLD):
            if cancelled():
                return
            send({"type": "review_point", **point.as_dict()})
    except Stopped:
        return
    send({"type": "review_done"})
