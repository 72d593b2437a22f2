"""Game records: one JSON Lines format for both games (docs/records.md).

The first line is a header (game, options, seed, card-set digest, seats,
version); every following line is one action or chance outcome in the game's
notation, so that a game replays exactly. A *seat-view* record holds what one
seat observed: the actions it saw in the game's notation and, for each action
hidden from it, what it saw of it in words ("opponent draws a card",
`xenophon.play.seatview`); a world consistent with all of it is rebuilt for
analysis. The older *redacted* form (still read, and still written for saved
games in progress) carries the seat's information-set key on every line
instead of the words.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from xenophon import __version__
from xenophon.kernel.errors import XenophonError, one_line, shown
from xenophon.kernel.files import (
    MAX_INPUT_BYTES,
    JsonError,
    dumps_line,
    iter_lines,
    loads,
    write_atomic,
)
from xenophon.kernel.game import CHANCE, Game, State
from xenophon.kernel.naming import MoveNames, has_names
from xenophon.kernel.registry import make_game
from xenophon.kernel.seal import SealError, seal, unseal
from xenophon.play.seatview import hidden_text, is_hidden_text, normal, unnamed_reveals

FORMAT = "xenophon-record"
FORMAT_VERSION = 3
#: the format a record is written in: a record whose moves name pieces by
#: the game's names (its header's "notation" is "names") is 3 (a reader of
#: format 2 would read its moves in the engine's notation), seat-view
#: records are 2 (a reader of format 1 would look for keys in them), the
#: rest stay 1
KEYED_FORMAT, SEAT_VIEW_FORMAT, NAMED_FORMAT = 1, 2, 3
#: the header's "notation" of a record whose moves name pieces by the game's
#: names (xenophon.kernel.naming); without it a record is in the engine's
NAMES_NOTATION = "names"
RESAMPLE_TRIES = 20000
SEAT_LABELS = (0, 1, "chance")
RESULTS = ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
MAX_KEY_DIGITS = 16
#: a line of a record file: the longest is the header of a saved game in
#: progress, which holds its sealed part (about 6 KB for a game of 800 lines)
MAX_RECORD_LINE_BYTES = 1024 * 1024
#: the lines of moves a record may hold: the longest of 80 games between
#: random players had 807; a record is held whole, about 400 bytes a line
MAX_RECORD_LINES = 100_000
UNKNOWN_DIGEST = ""  # a seat-view header without a card digest


class RecordError(XenophonError):
    """A record file that cannot be read or replayed."""


@dataclass
class Record:
    game: str
    options: dict[str, Any]
    seed: int | None  # only where the game's chance came from it
    card_digest: str
    seats: list[str]
    view: int | None = None  # the seat a redacted record is for
    lines: list[dict[str, Any]] = field(default_factory=list)
    result: list[float] | None = None
    version: str = __version__
    sealed: str | None = None  # the hidden part of a saved game in progress
    #: whether the lines' moves name pieces by the game's names (as a record
    #: file holds them) rather than in the engine's notation (as the code
    #: reads them: `replay` and `make_game_for` turn them into it, `named`
    #: back into the names)
    names: bool = False

    def is_seat_view(self) -> bool:
        """A record of what one seat observed, without engine keys."""
        return self.view is not None and not any("key" in line for line in self.lines)

    def header(self) -> dict[str, Any]:
        version = SEAT_VIEW_FORMAT if self.is_seat_view() else KEYED_FORMAT
        if self.names:
            version = NAMED_FORMAT
        head = {
            "format": FORMAT,
            "format_version": version,
            "game": self.game,
            "options": self.options,
            "card_digest": self.card_digest,
            "seats": self.seats,
            "view": self.view,
            "xenophon": self.version,
        }
        if self.seed is not None:
            head["seed"] = self.seed
        if self.sealed is not None:
            head["sealed"] = self.sealed
        if self.names:
            head["notation"] = NAMES_NOTATION
        return head

    def add(self, player: int, move: str) -> None:
        self.lines.append({"seat": "chance" if player == CHANCE else player, "move": move})

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the record's file: header, moves, result."""
        rows = [self.header()] + [
            {k: v for k, v in line.items() if k != "line"} for line in self.lines
        ]
        if self.result is not None:
            rows.append({"result": self.result})
        return rows

    def text(self) -> str:
        return rows_text(self.rows())

    def save(self, path: str | Path) -> Path:
        """Writes the record atomically (a temporary file, then a rename); the
        caller has checked the target (xenophon.kernel.files.check_output)."""
        return write_atomic(path, self.text())


