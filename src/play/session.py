"""A game between a human and the AI, without any input or output: what the
terminal (`xenophon play`) and the browser (`xenophon serve`) share.

A `Session` keeps two records side by side: the full one (every line) and the
human's view (lines hidden from the human carry no move, every line the
human's information-set key). Chance comes from a `ChanceStream` fixed in
advance, and the AI's randomness is seeded from the same key and the
position, so undo and resume meet the same draws, strikes and AI choices. A
game in progress is saved as the human's view with the rest sealed; only a
finished game is written in full (docs/records.md).
"""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xenophon.kernel.chance import ChanceStream, event_kind
from xenophon.kernel.errors import IllegalMoveError, NotationError, XenophonError, shown
from xenophon.kernel.files import check_output, make_folders, user_data_folder
from xenophon.kernel.game import CHANCE, Game, Move, State
from xenophon.kernel.naming import MoveNames
from xenophon.kernel.narration import HIDDEN, narrator_for
from xenophon.play.external import is_external
from xenophon.play.records import (
    Record,
    load_record,
    make_game_for,
    named,
    named_like,
    new_record,
    open_sealed,
    redact,
    replay,
    seal_game,
    seen_steps,
)

DEFAULT_LEVEL = "normal"
HINT_LEVEL = "normal"  # the search that answers 'hint'


class SessionError(XenophonError):
    """A game that cannot be started or resumed as asked."""


def default_save_path(game_name: str, reserved: set[Path] | frozenset = frozenset()) -> Path:
    """A new file in the user's games folder, named by the time (never one
    that exists or is `reserved` for another game of this process: two games
    started in the same second get -2, -3, ...)."""
    folder = user_data_folder() / "games"
    stem = f"{game_name}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, number = folder / f"{stem}.jsonl", 1
    while path.exists() or path in reserved:
        number += 1
        path = folder / f"{stem}-{number}.jsonl"
    return path


def shown_move(text: str, hidden: bool) -> str:
    """A move as the human may see it: 'set (hidden from you)' for a hidden one."""
    return f"{text.split()[0]} {HIDDEN}" if hidden else text


@dataclass
class AiMove:
    """The AI's move as the human sees it. Nothing of its search comes with
    it: the search's estimates are computed from the AI's hidden cards, so
    they would differ between worlds the human cannot tell apart
    (docs/play.md, "The AI thinking")."""

    seat: int
    shown: str
    said: str = ""  # in the human's words (Narrator.as_seen, before the move)


