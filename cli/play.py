"""`xenophon play`: a game against the AI in the terminal."""
from __future__ import annotations

import argparse
import random
import secrets
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from xenophon.chance import ChanceStream, event_kind
from xenophon.cli.common import (LEVELS, UsageError, add_game_arguments, bot_for_level,
                                 add_workers_argument, game_from_arguments, percent,
                                 use_color)
from xenophon.errors import XenophonError
from xenophon.files import FileError, check_output, user_data_folder
from xenophon.game import CHANCE, State
from xenophon.records import (Record, load_record, make_game_for, new_record,
                              open_sealed, redact, replay, seal_game)

HELP = """Type a move in the game's notation, or one of:
  moves        list the legal moves
  hint         the AI's three best moves for you, with win probabilities
  undo         go back to your previous decision (chance stays as it fell)
  save FILE    save the game to FILE (add --force to replace another file);
               what you have not seen is sealed, not written in plain text
  board        show the board again
  help         this text
  quit         save the game and leave (Ctrl-C does the same)"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("play", help="play a game against the AI",
                                 description="Play Anabasis or A Hero incarnation against "
                                             "the AI in the terminal.")
    parser.add_argument("game", nargs="?", choices=("anabasis", "hero"), help="which game")
    add_game_arguments(parser, game_positional=False)
    parser.add_argument("--seat", type=int, choices=(0, 1),
                        help="your seat (0 moves first; default random)")
    parser.add_argument("--level",
                        help=f"AI strength: {', '.join(LEVELS)}, a time per move like 2s, "
                             "or an iteration count like 5000 (default normal; with --resume, "
                             "the saved level)")
    add_workers_argument(parser)
    parser.add_argument("--resume", metavar="RECORD", help="continue a saved game")
    parser.set_defaults(run=run)


def default_save_path(game_name: str) -> Path:
    """A new file in the user's games folder, named by the time (never one
    that exists: two games started in the same second get -2, -3, ...)."""
    folder = user_data_folder() / "games"
    stem = f"{game_name}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, number = folder / f"{stem}.jsonl", 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}.jsonl"
    return path


class Session:
    """One game between the human at the terminal and the AI.

    Two records grow side by side: the full one (every line) and the human's
    view (lines hidden from the human carry no move, every line the human's
    information-set key). A game in progress is saved as the view with the
    rest sealed; only a finished game is written in full."""

    def __init__(self, state: State, record: Record, view_lines: list[dict[str, Any]],
                 human: int, bot: Any, hint_bot: Any, chance: ChanceStream, out: TextIO,
                 color: bool, autosave: Path):
        self.state = state
        self.game = state.game
        self.record = record
        self.view_lines = view_lines
        self.human = human
        self.bot = bot
        self.hint_bot = hint_bot
        self.chance = chance
        self.out = out
        self.color = color
        self.autosave = autosave
        # before each of the human's moves: the state, the record's length, chance used
        self.snapshots: list[tuple[State, int, Counter]] = []
        self.written: list[Path] = []                   # files this session may replace
        self.chance_seen: list[str] = []                # chance outcomes not yet printed

    def say(self, text: str = "") -> None:
        self.flush_chance()
        print(text, file=self.out, flush=True)

    def flush_chance(self) -> None:
        """Prints the chance outcomes since the last message, on one folded line."""
        if not self.chance_seen:
            return
        import textwrap
        lines = textwrap.wrap(", ".join(self.chance_seen), width=78,
                              initial_indent="  chance: ", subsequent_indent="          ")
        self.chance_seen = []
        print("\n".join(lines), file=self.out, flush=True)

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

    # -- the loop -----------------------------------------------------------
    def run(self, read_line) -> int:
        shown = False
        while not self.state.is_terminal():
            player = self.state.current_player
            if player == CHANCE:
                self.play_chance()
            elif player != self.human:
                self.play_ai()
                shown = False
            else:
                if not shown:
                    self.say(self.state.render(self.human, color=self.color))
                    shown = True
                line = read_line("your move> ")
                if line is None:
                    return self.leave("end of input")
                shown = self.handle(line.strip())
                if shown is None:
                    return self.leave("quit")
        self.say(self.state.render(self.human, color=self.color))
        self.record.result = self.state.returns()
        outcome = self.state.returns()[self.human]
        self.say({1: "You win.", -1: "The AI wins.", 0: "Draw."}[int(outcome)])
        path = self.save_somewhere()
        if path is None:
            return 1
        self.say(f"Game record saved to {path}")
        return 0

    def play_chance(self) -> None:
        move = self.chance.draw(self.state)
        hidden = not self.state.observed_by(move.code, self.human)
        self.state.apply_code(move.code)
        self.log(CHANCE, move.text, hidden)
        self.chance_seen.append("(hidden from you)" if hidden else move.text)

    def play_ai(self) -> None:
        player = self.state.current_player
        # the AI's randomness is fixed per position too, so undo cannot re-roll its choice
        self.bot.reseed(self.chance.seed_for("ai", len(self.record.lines)))
        result = self.bot.analyse(self.state)
        move = self.bot.choose_from(result)
        hidden = not self.state.observed_by(move.code, self.human)
        shown = move.text.split()[0] + " (hidden from you)" if hidden else move.text
        self.state.apply_code(move.code)
        self.log(player, move.text, hidden)
        win = result.best.win_probability if result.iterations else None
        self.say(f"AI: {shown}" + (f"   (AI's win chance {percent(win)})" if win is not None
                                   else ""))

    def handle(self, line: str) -> bool | None:
        """Carries out one line of input; returns whether the board is on screen
        (None to leave)."""
        command, _, rest = line.partition(" ")
        command = command.lower()
        if not line:
            return True
        if command in ("quit", "exit"):
            return None
        if command == "help":
            self.say(HELP)
            return True
        if command == "board":
            return False
        if command == "moves":
            self.say(columns([m.text for m in self.state.legal_moves()]))
            return True
        if command == "hint":
            self.hint()
            return True
        if command == "undo":
            return self.undo()
        if command == "save":
            self.save_command(rest.split())
            return True
        try:
            move = self.state.move(line)
        except XenophonError as error:
            self.say(f"{error}\n(type 'moves' for the legal moves, 'help' for commands)")
            return True
        self.snapshots.append((self.state.copy(), len(self.record.lines),
                               Counter(self.chance.used)))
        self.state.apply_code(move.code)
        self.log(self.human, move.text, hidden=False)
        return True

    def hint(self) -> None:
        self.hint_bot.reseed(self.chance.seed_for("hint", len(self.record.lines)))
        result = self.hint_bot.analyse(self.state)
        self.say(f"  AI's view for you ({result.iterations} iterations):")
        top = result.moves[:3]
        width = max(len(stat.move.text) for stat in top) + 2
        for stat in top:
            self.say(f"  {stat.move.text:<{width}} win {percent(stat.win_probability):>4}  "
                     f"({stat.visits} visits)")

    def undo(self) -> bool:
        if not self.snapshots:
            self.say("Nothing to undo: this is your first decision.")
            return True
        self.state, length, self.chance.used = self.snapshots.pop()
        del self.record.lines[length:]
        del self.view_lines[length:]
        self.say("Back to your previous decision.")
        return False

    # -- saving -------------------------------------------------------------
    def saved_form(self) -> Record:
        """What a save writes: the full record once the game is over, before
        that the human's view with everything else sealed."""
        if self.state.is_terminal():
            return self.record
        view = Record(self.record.game, self.record.options, None, self.record.card_digest,
                      self.record.seats, self.human, self.view_lines, None, self.record.version)
        return seal_game(self.record, view, {"chance_key": self.chance.key.hex()})

    def save(self, path: Path, force: bool = False) -> Path:
        """Saves to `path` (checked first; FileError, with nothing written, if
        it cannot be)."""
        check_output(path, force=force, replaceable=self.written, what="saved game")
        saved = self.saved_form().save(path)
        self.written.append(saved)
        return saved

    def save_command(self, words: list[str]) -> None:
        force = "--force" in words
        names = [w for w in words if w != "--force"]
        if len(names) != 1:
            self.say("save needs one file name: save FILE (or save FILE --force)")
            return
        try:
            self.say(f"Saved to {self.save(Path(names[0]), force)}")
        except XenophonError as error:
            self.say(f"Not saved: {error}")
            path = self.save_somewhere()
            if path is not None:
                self.say(f"The game goes on; it was saved to {path} instead.")

    def save_somewhere(self) -> Path | None:
        """Saves to the session's own file, or failing that to the working
        folder; says why when neither works (None)."""
        reasons = []
        for path in (self.autosave, Path.cwd() / self.autosave.name):
            try:
                if path == self.autosave:
                    path.parent.mkdir(parents=True, exist_ok=True)
                return self.save(path)
            except (XenophonError, OSError) as error:
                reasons.append(str(error))
        self.say("The game could not be saved: " + "; ".join(reasons))
        return None

    def leave(self, why: str) -> int:
        path = self.save_somewhere()
        if path is None:
            return 1
        self.say(f"\nGame saved to {path}\nResume it with: xenophon play --resume {path}")
        return 0