def rows_text(rows: list[dict[str, Any]]) -> str:
    """The text of a record file from its rows (one JSON line each)."""
    return "".join(dumps_line(row) + "\n" for row in rows)


def new_record(game: Game, seats: list[str]) -> Record:
    return Record(game.name, game.options(), game.seed, game.card_digest(), seats)


def load_record(path: str | Path) -> Record:
    """Reads and checks a record file, line by line: bounded (a regular file
    of at most 64 MiB, each line at most MAX_RECORD_LINE_BYTES of UTF-8, at
    most MAX_RECORD_LINES lines, JSON nested at most 64 deep) and strict (the
    header's fields, every line's seat, move, key and result); RecordError
    with the line number at the first fault, before the rest is read."""
    lines = iter_lines(path, "record", MAX_RECORD_LINE_BYTES, MAX_INPUT_BYTES)
    with closing(lines):
        return _record_from_lines(enumerate(lines, start=1), shown(path, None))


def parse_record(text: str, where: str) -> Record:
    """A record from its text (as load_record checks a file's; `where` names
    it in the messages)."""
    lines = text.split("\n")
    return _record_from_lines(
        (
            (number, (line.removesuffix("\r"), number < len(lines)))
            for number, line in enumerate(lines, start=1)
        ),
        where,
    )


def _record_from_lines(lines: Iterable[tuple[int, tuple[str, bool]]], where: str) -> Record:
    """A record from its numbered lines (text, whether a newline ended it),
    each checked as it comes: only the lines kept so far are held."""
    record: Record | None = None
    result_line = 0  # the line of the result, which must be the last
    kept = 0
    for number, (line, ended) in lines:
        if not line.strip():
            continue
        row = _json_row(line, ended, f"{where}, line {number}")
        if record is None:
            if not isinstance(row, dict) or row.get("format") != FORMAT:
                raise RecordError(f"{where}: not a xenophon record (no header line)")
            record = _record_from_header(row, where)
            continue
        if result_line:
            raise RecordError(f"{where}, line {result_line}: the result must be the last line")
        here = f"{where}, line {number}"
        if not isinstance(row, dict):
            raise RecordError(f"{here}: not a record line")
        if "result" in row:
            record.result = _checked_result(row["result"], here)
            result_line = number
            continue
        kept += 1
        if kept > MAX_RECORD_LINES:
            raise RecordError(f"{here}: a record holds at most {MAX_RECORD_LINES:,} moves")
        record.lines.append({**_checked_line(row, record.view, here), "line": number})
    if record is None:
        raise RecordError(f"{where}: not a xenophon record (no header line)")
    return record


def _json_row(line: str, ended: bool, here: str) -> Any:
    try:
        return loads(line)
    except JsonError as error:
        hint = "" if ended else " (truncated file?)"
        raise RecordError(f"{here}: {error}{hint}") from None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_seat(value: Any) -> TypeGuard[int]:
    """0 or 1 as a whole number: not 1.0, which equals 1 but is no seat the
    C core takes, nor True."""
    return _is_int(value) and value in (0, 1)