class Session:
    """One game between the human and the AI, with no input or output."""

    def __init__(
        self,
        state: State,
        record: Record,
        view_lines: list[dict[str, Any]],
        human: int,
        chance: ChanceStream,
        autosave: Path | None,
    ):
        self.state = state
        self.game = state.game
        self.record = record
        self.view_lines = view_lines
        self.human = human
        self.chance = chance
        self.autosave = autosave
        # before each of the human's moves: the state, the record's length, chance used
        self.snapshots: list[tuple[State, int, Counter]] = []
        self.written: list[Path] = []  # files this session may replace
        # what happened, in words, as the human saw it (xenophon.kernel.narration):
        # lines not yet taken, and the chance outcomes waiting to be folded
        self.narrator = narrator_for(state, human)
        self.events: list[str] = []
        self.chance_run: list[tuple[str, str | None]] = []
        self.announced = ""  # the last phase line
        self.last_said = ""  # the human's last move in the human's words (the notation's names)
        # the names of the pieces after each step (xenophon.kernel.naming)
        self.names_trail = [MoveNames(self.game.name, human)]
        self.follow_record()

    def follow_record(self) -> None:
        """A resumed game: the narrator follows the steps already played, so
        that what it keeps of the game (names of pieces) is as if it had
        seen them; their words are not said again."""
        if not self.record.lines:
            return
        _, before = replay(self.record, self.game, len(self.record.lines))
        before.append(self.state)
        for state, after, actor, text in seen_steps(self.record, before, self.human):
            seen = after.view(self.human)
            self.narrator.events(state.view(self.human), seen, actor, text)
            self.follow_names(state.view(self.human), seen, actor, text)
            self.announced = self.narrator.phase_line(seen) or self.announced

    def log(self, player: int, text: str, hidden: bool) -> None:
        """Adds a line to the full record and to the human's view."""
        self.record.add(player, text)
        entry: dict[str, Any] = {"seat": self.record.lines[-1]["seat"]}
        if hidden:
            entry["hidden"] = True
        else:
            entry["move"] = text
        entry["key"] = f"{self.state.information_set_key(self.human):016x}"
        self.view_lines.append(entry)

    def to_move(self) -> str:
        """'human', 'ai', 'chance' or 'over'."""
        player = self.state.current_player
        if self.state.is_terminal():
            return "over"
        if player == CHANCE:
            return "chance"
        return "human" if player == self.human else "ai"

    # -- steps ----------------------------------------------------------------
    def chance_step(self) -> str:
        """Draws and applies one chance outcome; returns it as the human sees it."""
        move = self.chance.draw(self.state)
        hidden = not self.state.observed_by(move.code, self.human)
        self.apply_and_narrate(CHANCE, move, hidden)
        return HIDDEN if hidden else move.text

    def ai_search(
        self, bot: Any, on_progress: Callable[[Any], None] | None = None, every: float = 0.5
    ) -> Any:
        """The AI's search of the position. Its randomness is fixed per
        position too, so undo cannot re-roll its choice. The result is the
        AI's own, from its hidden cards: nothing of it is for the human's
        eyes but the move it leads to (ai_play). `on_progress` is called
        every `every` seconds so that a caller can stop the search (it may
        raise); the partial results it gets are the AI's own too."""
        bot.reseed(self.chance.seed_for("ai", len(self.record.lines)))
        return self._analyse(bot, on_progress, every)

    def ai_play(self, bot: Any, result: Any) -> AiMove:
        """Plays the AI's choice from `result` (of ai_search)."""
        player = self.state.current_player
        move = bot.choose_from(result)
        hidden = not self.state.observed_by(move.code, self.human)
        shown = shown_move(move.text, hidden)
        said = self.narrator.as_seen(shown, player)  # the units named as they stand before it
        self.apply_and_narrate(player, move, hidden)
        return AiMove(player, shown, said)

    def said(self, text: str) -> str:
        """One of the human's moves (the engine's notation) in the human's
        words: the notation's names of the pieces as they stand now."""
        return self.narrator.as_seen(text, self.human)

    def human_play(self, move: Move | str) -> Move:
        """Plays the human's move (a legal Move or a text; XenophonError,
        with nothing changed, if it is not legal)."""
        typed = move
        if isinstance(move, str):
            move = self.narrator.read_move(move)
        try:
            legal = self.state.move(move)
        except NotationError as error:
            raise NotationError(self.narrator.refusal(str(error))) from None
        except IllegalMoveError:
            reason = (
                self.narrator.why_illegal(self.state, self.state.parse_code(move))
                if isinstance(move, str) and not self.state.is_terminal()
                else None
            )
            if reason is None:
                raise
            raise IllegalMoveError(
                f"'{shown(str(typed).strip())}' is not legal now: {reason}"
            ) from None
        self.snapshots.append(
            (self.state.copy(), len(self.record.lines), Counter(self.chance.used))
        )
        self.last_said = self.said(legal.text)  # named before it is played
        self.apply_and_narrate(self.human, legal, hidden=False)
        return legal

    def apply_and_narrate(self, player: int, move: Move, hidden: bool) -> None:
        """Plays a legal move or outcome, records it, and puts what the human
        saw happen into `events` (a chance outcome that only adds to a hand,
        a slot or the market waits in `chance_run`, to be folded into one line)."""
        before = self.state.view(self.human)
        self.state.apply_code(move.code)
        self.log(player, move.text, hidden)
        after = self.state.view(self.human)
        text = None if hidden else move.text
        lines = self.narrator.events(before, after, player, text)
        self.follow_names(before, after, player, text)
        kind = move.text.split()[0]
        if player == CHANCE and self.narrator.folds(kind):
            self.chance_run.append((kind, text))
        else:
            if player == CHANCE:
                lines.insert(0, self.narrator.chance_line([(kind, text)]))
            self.events += self.folded_chance() + lines
        line = self.narrator.phase_line(after)
        if line and line != self.announced:  # not again after a window or a chance node
            self.announced = line
            self.events += self.folded_chance() + [line]
        if self.state.is_terminal():
            self.events += self.folded_chance() + [self.narrator.result_line(after)]

    def follow_names(self, before: dict, after: dict, player: int, text: str | None) -> None:
        names = self.names_trail[-1].copy()
        names.follow(before, after, player, text)
        self.names_trail.append(names)

    def folded_chance(self) -> list[str]:
        """The waiting chance outcomes as one line (none if there are none)."""
        if not self.chance_run:
            return []
        label = (
            "setup" if not any(line["seat"] != "chance" for line in self.record.lines) else "chance"
        )
        line = f"{label}: {self.narrator.chance_line(self.chance_run)}"
        self.chance_run = []
        return [line]

    def take_events(self) -> list[str]:
        """The lines of what happened since the last call (chance folded)."""
        lines = self.events + self.folded_chance()
        self.events = []
        return lines

    def move_names(self) -> MoveNames:
        """The names of the pieces now, as the notation gives them
        (xenophon.kernel.naming), followed from the human's views."""
        return self.names_trail[-1].copy()

    def hint(
        self, bot: Any, on_progress: Callable[[Any], None] | None = None, every: float = 0.5
    ) -> Any:
        """The search's view of the human's position, from the human's information."""
        bot.reseed(self.chance.seed_for("hint", len(self.record.lines)))
        return self._analyse(bot, on_progress, every)

    def _analyse(self, bot: Any, on_progress: Callable[[Any], None] | None, every: float) -> Any:
        if on_progress is None:
            return bot.analyse(self.state)
        return bot.analyse(self.state, on_progress=on_progress, every=every)

    def undo(self) -> bool:
        """Back to the human's previous decision (False when there is none)."""
        if not self.snapshots:
            return False
        self.state, length, self.chance.used = self.snapshots.pop()
        del self.record.lines[length:]
        del self.view_lines[length:]
        self.narrator.rewind(length)
        del self.names_trail[length + 1 :]
        self.events, self.chance_run = [], []
        return True

    def finish(self) -> None:
        """Writes the result into the record (the game is over)."""
        self.record.result = self.state.returns()

    # -- saving ---------------------------------------------------------------
    def saved_form(self) -> Record:
        """What a save writes: the full record once the game is over, before
        that the human's view with everything else sealed."""
        full = named(self.record, self.game)  # a file's moves name units by letters
        if self.state.is_terminal():
            return full
        view = Record(
            self.record.game,
            self.record.options,
            None,
            self.record.card_digest,
            self.record.seats,
            self.human,
            named_like(self.view_lines, full),
            None,
            self.record.version,
            names=full.names,
        )
        return seal_game(full, view, {"chance_key": self.chance.key.hex()})

    def save(self, path: Path, force: bool = False) -> Path:
        """Saves to `path` (checked first; FileError, with nothing written, if
        it cannot be; FileError or SealError if the game cannot be sealed)."""
        check_output(path, force=force, replaceable=self.written, what="saved game")
        return self._write(path, self.saved_form())

    def _write(self, path: Path, form: Record) -> Path:
        saved = form.save(path)
        self.written.append(saved)
        return saved

    def save_somewhere(self) -> tuple[Path | None, list[str]]:
        """Saves to the session's own file, or failing that beside a file the
        player saved to, or in the working folder: the path (None when
        nothing works) and why each place failed, once each (a game that
        cannot be sealed is written nowhere: that one reason)."""
        if self.autosave is None:
            return None, ["this game has no file of its own"]
        try:
            form = self.saved_form()
        except (XenophonError, OSError) as error:
            return None, [str(error)]
        return self._write_somewhere(form, self.autosave)

    def save_unsealed_somewhere(self) -> tuple[Path | None, list[str]]:
        """The last resort of a game that is left and cannot be saved sealed:
        the full record, everything hidden from the human in plain text, as
        NAME-unsealed.jsonl where save_somewhere would put it. Resumed, it
        goes on with chance from a new secret (the chance key is not in it)."""
        if self.autosave is None:
            return None, ["this game has no file of its own"]
        own = self.autosave
        full = named(self.record, self.game)
        return self._write_somewhere(full, own.with_name(f"{own.stem}-unsealed{own.suffix}"))

    def _write_somewhere(self, form: Record, own: Path) -> tuple[Path | None, list[str]]:
        """Writes `form` as `own` (its folder made if missing), or under that
        name beside the files this session wrote, or in the working folder."""
        folders = [path.parent for path in reversed(self.written)] + [Path.cwd()]
        places = [own] + [folder / own.name for folder in dict.fromkeys(folders)]
        reasons: list[str] = []
        for path in dict.fromkeys(places):
            try:
                if path == own:
                    make_folders(path.parent)
                check_output(path, replaceable=self.written, what="saved game")
                return self._write(path, form), reasons
            except XenophonError as error:
                reasons.append(str(error))
            except OSError as error:  # in words, with the path: never a raw [Errno N]
                reasons.append(f"{shown(path, None)}: cannot save ({error.strerror or error})")
        return None, list(dict.fromkeys(reasons))


