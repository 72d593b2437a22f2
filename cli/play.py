"""`xenophon play`: a game against the AI in the terminal."""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from xenophon.cli.common import (LEVELS, UsageError, add_game_arguments, bot_for_level,
                                 game_from_arguments, percent, use_color)
from xenophon.errors import XenophonError
from xenophon.game import CHANCE, State
from xenophon.records import Record, hidden_from, load_record, make_game_for, new_record, replay

HELP = """Type a move in the game's notation, or one of:
  moves        list the legal moves
  hint         the AI's three best moves for you, with win probabilities
  undo         go back to your previous decision
  save FILE    save the game record to FILE
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
    parser.add_argument("--level", default="normal",
                        help=f"AI strength: {', '.join(LEVELS)}, a time per move like 2s, "
                             "or an iteration count like 5000 (default normal)")
    parser.add_argument("--workers", type=int, default=1, help="AI search threads")
    parser.add_argument("--resume", metavar="RECORD", help="continue a saved game")
    parser.set_defaults(run=run)


def default_save_path(game_name: str) -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"),
                                                           ".local", "share")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(base) / "xenophon" / "games" / f"{game_name}-{stamp}.jsonl"


class Session:
    """One game between the human at the terminal and the AI."""

    def __init__(self, state: State, record: Record, human: int, bot: Any, hint_bot: Any,
                 out: TextIO, color: bool):
        self.state = state
        self.game = state.game
        self.record = record
        self.human = human
        self.bot = bot
        self.hint_bot = hint_bot
        self.out = out
        self.color = color
        self.snapshots: list[tuple[State, int]] = []   # before each of the human's moves
        self.saved_to: Path | None = None
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
        self.record.result = self.state.returns()
        outcome = self.state.returns()[self.human]
        self.say({1: "You win.", -1: "The AI wins.", 0: "Draw."}[int(outcome)])
        path = self.save(default_save_path(self.game.name))
        self.say(f"Game record saved to {path}")
        return 0

    def play_chance(self) -> None:
        move = self.state.sample_chance(self.game.rng)
        hidden = hidden_from(self.state, move.code, self.human)
        self.state.apply_code(move.code)
        self.record.add(CHANCE, move.text)
        self.chance_seen.append("(hidden from you)" if hidden else move.text)

    def play_ai(self) -> None:
        player = self.state.current_player
        result = self.bot.analyse(self.state)
        move = self.bot.choose_from(result)
        hidden = hidden_from(self.state, move.code, self.human)
        shown = move.text.split()[0] + " (hidden from you)" if hidden else move.text
        self.state.apply_code(move.code)
        self.record.add(player, move.text)
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
            if not rest.strip():
                self.say("save needs a file name: save FILE")
                return True
            self.say(f"Saved to {self.save(Path(rest.strip()))}")
            return True
        try:
            move = self.state.move(line)
        except XenophonError as error:
            self.say(f"{error}\n(type 'moves' for the legal moves, 'help' for commands)")
            return True
        self.snapshots.append((self.state.copy(), len(self.record.lines)))
        self.state.apply_code(move.code)
        self.record.add(self.human, move.text)
        return True

    def hint(self) -> None:
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
        self.state, length = self.snapshots.pop()
        del self.record.lines[length:]
        self.say("Back to your previous decision.")
        return False

    def save(self, path: Path) -> Path:
        self.saved_to = self.record.save(path)
        return self.saved_to

    def leave(self, why: str) -> int:
        path = self.save(default_save_path(self.game.name))
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


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    if args.resume:
        record = load_record(args.resume)
        if "human" not in record.seats:
            raise UsageError(f"{args.resume}: no human seat in this record")
        game = make_game_for(record)
        state, _ = replay(record, game)
        if state.is_terminal():
            raise UsageError(f"{args.resume}: that game is already over")
        human = record.seats.index("human")
        level = record.seats[1 - human].partition(":")[2] or args.level
    else:
        if args.game is None:
            raise UsageError("which game? xenophon play anabasis | xenophon play hero")
        game = game_from_arguments(args, seed)
        human = args.seat if args.seat is not None else random.Random(seed).randrange(2)
        level = args.level
        state = game.new_initial_state()
        record = new_record(game, ["", ""])
        record.seats[human] = "human"
        record.seats[1 - human] = f"ismcts:{level}"
    bot = bot_for_level(level, seed + 1, args.workers)
    hint_bot = bot_for_level("normal", seed + 2, args.workers)
    session = Session(state, record, human, bot, hint_bot, sys.stdout, use_color())
    session.say(f"{game.name}: you are seat {human} ({'first' if human == 0 else 'second'} "
                f"to move), the AI plays at level {level}. Type 'help' for commands.")
    try:
        return session.run(_read_line)
    except KeyboardInterrupt:
        return session.leave("interrupted")