def _record_from_header(head: dict[str, Any], where: str) -> Record:
    version = head.get("format_version")
    if not _is_int(version) or version < 1:
        raise RecordError(f"{where}: the header's format_version must be a whole number")
    if version > FORMAT_VERSION:
        raise RecordError(
            f"{where}: written in record format {shown(version)} by a newer xenophon; "
            f"this one reads format {FORMAT_VERSION}"
        )
    if head.get("view") is not None:
        # a game one seat noted elsewhere: its card set is the one its options
        # name, and its players may be unknown
        head = {"card_digest": UNKNOWN_DIGEST, "seats": ["?", "?"], **head}
    for key in ("game", "card_digest", "seats"):
        if key not in head:
            raise RecordError(f"{where}: the header lacks '{key}'")
    checks = (
        ("game", isinstance(head["game"], str), "a game name"),
        (
            "options",
            isinstance(head.get("options", {}), dict) or head.get("options") is None,
            "an object",
        ),
        ("seed", head.get("seed") is None or _is_int(head.get("seed")), "a whole number"),
        ("card_digest", isinstance(head["card_digest"], str), "a text"),
        (
            "seats",
            isinstance(head["seats"], list)
            and len(head["seats"]) == 2
            and all(isinstance(s, str) for s in head["seats"]),
            "two texts",
        ),
        ("view", head.get("view") is None or is_seat(head.get("view")), "0, 1 or null"),
        ("sealed", head.get("sealed") is None or isinstance(head.get("sealed"), str), "a text"),
        (
            "notation",
            head.get("notation") in (None, NAMES_NOTATION),
            f'"{NAMES_NOTATION}" or absent',
        ),
    )
    for key, ok, expected in checks:
        if not ok:
            raise RecordError(f"{where}: the header's '{key}' must be {expected}")
    version_text = head.get("xenophon", "?")
    return Record(
        head["game"],
        dict(head.get("options") or {}),
        head.get("seed"),
        head["card_digest"],
        list(head["seats"]),
        head.get("view"),
        version=version_text if isinstance(version_text, str) else "?",
        sealed=head.get("sealed"),
        names=head.get("notation") == NAMES_NOTATION,
    )


def _checked_line(row: dict[str, Any], view: int | None, here: str) -> dict[str, Any]:
    seat = row.get("seat")
    if "seat" not in row or not any(
        seat == label and type(seat) is type(label) for label in SEAT_LABELS
    ):
        raise RecordError(f"{here}: 'seat' must be 0, 1 or \"chance\"")
    hidden = row.get("hidden", False)
    if (
        hidden is not False
        and hidden is not True
        and not (isinstance(hidden, str) and is_hidden_text(hidden))
    ):
        raise RecordError(
            f"{here}: 'hidden' must be what the seat saw, in words starting "
            'with "opponent" (e.g. "opponent draws a card"), or true in a '
            "record with keys"
        )
    if hidden is not False and view is None:
        raise RecordError(f"{here}: a hidden line in a full record (its header has no view)")
    if hidden is not False and seat == view:
        raise RecordError(f"{here}: seat {view}'s own move cannot be hidden from it")
    if hidden is False and not isinstance(row.get("move"), str):
        raise RecordError(f"{here}: a line needs 'seat' and 'move'")
    reveals = row.get("reveals", [])
    if (
        not isinstance(reveals, list)
        or not all(isinstance(name, str) for name in reveals)
        or ("reveals" in row and (view is None or hidden is not False))
    ):
        raise RecordError(
            f"{here}: 'reveals' is a list of card names, on a line of a "
            "seat-view record that shows a move"
        )
    if view is not None and ("key" in row or hidden is True):
        key = row.get("key")
        if (
            not isinstance(key, str)
            or not 0 < len(key) <= MAX_KEY_DIGITS
            or any(c not in "0123456789abcdefABCDEF" for c in key)
        ):
            raise RecordError(f"{here}: a redacted line needs its key (hexadecimal)")
    return dict(row)


def _checked_result(result: Any, here: str) -> list[float]:
    if (
        not isinstance(result, list)
        or not all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in result)
        or [float(r) for r in result] not in RESULTS
    ):
        raise RecordError(f"{here}: 'result' must be [1, -1], [-1, 1] or [0, 0]")
    return [float(r) for r in result]


def seal_game(full: Record, view: Record, secrets: dict[str, Any]) -> Record:
    """The record a game in progress is saved as: `view` (what its seat saw,
    in plain text, analysable as a redacted record) with everything else, the
    full lines and `secrets`, sealed (xenophon.kernel.seal)."""
    payload = {
        "lines": [{k: v for k, v in line.items() if k != "line"} for line in full.lines],
        "seed": full.seed,
        **secrets,
    }
    saved = Record(
        view.game,
        view.options,
        None,
        view.card_digest,
        view.seats,
        view.view,
        list(view.lines),
        view.result,
        view.version,
        names=view.names,
    )
    saved.sealed = seal(dumps_line(payload).encode("utf-8"), _visible_bytes(saved))
    return saved


def _visible_bytes(record: Record) -> bytes:
    """What a saved game shows in plain text, its header (without the seal)
    and visible lines, as the seal binds them: a seal opens only with the
    very header and lines it was made with."""
    return dataclasses.replace(record, sealed=None).text().encode("utf-8")


