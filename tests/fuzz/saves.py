"""Saved games for the fuzz targets that resume them (`sealed_save`,
`web_message`): a data folder with a fixed seal key, seals made the same
every time, games in progress saved from seeded play, and writes kept
inside this process's scratch folder.

The fixed key makes a save sealed in one process open in any other (a
finding saved by a worker replays in the parent); the seals' nonces are
drawn from a counter while the seeds are made, so that the seeds, and so
every input of a run, are the same in every process and every run."""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from xenophon.kernel import seal
from xenophon.kernel.errors import shown
from xenophon.kernel.files import FileError, write_atomic
from xenophon.play import records
from xenophon.play.session import Session, new_game

from . import record_targets, sample
from .budgets import TinyBot

FIXED_KEY = hashlib.sha256(b"xenophon fuzz seal key").digest()
LEVEL = "30"  # the level saved games name (their AI searches as a TinyBot anyway)


@contextlib.contextmanager
def environment(name: str, value: str) -> Iterator[None]:
    """The environment variable `name` set to `value` for a with block."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            del os.environ[name]
        else:
            os.environ[name] = saved


def _put_fixed_key(data_home: Path) -> None:
    folder = data_home / "xenophon"
    path = folder / seal.KEY_FILE
    if path.is_file() and path.read_bytes() == FIXED_KEY:
        return
    folder.mkdir(mode=seal.PRIVATE_FOLDER, parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, seal.PRIVATE_FILE)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(FIXED_KEY)


@contextlib.contextmanager
def fixed_key_data() -> Iterator[Path]:
    """The user's data folder ($XDG_DATA_HOME) moved into this process's
    scratch folder, holding the fixed seal key, for a with block; yields
    xenophon's folder in it."""
    home = sample.scratch("data")
    _put_fixed_key(home)
    with environment("XDG_DATA_HOME", str(home)):
        yield home / "xenophon"


class CountedNonces:
    """Stands for the `secrets` module in xenophon.kernel.seal: nonces from
    a counter, so that a seed sealed twice is the same bytes."""

    def __init__(self) -> None:
        self.count = 0

    def token_bytes(self, length: int) -> bytes:
        self.count += 1
        return hashlib.sha256(b"fuzz nonce %d" % self.count).digest()[:length]

    def token_hex(self, length: int) -> str:
        return self.token_bytes(length).hex()


def guarded_write(root: Path) -> Callable[[Any, Any], Path]:
    """`write_atomic` refusing (FileError) any file outside `root`: a fuzzed
    page may name any path to save to."""

    def write(path: Any, text: Any) -> Path:
        try:
            inside = Path(os.path.abspath(path)).is_relative_to(root)
        except (TypeError, ValueError):
            inside = False
        if not inside:
            raise FileError(f"{shown(path)}: outside the fuzz target's folder")
        return write_atomic(path, text)

    return write


@contextlib.contextmanager
def sandbox(work: Path) -> Iterator[Path]:
    """For a with block: the fixed-key data folder, `work` (emptied) as the
    working folder, and saves refused outside the scratch folder; the games
    written meanwhile are removed after it. Yields the data folder."""
    root = sample.scratch("")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cwd = os.getcwd()
    with fixed_key_data() as data, sample.patched(records, "write_atomic", guarded_write(root)):
        os.chdir(work)
        try:
            yield data
        finally:
            os.chdir(cwd)
            shutil.rmtree(data / "games", ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)


def play_session(session: Session, decisions: int, stop_before_ai: bool) -> Session:
    """Plays `decisions` of the human's decisions (seeded random moves; the AI
    a TinyBot), stopping at the human's next decision or, if
    `stop_before_ai`, at the AI's next one."""
    bot, rng, made = TinyBot(seed=0), random.Random(decisions), 0
    while session.to_move() != "over":
        who = session.to_move()
        if who == "chance":
            session.chance_step()
        elif who == "ai":
            if stop_before_ai and made >= decisions:
                break
            session.ai_play(bot, session.ai_search(bot))
        elif made >= decisions and not stop_before_ai:
            break
        else:
            session.human_play(rng.choice(session.state.legal_moves()))
            made += 1
    return session


def saved_game(name: str, index: int, decisions: int, stop_before_ai: bool = False) -> bytes:
    """The file of the `index`-th seeded game of `name` saved in progress
    after the human's `decisions`, sealed with the fixed key (the same bytes
    in every process)."""
    game = sample.games(name)[index]
    start = new_game(game, index % 2, LEVEL, game.seed)
    session = play_session(start.session(None), decisions, stop_before_ai)
    assert session.to_move() != "over", "the seed game ended before its save"
    with fixed_key_data(), sample.patched(seal, "secrets", CountedNonces()):
        form = session.saved_form()
    return record_targets.record_bytes(form)


def stable_save_file(name: str) -> Path:
    """A saved game of `name` at a path that is the same in every process
    (pages ask to resume it by its path)."""
    path = Path(tempfile.gettempdir()) / f"xenophon-fuzz-{name}-save.jsonl"
    data = saved_game(name, 0, 3)
    if not path.exists() or path.read_bytes() != data:
        write_atomic(path, data)
    return path