@dataclass
class Start:
    """What a new or resumed game begins with (the arguments of Session, and
    the AI's level)."""

    state: State
    record: Record
    view_lines: list[dict[str, Any]]
    human: int
    level: str
    chance: ChanceStream
    note: str = ""  # said to the player once (a changed level)
    # a resumed game's states before each of the human's decisions (Session.snapshots)
    snapshots: list[tuple[State, int, Counter]] = field(default_factory=list)

    def session(self, autosave: Path | None) -> Session:
        session = Session(
            self.state, self.record, self.view_lines, self.human, self.chance, autosave
        )
        session.snapshots = self.snapshots
        return session


def new_game(game: Game, seat: int | None, level: str | None, seed: int | None) -> Start:
    """A new game: chance from a secret, or from `seed` when the player chose one."""
    if seed is not None:
        chance = ChanceStream.from_seed(seed)
        human = seat if seat is not None else random.Random(seed).randrange(2)
    else:
        chance = ChanceStream.secret()
        human = seat if seat is not None else secrets.randbelow(2)
    level = level or DEFAULT_LEVEL
    record = new_record(game, ["", ""])
    record.seats[human] = "human"
    record.seats[1 - human] = f"ismcts:{level}"
    return Start(game.new_initial_state(), record, [], human, level, chance)