def open_sealed(record: Record) -> tuple[Record, dict[str, Any]]:
    """The full record and the secrets of a sealed game in progress
    (SealError when the seal cannot be opened here)."""
    try:
        payload = loads(unseal(record.sealed or "", _visible_bytes(record)).decode("utf-8"))
    except (JsonError, UnicodeDecodeError):
        raise SealError("the sealed part is damaged (not a record)") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("lines"), list):
        raise SealError("the sealed part is damaged (no lines)")
    seed = payload.pop("seed", None)
    lines = [
        _checked_line(row, None, f"sealed line {n}") if isinstance(row, dict) else _not_a_line(n)
        for n, row in enumerate(payload.pop("lines"), start=1)
    ]
    if len(lines) != len(record.lines):
        raise SealError("the sealed part does not match the record's lines")
    full = Record(
        record.game,
        record.options,
        seed if _is_int(seed) else None,
        record.card_digest,
        record.seats,
        None,
        lines,
        record.result,
        record.version,
        names=record.names,
    )
    return full, payload


def _not_a_line(number: int) -> dict[str, Any]:
    raise RecordError(f"sealed line {number}: not a record line")


def make_game_for(record: Record, engine: str = "c", **overrides: Any) -> Game:
    try:
        game = make_game(
            record.game, seed=record.seed, engine=engine, **{**record.options, **overrides}
        )
    except (TypeError, XenophonError) as error:
        raise RecordError(f"the record's options do not fit the game: {one_line(error)}") from None
    if record.card_digest != UNKNOWN_DIGEST and game.card_digest() != record.card_digest:
        raise RecordError(
            "the record was played with another card set "
            f"(digest {shown(record.card_digest[:12])}..., this one "
            f"{game.card_digest()[:12]}...)"
        )
    if record.names:
        read_names(record, game)
    return game


def redact(record: Record, game: Game, seat: int) -> Record:
    """The record as `seat` saw it: hidden lines carry no move, and every line
    carries the seat's information-set key after it."""
    read_names(record, game)
    state = game.new_initial_state()
    # no seed: it would determine every hidden outcome
    redacted = Record(
        record.game,
        record.options,
        None,
        record.card_digest,
        record.seats,
        seat,
        result=record.result,
        version=record.version,
    )
    for index, line in enumerate(record.lines):
        code = _checked_code(state, line, index)
        hidden = not state.observed_by(code, seat)
        state.apply_code(code)
        entry: dict[str, Any] = {"seat": line["seat"]}
        if hidden:
            entry["hidden"] = True
        else:
            entry["move"] = line["move"]
        entry["key"] = f"{state.information_set_key(seat):016x}"
        redacted.lines.append(entry)
    _check_result(record, state)
    return redacted


def seat_view(record: Record, game: Game, seat: int) -> Record:
    """The full record as `seat` observed it, in the seat-view notation: the
    lines it saw in the game's notation, the others as what it saw of them
    (`xenophon.play.seatview`); no seed and no engine keys."""
    read_names(record, game)
    state = game.new_initial_state()
    view = Record(
        record.game,
        record.options,
        None,
        record.card_digest,
        record.seats,
        seat,
        result=record.result,
        version=record.version,
    )
    for index, line in enumerate(record.lines):
        code = _checked_code(state, line, index)
        entry: dict[str, Any] = {"seat": line["seat"]}
        if state.observed_by(code, seat):
            entry["move"] = line["move"]
            revealed = unnamed_reveals(state, code, seat)
            if revealed:
                entry["reveals"] = revealed
        else:
            entry["hidden"] = hidden_text(state, code, seat)
        state.apply_code(code)
        view.lines.append(entry)
    _check_result(record, state)
    return view


def _checked_code(state: State, line: dict[str, Any], index: int) -> int:
    """The code of a full record's line `index`, checked as `replay` checks
    it: the game goes on, the line's seat is to move, its move is legal."""
    where = _where(line, index + 2)
    _check_turn(state, line, where)
    try:
        return state.move(line["move"]).code
    except XenophonError as error:
        raise RecordError(f"{where}: {error}") from None


def observation_lines(texts: list[str]) -> list[dict[str, Any]]:
    """Record lines from a list of seat-view observations (the engine
    protocol's `observations`): a text starting with "opponent" is a hidden
    action, any other a move in the game's notation; the seat labels are
    filled in as the game is rebuilt."""
    return [{"hidden": text} if is_hidden_text(text) else {"move": text} for text in texts]


