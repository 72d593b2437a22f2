"""Game records: one JSON Lines format for both games (docs/records.md).

The first line is a header (game, options, seed, card-set digest, seats,
version); every following line is one action or chance outcome in the game's
notation, so that a game replays exactly. A record *redacted* for one seat
drops what that seat did not see (the opponent's draws, which event was set,
...) and keeps, on every line, that seat's information-set key after it, so
that a state consistent with everything the seat saw can be rebuilt and
analysed.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xenophon import __version__
from xenophon.errors import XenophonError
from xenophon.game import CHANCE, Game, State

FORMAT = "xenophon-record"
FORMAT_VERSION = 1
RESAMPLE_TRIES = 20000


class RecordError(XenophonError):
    """A record file that cannot be read or replayed."""


@dataclass
class Record:
    game: str
    options: dict[str, Any]
    seed: int | None
    card_digest: str
    seats: list[str]
    view: int | None = None                    # the seat a redacted record is for
    lines: list[dict[str, Any]] = field(default_factory=list)
    result: list[float] | None = None
    version: str = __version__

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game,
                "options": self.options, "seed": self.seed, "card_digest": self.card_digest,
                "seats": self.seats, "view": self.view, "xenophon": self.version}

    def add(self, player: int, move: str) -> None:
        self.lines.append({"seat": "chance" if player == CHANCE else player, "move": move})

    def save(self, path: str | Path) -> Path:
        """Writes the record atomically (a temporary file, then a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(self.header(), ensure_ascii=False) + "\n")
            for line in self.lines:
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
            if self.result is not None:
                handle.write(json.dumps({"result": self.result}) + "\n")
        os.replace(temporary, path)
        return path


def new_record(game: Game, seats: list[str]) -> Record:
    return Record(game.name, game.options(), game.seed, game.card_digest(), seats)


def load_record(path: str | Path) -> Record:
    """Reads a record file; RecordError with the line number on any fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"{path}: cannot read record ({error.strerror})") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a record (not UTF-8 text)") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError:
            raise RecordError(f"{path}, line {number}: not valid JSON (truncated file?)") from None
    if not rows or not isinstance(rows[0][1], dict) or rows[0][1].get("format") != FORMAT:
        raise RecordError(f"{path}: not a xenophon record (no header line)")
    head = rows[0][1]
    try:
        record = Record(head["game"], dict(head.get("options") or {}), head.get("seed"),
                        head["card_digest"], list(head["seats"]), head.get("view"),
                        version=head.get("xenophon", "?"))
    except (KeyError, TypeError) as error:
        raise RecordError(f"{path}: header lacks {error}") from None
    for number, row in rows[1:]:
        if not isinstance(row, dict):
            raise RecordError(f"{path}, line {number}: not a record line")
        if "result" in row:
            record.result = row["result"]
            continue
        if "seat" not in row or ("move" not in row and not row.get("hidden")):
            raise RecordError(f"{path}, line {number}: a line needs 'seat' and 'move'")
        record.lines.append({**row, "line": number})
    return record


def make_game_for(record: Record, engine: str = "c", **overrides: Any) -> Game:
    from xenophon.games import make_game
    try:
        game = make_game(record.game, seed=record.seed, engine=engine,
                         **{**record.options, **overrides})
    except TypeError as error:
        raise RecordError(f"record options do not fit the game: {error}") from None
    if game.card_digest() != record.card_digest:
        raise RecordError("the record was played with another card set "
                          f"(digest {record.card_digest[:12]}..., this one "
                          f"{game.card_digest()[:12]}...)")
    return game


def hidden_from(state: State, code: int, seat: int, worlds: int = 12) -> bool:
    """True when `seat` cannot tell which action or outcome `code` was: another
    one, here or in a world `seat` cannot tell from this one, would leave
    `seat` with the same information-set key. (Looking only here is not
    enough: the last starting event dealt is forced, yet which one it is
    stays hidden from the opponent.) A seat's own decisions are never hidden
    from it, even where another move would have had the same result."""
    if state.current_player == seat:
        return False
    state.apply_code(code)
    mine = state.information_set_key(seat)
    state.undo()
    rng = random.Random(code * 7919 + seat)
    candidates = [state] + [state.resample(seat, rng) for _ in range(worlds)]
    for world in candidates:
        for other in world.legal_actions():
            if other == code:
                continue
            world.apply_code(other)
            same = world.information_set_key(seat) == mine
            world.undo()
            if same:
                return True
    return False


def redact(record: Record, game: Game, seat: int) -> Record:
    """The record as `seat` saw it: hidden lines carry no move, and every line
    carries the seat's information-set key after it."""
    state = game.new_initial_state()
    redacted = Record(record.game, record.options, record.seed, record.card_digest,
                      record.seats, seat, result=record.result, version=record.version)
    for line in record.lines:
        code = state.move(line["move"]).code
        hidden = hidden_from(state, code, seat)
        state.apply_code(code)
        entry: dict[str, Any] = {"seat": line["seat"]}
        if hidden:
            entry["hidden"] = True
        else:
            entry["move"] = line["move"]
        entry["key"] = f"{state.information_set_key(seat):016x}"
        redacted.lines.append(entry)
    return redacted


def replay(record: Record, game: Game, upto: int | None = None,
           seed: int = 0) -> tuple[State, list[State]]:
    """Replays the first `upto` lines (all by default); returns the final state
    and the state before every line.

    A full record replays exactly. A redacted record is rebuilt: a hidden line
    takes any action giving the recorded key, and when a later line does not
    fit the world built so far, the world is resampled from the viewing seat's
    information until it does (the true game is one such world)."""
    state = game.new_initial_state()
    before: list[State] = []
    rng = random.Random(seed)
    lines = record.lines if upto is None else record.lines[:upto]
    for index, line in enumerate(lines):
        before.append(state.copy())
        if state.is_terminal():
            raise RecordError(f"line {line.get('line', index + 2)}: the game was already over")
        if record.view is None:
            try:
                state.apply(line["move"])
            except XenophonError as error:
                raise RecordError(f"line {line.get('line', index + 2)}: {error}") from None
        else:
            state = _rebuild_step(state, line, record.view, rng)
    return state, before


def _rebuild_step(state: State, line: dict[str, Any], seat: int, rng: random.Random) -> State:
    where = f"line {line.get('line', '?')}"
    try:
        key = int(line["key"], 16)
    except (KeyError, TypeError, ValueError):
        raise RecordError(f"{where}: a redacted line needs its key") from None
    for attempt in range(RESAMPLE_TRIES):
        world = state if attempt == 0 else state.resample(seat, rng)
        code = _matching_code(world, line, seat, key)
        if code is not None:
            world.apply_code(code)
            return world
    raise RecordError(f"{where}: no world consistent with seat {seat}'s information "
                      "plays this line (corrupt or edited record?)")


def _matching_code(state: State, line: dict[str, Any], seat: int, key: int) -> int | None:
    if "move" in line:
        try:
            candidates = [state.move(line["move"]).code]
        except XenophonError:
            return None
    else:
        candidates = state.legal_actions()
    for code in candidates:
        state.apply_code(code)
        matches = state.information_set_key(seat) == key
        state.undo()
        if matches:
            return code
    return None
