"""`sealed_save`: any bytes as a saved game file, resumed (`resumed_game`,
what `xenophon play --resume` and the page's Resume call).

What must hold: the file resumes, or is refused with a XenophonError whose
message is one printable line (`sample.check_message`); any other
exception, a hang or a crash is a finding. And a file with a seal that
resumes is exactly one of the seeds' games: the same header and visible
lines (as the seal binds them: canonical JSON, so whitespace, key order or
an escaped letter change nothing), the same full lines, the same chance key
and chance used. A change to the header, the visible lines or the sealed
part that resumes as anything else (another seat, other lines, other
chance) is a finding: the seal did not bind it. A file without a seal is a
full record, which resumes by design (an older save) with new chance; it
holds no hidden part to protect.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.play.records import load_record
from xenophon.play.session import Start, resumed_game

from . import sample, saves

#: (game, seeded game, the human's decisions before the save, saved with the AI to move)
SAVES = ((0, 4, False), (1, 15, False), (2, 8, True))


class SealFinding(AssertionError):
    """A changed saved game that resumed as a game other than the saved one."""


def fingerprint(start: Start) -> tuple[Any, ...]:
    """What a resumed game is: who plays, the full record, the human's view
    of it, the chance key and the chance already used."""
    return (
        start.human,
        start.level,
        start.record.text(),
        json.dumps(start.view_lines, sort_keys=True),
        start.chance.key,
        repr(sorted(start.chance.used.items())),
    )


def _resumed(data: bytes) -> tuple[Start, bool] | None:
    """The game `data` resumes as and whether it carries a seal; None when
    it is refused the way it should be."""
    path = sample.scratch("saved.jsonl")
    path.write_bytes(data)
    with saves.fixed_key_data():
        try:
            return resumed_game(path, None), load_record(path).sealed is not None
        except XenophonError as error:
            sample.check_message(error)
            return None


@functools.cache
def seed_games() -> frozenset[tuple[Any, ...]]:
    """The fingerprints of the seeds' games (every seed resumes)."""
    found = set()
    for data in save_seeds():
        resumed = _resumed(data)
        assert resumed is not None, "a seed save does not resume"
        found.add(fingerprint(resumed[0]))
    return frozenset(found)


def save_target(data: bytes) -> None:
    resumed = _resumed(data)
    if resumed is None or not resumed[1]:
        return
    if fingerprint(resumed[0]) not in seed_games():
        start = resumed[0]
        raise SealFinding(
            f"a changed save resumed as another game: seat {start.human}, "
            f"{len(start.record.lines)} lines, level {start.level!r}"
        )


@functools.cache
def _seeds() -> tuple[bytes, ...]:
    return tuple(
        saves.saved_game(name, index, decisions, ai)
        for name in sample.GAMES
        for index, decisions, ai in SAVES
    )


def save_seeds() -> list[bytes]:
    """Per game: saves of three seeded games in progress, one with the AI to move."""
    return list(_seeds())


TARGETS = {"sealed_save": save_target}
SEEDS = {"sealed_save": save_seeds}