def replay(
    record: Record, game: Game, upto: int | None = None, seed: int = 0
) -> tuple[State, list[State]]:
    """Replays the first `upto` lines (all by default); returns the final state
    and the state before every line.

    A full record replays exactly. A seat-view or redacted record is rebuilt:
    a hidden line takes any action the seat would have seen as the line says
    (the same words, or the recorded key), and when a later line does not fit
    the world built so far, the world is resampled from the viewing seat's
    information until it does (the true game is one such world). A line
    without a seat label (observations) is labelled with the player to move.
    A record in the game's names is first read into the engine's notation
    (`read_names`)."""
    read_names(record, game, seed)
    return _replay(record, game, upto, seed)


def read_names(record: Record, game: Game, seed: int = 0) -> None:
    """A record whose moves are in the game's names (`Record.names`) turned
    into the engine's notation, in place, following the names through its
    steps (RecordError at a line naming a piece that is not there)."""
    if not record.names:
        return
    names = MoveNames(game.name, record.view or 0)

    def read(state: State, line: dict[str, Any], where: str) -> None:
        if "move" in line and line["seat"] != "chance":
            try:
                line["move"] = names.read(state, line["move"], line["seat"])
            except XenophonError as error:
                raise RecordError(f"{where}: {error}") from None

    def follow(before: State, after: State, line: dict[str, Any]) -> None:
        player = CHANCE if line["seat"] == "chance" else line["seat"]
        names.step(before, after, player, line.get("move"))

    _replay(record, game, None, seed, read, follow)
    record.names = False


def named(record: Record, game: Game) -> Record:
    """A copy of a record in the engine's notation with its moves in the
    game's names (as a record file is written); its lines' moves as the
    mover writes them (the same record, in a copy, for a game without names)."""
    if not has_names(game.name):
        return dataclasses.replace(record, lines=[dict(line) for line in record.lines])
    final, before = replay(record, game)
    before.append(final)
    names = MoveNames(game.name, record.view or 0)
    lines = []
    for index, line in enumerate(record.lines):
        entry = dict(line)
        player = CHANCE if line["seat"] == "chance" else line["seat"]
        if "move" in line and player != CHANCE:
            entry["move"] = names.said(before[index], line["move"], player)
        names.step(before[index], before[index + 1], player, line.get("move"))
        lines.append(entry)
    return dataclasses.replace(record, lines=lines, names=True)


def record_names(record: Record, game: Game, before: list[State], final: State) -> MoveNames:
    """The names after a replayed record's lines (`before`, `final`: what
    `replay` gave), followed from its viewing seat's views."""
    return names_before(record, game.name, before + [final])[-1]


def names_before(
    record: Record, game_name: str, states: list[State], seat: int | None = None
) -> list[MoveNames]:
    """The names before each of a replayed record's lines: `states[i]` the
    state before line `i` (the state after the last line may follow),
    followed from `seat`'s views (the record's viewing seat's by default)."""
    names = MoveNames(game_name, seat if seat is not None else record.view or 0)
    found = []
    for index, state in enumerate(states):
        found.append(names.copy())
        if index + 1 < len(states):
            line = record.lines[index]
            player = CHANCE if line["seat"] == "chance" else line["seat"]
            names.step(state, states[index + 1], player, line.get("move"))
    return found


def seen_steps(
    record: Record, states: list[State], seat: int
) -> Iterator[tuple[State, State, int, str | None]]:
    """A replayed record's lines as `seat` saw them: for each, the states
    before and after it (`states[i]` before line `i`, the last after the
    last line), its actor (CHANCE for an outcome) and its move, or None when
    it was hidden from the seat (a line of a full record the seat did not
    observe; a line of the seat's view without a move)."""
    for index, line in enumerate(record.lines):
        state, after = states[index], states[index + 1]
        text = line.get("move")
        if (
            text is not None
            and record.view is None
            and not state.observed_by(state.move(text).code, seat)
        ):
            text = None
        yield state, after, CHANCE if line["seat"] == "chance" else line["seat"], text


def named_like(view_lines: list[dict[str, Any]], full: Record) -> list[dict[str, Any]]:
    """A view's lines with each move shown as the full record's line of the
    same index writes it (the full record named, or read back)."""
    return [
        {**line, "move": full.lines[index]["move"]} if "move" in line else dict(line)
        for index, line in enumerate(view_lines)
    ]


