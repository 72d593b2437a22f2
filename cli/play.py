"""`xenophon play`: a game against the AI in the terminal."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from xenophon.chance import ChanceStream
from xenophon.cli.common import (LEVELS, UsageError, add_game_arguments, bot_for_level,
                                 add_workers_argument, game_from_arguments, percent,
                                 use_color)
from xenophon.errors import XenophonError
from xenophon.game import CHANCE, State
from xenophon.records import Record
from xenophon.session import Session as GameSession
from xenophon.session import Start, default_save_path, resumed_game
from xenophon.session import new_game as start_game

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


class Session(GameSession):
    """One game between the human at the terminal and the AI: the shared
    session (xenophon.session) with a prompt and printed lines."""

    def __init__(self, state: State, record: Record, view_lines: list[dict[str, Any]],
                 human: int, bot: Any, hint_bot: Any, chance: ChanceStream, out: TextIO,
                 color: bool, autosave: Path | None):
        super().__init__(state, record, view_lines, human, chance, autosave)
        self.bot = bot
        self.hint_bot = hint_bot
        self.out = out
        self.color = color
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
        self.finish()
        outcome = self.state.returns()[self.human]
        self.say({1: "You win.", -1: "The AI wins.", 0: "Draw."}[int(outcome)])
        path = self.save_or_say()
        if path is None:
            return 1
        self.say(f"Game record saved to {path}")
        return 0

    def play_chance(self) -> None:
        self.chance_seen.append(self.chance_step())

    def play_ai(self) -> None:
        played = self.ai_play(self.bot, self.ai_search(self.bot))
        self.say(f"AI: {played.shown}" + (f"   (AI's win chance {percent(played.win)})"
                                          if played.win is not None else ""))

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
            self.show_hint()
            return True
        if command == "undo":
            return self.take_back()
        if command == "save":
            self.save_command(rest.split())
            return True
        try:
            self.human_play(line)
        except XenophonError as error:
            self.say(f"{error}\n(type 'moves' for the legal moves, 'help' for commands)")
        return True

    def show_hint(self) -> None:
        result = self.hint(self.hint_bot)
        self.say(f"  AI's view for you ({result.iterations} iterations):")
        top = result.moves[:3]
        width = max(len(stat.move.text) for stat in top) + 2
        for stat in top:
            self.say(f"  {stat.move.text:<{width}} win {percent(stat.win_probability):>4}  "
                     f"({stat.visits} visits)")

    def take_back(self) -> bool:
        if not self.undo():
            self.say("Nothing to undo: this is your first decision.")
            return True
        self.say("Back to your previous decision.")
        return False

    # -- saving -------------------------------------------------------------
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
            path = self.save_or_say()
            if path is not None:
                self.say(f"The game goes on; it was saved to {path} instead.")

    def save_or_say(self) -> Path | None:
        """Saves to the session's own file (or the working folder); says why
        when neither works (None)."""
        path, reasons = self.save_somewhere()
        if path is None:
            self.say("The game could not be saved: " + "; ".join(reasons))
        return path

    def leave(self, why: str) -> int:
        path = self.save_or_say()
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


def new_game(args: argparse.Namespace) -> Start:
    """A new game: chance from a secret, or from --seed when the player chose one."""
    if args.game is None:
        raise UsageError("which game? xenophon play anabasis | xenophon play hero")
    return start_game(game_from_arguments(args, args.seed), args.seat, args.level, args.seed)


def run(args: argparse.Namespace) -> int:
    if args.resume and (args.game or args.seed is not None or args.seat is not None):
        raise UsageError("--resume continues a saved game as it was: give no game, --seed "
                         "or --seat with it")
    start = resumed_game(args.resume, args.level) if args.resume else new_game(args)
    if start.note:
        print(start.note)
    state, human, level = start.state, start.human, start.level
    bot = bot_for_level(level, 0, args.workers)
    hint_bot = bot_for_level("normal", 0, args.workers)
    session = Session(state, start.record, start.view_lines, human, bot, hint_bot, start.chance,
                      sys.stdout, use_color(), default_save_path(state.game.name))
    if args.resume:
        session.written.append(Path(args.resume))       # this game's own file
    session.say(f"{state.game.name}: you are seat {human} ("
                f"{'first' if human == 0 else 'second'} to move), the AI plays at level "
                f"{level}. Type 'help' for commands.")
    try:
        return session.run(_read_line)
    except KeyboardInterrupt:
        return session.leave("interrupted")