def resumed_game(path: str | Path, level: str | None) -> Start:
    """A saved game, as it was: the sealed part gives the full lines and the
    chance key, so chance goes on exactly as it would have."""
    saved = load_record(path)
    if "human" not in saved.seats:
        raise SessionError(f"{path}: no human seat in this record")
    human = saved.seats.index("human")
    if saved.sealed is not None:
        full, secrets_ = open_sealed(saved)
        chance = ChanceStream(_chance_key(secrets_.get("chance_key"), str(path)))
        view_lines: list | None = [
            {k: v for k, v in line.items() if k != "line"} for line in saved.lines
        ]
    elif saved.view is None:
        # a full record (an older save): chance goes on from its seed or a new secret
        full = saved
        chance = (
            ChanceStream.from_seed(saved.seed) if saved.seed is not None else ChanceStream.secret()
        )
        view_lines = None
    else:
        raise SessionError(
            f"{path}: a record redacted for seat {saved.view} cannot be "
            "resumed (the AI's hidden cards are not in it)"
        )
    game = make_game_for(full)  # its moves read into the engine's notation
    if view_lines is not None:
        view_lines = named_like(view_lines, full)
    state, before = replay(full, game)
    if state.is_terminal():
        raise SessionError(f"{path}: that game is already over")
    if view_lines is None:
        view_lines = [
            {k: v for k, v in line.items() if k != "line"}
            for line in redact(full, game, human).lines
        ]
    chance.rewind(
        event_kind(before[i]) for i, line in enumerate(full.lines) if line["seat"] == "chance"
    )
    snapshots = decision_snapshots(full, before, human)
    saved_seat = full.seats[1 - human]
    if is_external(saved_seat):  # played against a program: the AI takes its seat
        level = level or DEFAULT_LEVEL
        played_against = shown(saved_seat)
        note = (
            f"The AI now plays at level {level} (the game was played against "
            f"{played_against}; --opponent '{played_against}' plays on against it)."
        )
    else:
        saved_level = saved_seat.partition(":")[2] or DEFAULT_LEVEL
        level = level or saved_level
        note = (
            f"The AI now plays at level {level} (the game was saved at {saved_level})."
            if level != saved_level
            else ""
        )
    full.seats[1 - human] = f"ismcts:{level}"
    return Start(state, full, view_lines, human, level, chance, note, snapshots)


def decision_snapshots(
    full: Record, before: list[State], human: int
) -> list[tuple[State, int, Counter]]:
    """What undo goes back to in a replayed game: before each of the human's
    lines, the state, the record's length and the chance used."""
    snapshots: list[tuple[State, int, Counter]] = []
    used: Counter = Counter()
    for index, line in enumerate(full.lines):
        if line["seat"] == human:
            snapshots.append((before[index], index, Counter(used)))
        elif line["seat"] == "chance":
            used[event_kind(before[index])] += 1
    return snapshots


def _chance_key(text: Any, where: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except (TypeError, ValueError):
        raise SessionError(f"{where}: the sealed part is damaged (no chance key)") from None


def play_through(
    session: Session,
    ai: Any,
    choose: Callable[[Session], Move],
    stop: Callable[[State], bool] | None = None,
) -> list[str]:
    """Plays a session on with no one at the keyboard: chance as it falls,
    the AI's moves by `ai`, the human's by `choose(session)`, until the end
    or until `stop(state)` holds at one of the human's decisions; returns
    the human's moves (what a person would have typed to get there)."""
    typed = []
    while session.to_move() != "over":
        who = session.to_move()
        if who == "chance":
            session.chance_step()
        elif who == "ai":
            session.ai_play(ai, session.ai_search(ai))
        elif stop is not None and stop(session.state):
            break
        else:
            typed.append(session.human_play(choose(session)).text)
    return typed