def _replay(
    record: Record,
    game: Game,
    upto: int | None,
    seed: int,
    read: Callable[[State, dict[str, Any], str], None] | None = None,
    follow: Callable[[State, State, dict[str, Any]], None] | None = None,
) -> tuple[State, list[State]]:
    state = game.new_initial_state()
    before: list[State] = []
    rng = random.Random(seed)
    lines = record.lines if upto is None else record.lines[:upto]
    for index, line in enumerate(lines):
        before.append(state.copy())
        where = _where(line, index + 2)
        if "seat" not in line and not state.is_terminal():
            line["seat"] = "chance" if state.is_chance() else state.current_player
        _check_turn(state, line, where)
        if read is not None:
            read(state, line, where)
        if record.view is None:
            try:
                state.apply(line["move"])
            except XenophonError as error:
                raise RecordError(f"{where}: {error}") from None
        else:
            state = _rebuild_step(state, line, record.view, rng)
        if follow is not None:
            follow(before[-1], state, line)
    if upto is None:
        _check_result(record, state)
    return state, before


def _where(line: dict[str, Any], number: Any) -> str:
    """Where a line is, for messages: its line in the file ('line 12'), or the
    label a caller gave it ('observation 3')."""
    label = line.get("line", number)
    return label if isinstance(label, str) else f"line {label}"


def seat_label(player: int) -> str:
    return "chance" if player == CHANCE else f"seat {player}"


def _check_turn(state: State, line: dict[str, Any], where: str) -> None:
    """A line must come before the game's end, and its seat must be the
    player to move (public in both games)."""
    if state.is_terminal():
        raise RecordError(f"{where}: the game was already over")
    expected = "chance" if state.is_chance() else state.current_player
    if line["seat"] != expected:
        labelled = "chance" if line["seat"] == "chance" else f"seat {line['seat']}"
        raise RecordError(
            f"{where}: the line is labelled {labelled}, but "
            f"{seat_label(state.current_player)} is to move"
        )


def _check_result(record: Record, final: State) -> None:
    if record.result is None:
        return
    if not final.is_terminal():
        raise RecordError(
            f"the record gives the result {record.result}, but the game is "
            "not over after its last line"
        )
    if final.returns() != record.result:
        raise RecordError(
            f"the record's result {record.result} contradicts the game, "
            f"which ends {final.returns()}"
        )


def _rebuild_step(state: State, line: dict[str, Any], seat: int, rng: random.Random) -> State:
    where = _where(line, "?")
    key = None
    if "key" in line:
        try:
            key = int(line["key"], 16)
        except (TypeError, ValueError):
            raise RecordError(f"{where}: a redacted line needs its key") from None
    if "move" in line:
        try:
            state.parse_code(line["move"])  # not a move at all: no world can play it
        except XenophonError as error:
            raise RecordError(f"{where}: {error}") from None
    for attempt in range(RESAMPLE_TRIES):
        world = state if attempt == 0 else state.resample(seat, rng)
        code = _matching_code(world, line, seat, key)
        if code is not None:
            world.apply_code(code)
            return world
    raise RecordError(
        f"{where}: no world consistent with seat {seat}'s information "
        "plays this line (corrupt or edited record?)"
    )


def _matching_code(state: State, line: dict[str, Any], seat: int, key: int | None) -> int | None:
    """The first action of `state` that fits the line: its move, or (for a
    hidden line) an action hidden from `seat` that it would have seen as the
    line's words; with a key, one that leaves the seat with that key."""
    if "move" in line:
        try:
            candidates = [state.move(line["move"]).code]
        except XenophonError:
            return None
        if key is None and unnamed_reveals(state, candidates[0], seat) != line.get("reveals", []):
            return None  # this world would show the seat other cards
    elif isinstance(line["hidden"], str):
        words = normal(line["hidden"])
        candidates = [
            code
            for code in state.legal_actions()
            if not state.observed_by(code, seat) and normal(hidden_text(state, code, seat)) == words
        ]
    else:
        candidates = state.legal_actions()
    if key is None:
        return candidates[0] if candidates else None
    for code in candidates:
        state.apply_code(code)
        matches = state.information_set_key(seat) == key
        state.undo()
        if matches:
            return code
    return None