def columns(texts: list[str], width: int = 80) -> str:
    """The texts in as many columns as fit in `width` characters."""
    cell = max(map(len, texts)) + 2
    per_line = max(1, width // cell)
    rows = [texts[i:i + per_line] for i in range(0, len(texts), per_line)]
    return "\n".join("".join(t.ljust(cell) for t in row).rstrip() for row in rows)


def _read_line(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def new_game(args: argparse.Namespace) -> tuple[State, Record, list, int, str, ChanceStream]:
    """A new game: chance from a secret, or from --seed when the player chose one."""
    if args.game is None:
        raise UsageError("which game? xenophon play anabasis | xenophon play hero")
    game = game_from_arguments(args, args.seed)
    if args.seed is not None:
        chance = ChanceStream.from_seed(args.seed)
        human = args.seat if args.seat is not None else random.Random(args.seed).randrange(2)
    else:
        chance = ChanceStream.secret()
        human = args.seat if args.seat is not None else secrets.randbelow(2)
    level = args.level or "normal"
    record = new_record(game, ["", ""])
    record.seats[human] = "human"
    record.seats[1 - human] = f"ismcts:{level}"
    return game.new_initial_state(), record, [], human, level, chance


def resumed_game(args: argparse.Namespace) -> tuple[State, Record, list, int, str, ChanceStream]:
    """A saved game, as it was: the sealed part gives the full lines and the
    chance key, so chance goes on exactly as it would have."""
    saved = load_record(args.resume)
    if "human" not in saved.seats:
        raise UsageError(f"{args.resume}: no human seat in this record")
    human = saved.seats.index("human")
    if saved.sealed is not None:
        full, secrets_ = open_sealed(saved)
        chance = ChanceStream(_chance_key(secrets_.get("chance_key"), args.resume))
        view_lines = [{k: v for k, v in line.items() if k != "line"} for line in saved.lines]
    elif saved.view is None:
        # a full record (an older save): chance goes on from its seed or a new secret
        full = saved
        chance = ChanceStream.from_seed(saved.seed) if saved.seed is not None \
            else ChanceStream.secret()
        view_lines = None
    else:
        raise UsageError(f"{args.resume}: a record redacted for seat {saved.view} cannot be "
                         "resumed (the AI's hidden cards are not in it)")
    game = make_game_for(full)
    state, before = replay(full, game)
    if state.is_terminal():
        raise UsageError(f"{args.resume}: that game is already over")
    if view_lines is None:
        view_lines = [{k: v for k, v in line.items() if k != "line"}
                      for line in redact(full, game, human).lines]
    chance.rewind(event_kind(before[i]) for i, line in enumerate(full.lines)
                  if line["seat"] == "chance")
    saved_level = full.seats[1 - human].partition(":")[2] or "normal"
    level = args.level or saved_level
    full.seats[1 - human] = f"ismcts:{level}"
    if level != saved_level:
        print(f"The AI now plays at level {level} (the game was saved at {saved_level}).")
    return state, full, view_lines, human, level, chance


def _chance_key(text: Any, where: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except (TypeError, ValueError):
        raise UsageError(f"{where}: the sealed part is damaged (no chance key)") from None


def run(args: argparse.Namespace) -> int:
    if args.resume and (args.game or args.seed is not None or args.seat is not None):
        raise UsageError("--resume continues a saved game as it was: give no game, --seed "
                         "or --seat with it")
    state, record, view_lines, human, level, chance = \
        resumed_game(args) if args.resume else new_game(args)
    bot = bot_for_level(level, 0, args.workers)
    hint_bot = bot_for_level("normal", 0, args.workers)
    session = Session(state, record, view_lines, human, bot, hint_bot, chance, sys.stdout,
                      use_color(), default_save_path(state.game.name))
    if args.resume:
        session.written.append(Path(args.resume))       # this game's own file
    session.say(f"{state.game.name}: you are seat {human} ("
                f"{'first' if human == 0 else 'second'} to move), the AI plays at level "
                f"{level}. Type 'help' for commands.")
    try:
        return session.run(_read_line)
    except KeyboardInterrupt:
        return session.leave("interrupted")
