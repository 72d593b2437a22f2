"""`record_file`: any bytes as a record file, loaded and replayed.

`load_record`, `make_game_for` and `replay` may refuse a file only with a
XenophonError (a one-line message naming the file or the line, printable as
it is: `sample.check_message`); any other exception, a hang or a crash is a
finding.

Replaying a redacted record resamples the hidden part of a line's world
until the line fits; for a corrupt line that is `records.RESAMPLE_TRIES`
(20,000) resamples, seconds to minutes of work, before the line is refused.
The target cuts that budget to RESAMPLE_TRIES (the seeds replay with far
fewer), so that one such input does not cost as much as thousands of others.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import write_atomic
from xenophon.play import records
from xenophon.play.records import Record, load_record, make_game_for, new_record, redact, replay

from . import sample

SEED_LINES = 60  # records cut after this many lines (a game in progress)
REDACTED_LINES = 30
RESAMPLE_TRIES = 100


def record_target(data: bytes) -> None:
    path = sample.scratch("record.jsonl")
    path.write_bytes(data)
    try:
        with sample.patched(records, "RESAMPLE_TRIES", RESAMPLE_TRIES):
            record = load_record(path)
            replay(record, make_game_for(record))
    except XenophonError as error:
        sample.check_message(error)


def game_record(name: str, index: int = 0, lines: int | None = None) -> Record:
    """The record of the `index`-th seeded game of `name`, cut after `lines` lines
    (the whole game, with its result, by default)."""
    game = sample.games(name)[index]
    record = new_record(game, ["fuzz", "fuzz"])
    played = sample.game_lines(name, index)
    for player, move in played[:lines]:
        record.add(player, move)
    if lines is None or lines >= len(played):
        state, _ = replay(record, game)
        record.result = state.returns()
    return record


def record_bytes(record: Record) -> bytes:
    path = sample.scratch("seed.jsonl")
    record.save(path)
    return path.read_bytes()


def stable_record_file(name: str) -> Path:
    """A record of `name` at a path that is the same in every process (engine
    queries name it, and a saved finding must find it again)."""
    path = Path(tempfile.gettempdir()) / f"xenophon-fuzz-{name}-record.jsonl"
    data = record_bytes(game_record(name, 0, SEED_LINES))
    if not path.exists() or path.read_bytes() != data:
        write_atomic(path, data)
    return path


def record_seeds() -> list[bytes]:
    """Per game: a game in progress, a whole game with its result, and a game
    in progress redacted for seat 0."""
    seeds = []
    for name in sample.GAMES:
        game = sample.games(name)[0]
        seeds.append(record_bytes(game_record(name, 0, SEED_LINES)))
        seeds.append(record_bytes(game_record(name, 1)))
        seeds.append(record_bytes(redact(game_record(name, 0, REDACTED_LINES), game, 0)))
    return seeds


TARGETS = {"record_file": record_target}
SEEDS = {"record_file": record_seeds}
