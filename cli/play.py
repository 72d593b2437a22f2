"""`xenophon play`: a game against the AI in the terminal."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from xenophon.cli.common import (
    UsageError,
    add_game_arguments,
    add_workers_argument,
    game_from_arguments,
    percent,
    percents_apart,
    use_color,
    whole_number,
)
from xenophon.cli.lineedit import LineReader
from xenophon.kernel.chance import ChanceStream
from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.game import CHANCE, State
from xenophon.kernel.plugin import find_plugin, game_titles
from xenophon.kernel.registry import GAMES
from xenophon.play.external import Forfeit, Opponent, is_external
from xenophon.play.levels import LEVELS, bot_for_level, level_description, level_from_elo
from xenophon.play.records import Record, load_record
from xenophon.play.session import (
    DEFAULT_LEVEL,
    HINT_LEVEL,
    Session,
    Start,
    default_save_path,
    resumed_game,
)
from xenophon.play.session import new_game as start_game

HELP = """Type a move in the game's notation (Tab completes it, the arrows recall
earlier lines), or one of:
  moves        list the legal moves
  card NAME    a card's stats, text and patterns{card_forms}
  hint         the AI's three best moves for you, with win probabilities
  undo         go back to your previous decision (chance stays as it fell; also
               past a resume)
  save FILE    save the game to FILE (add --force to replace another file);
               what you have not seen is sealed, not written in plain text
  board        show the board again
  rules        how to win and a turn step by step (every card: xenophon rules)
  help         this text
  quit         save the game and leave (Ctrl-C does the same)"""


def add_learn_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "learn",
        help="a guided first game against a gentle AI",
        description=f"A first game of {game_titles('or')}, guided: how to win and a turn "
        "step by step first, then a lesson the first time each kind of decision comes, "
        f"against the AI at its gentlest level ({LEARNING_LEVEL}). Saved as "
        "'xenophon play' games are; 'xenophon learn --resume RECORD' goes on with the "
        "lessons not yet given.",
    )
    parser.add_argument("game", nargs="?", choices=GAMES, help="which game")
    add_game_arguments(parser, game_positional=False)
    parser.add_argument(
        "--seat", type=int, choices=(0, 1), default=0, help="your seat (default 0: you move first)"
    )
    add_workers_argument(parser)
    parser.add_argument(
        "--resume", metavar="RECORD", help="continue a saved guided game, with its lessons"
    )
    add_auto_answer_argument(parser, default=True)
    parser.set_defaults(run=run_learn, elo=None, opponent=None)


def add_auto_answer_argument(parser: Any, default: bool) -> None:
    parser.add_argument(
        "--auto-answer",
        action=argparse.BooleanOptionalAction,
        default=default,
        help="a question with only one legal answer (a 'pass' in a window) is answered for "
        f"you, said in one line (default {'on' if default else 'off'})",
    )


def unusual_options(game: Any) -> str:
    """' (mode expert)': the game's options that are not the ones it has
    when none is given (none: '')."""
    plugin = find_plugin(game.name)
    usual = plugin.options if plugin is not None else {}
    said = []
    for key, value in game.options().items():
        text = "+".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        if text != usual.get(key, text):
            said.append(f"{key} {text}")
    return f" ({', '.join(said)})" if said else ""


def run_learn(args: argparse.Namespace) -> int:
    if args.resume and (args.game or args.seed is not None):
        raise UsageError(
            "--resume continues a saved game as it was: give no game or --seed with it"
        )
    if not args.resume and args.game is None:
        raise UsageError("which game? " + " | ".join(f"xenophon learn {name}" for name in GAMES))
    game_name = load_record(args.resume).game if args.resume else args.game
    plugin = find_plugin(game_name)
    if plugin is None or plugin.intro is None:
        raise UsageError(f"there is no guided game of {game_name}")
    if args.resume:
        start = resumed_game(args.resume, None)  # at the level it was saved at
        if start.note:
            print(start.note)
    else:
        start = new_game(args, LEARNING_LEVEL)
        for line in plugin.intro(start.state.game):
            print(folded(line) if line else "")
        print()
    print(folded(GUIDED))
    return play_start(start, args, plugin.lessons)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "play",
        help="play a game against the AI",
        description=f"Play {game_titles('or')} against the AI in the terminal.",
    )
    parser.add_argument("game", nargs="?", choices=GAMES, help="which game")
    add_game_arguments(parser, game_positional=False)
    parser.add_argument(
        "--seat", type=int, choices=(0, 1), help="your seat (0 moves first; default random)"
    )
    parser.add_argument(
        "--level",
        help=f"AI strength: {', '.join(LEVELS)} (weakest first; their Elo "
        "in docs/play.md), a time per move like 2s, or an iteration "
        "count like 5000 (default normal; with --resume, the saved level). "
        "The level 'expert' is how well the AI plays; a game's '--mode "
        "expert' is a variant of its rules, either with any level",
    )
    parser.add_argument(
        "--elo",
        type=whole_number(0, 5000),
        metavar="N",
        help="the level whose measured Elo is nearest to N",
    )
    parser.add_argument(
        "--opponent",
        metavar="SPEC",
        help="play against a program or a Python class instead of a level: "
        "cmd:PROGRAM ARGS or python:MODULE:CLASS (docs/players.md); a crash, a timeout "
        "or an illegal answer ends the game, which is saved (with --resume, a game "
        "saved against a program goes on against the AI unless --opponent names it "
        "again: a saved file never starts a program)",
    )
    add_workers_argument(parser)
    parser.add_argument("--resume", metavar="RECORD", help="continue a saved game")
    add_auto_answer_argument(parser, default=False)
    parser.set_defaults(run=run)


WHICH_GAME = "which game? " + " | ".join(f"xenophon play {name}" for name in GAMES)
COMMANDS = ("moves", "card ", "hint", "undo", "save ", "board", "rules", "help", "quit")
#: said when leaving fails to save the game
STAYS_OPEN = (
    "The game stays open: 'save FILE' saves it where you can write; 'quit' again "
    "tries once more and, if that fails too, leaves with the whole game written "
    "unsealed (a file that shows the AI's cards)."
)
#: the AI of a guided game: the weakest level
LEARNING_LEVEL = next(iter(LEVELS))
GUIDED = (
    "A guided game: the first time each kind of decision comes, a 'Lesson:' line says "
    "what it asks. 'hint' shows what the AI would play in your place, 'card NAME' explains "
    "a card, 'moves' lists what you may do, 'help' the rest."
)
#: said when a game starts: where leaving saves it
SAVED_TO = "Leaving ('quit', Ctrl-C) saves the game to {path}"
RESAVED = " (its own file, updated in place)."
#: under SAVED_TO for a new game, as the web board says it
ONCE_MOVED = "  (once you have moved: a game left before that leaves no file)"
#: said on leaving a new game the human has not moved in: as the web board,
#: it leaves no file (the line that named it at the start is answered)
NOTHING_SAVED = "Nothing was played: no game saved ({path} was not written)."
#: under hints whose win probabilities are not in order
HINT_ORDER = (
    "  (in the search's order: the move it looked at most first; a move looked at "
    "less has a less certain value, so a higher % further down is not a better move)"
)
#: the live line while the AI searches: the same words whatever its cards
AI_THINKING = "  the AI is thinking..."


#: under a refused move, unless its reason already says to type 'moves'
WHAT_TO_TYPE = "(type 'moves' for the legal moves, 'help' for commands)"


def refusal(reason: str) -> str:
    """The lines that refuse a typed move: its reason, and what to type
    instead (not twice: some reasons end by saying it)."""
    if "type 'moves'" in reason:
        return folded(reason) + "\n(type 'help' for commands)"
    return folded(reason) + "\n" + WHAT_TO_TYPE


class TerminalSession(Session):
    """One game between the human at the terminal and the AI: the shared
    session (xenophon.play.session) with a prompt and printed lines."""

    def __init__(
        self,
        state: State,
        record: Record,
        view_lines: list[dict[str, Any]],
        human: int,
        bot: Any,
        hint_bot: Any,
        chance: ChanceStream,
        out: TextIO,
        color: bool,
        autosave: Path | None,
        live: bool = False,
        interactive: bool = False,
    ):
        super().__init__(state, record, view_lines, human, chance, autosave)
        self.bot = bot
        self.hint_bot = hint_bot
        self.out = out
        self.color = color
        self.live = live  # a terminal: the search shows a live line
        self.interactive = interactive  # input from a terminal: the end of it is Ctrl-D
        self.leave_failed = False  # the last line asked to leave, and the save failed
        self.last_question = ""  # the last question the prompt put
        self.moved = False  # whether the human moved since it was put
        # whether the human has moved in this game (a new game left before
        # that leaves no file); a resumed game starts out as played
        self.played = False
        self.narrator.lettered = True  # in the player's words where a game has some (docs/play.md)
        self.board_turn = -1  # the turn of the last board drawn: one a turn
        self.forfeit: Forfeit | None = None  # how an opponent program lost, if it did
        # a guided game (`xenophon learn`): by phase, what a decision there
        # asks, said the first time it comes; the phases it was said for
        self.lessons: Mapping[str, str] = {}
        self.taught: set[str] = set()
        self.auto_answer = False  # a question with one legal answer is answered for the human

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def tell_events(self) -> None:
        """Prints what happened since the last time, one line an event."""
        for line in self.take_events():
            self.say(folded("  " + line, "      "))

    def show_board(self) -> None:
        self.tell_events()
        self.say(self.narrator.board(self.state, color=self.color))
        self.board_turn = self.turn()

    def turn(self) -> int:
        return int(self.state.view(self.human)["turn"])

    def candidates(self) -> list[str]:
        """What Tab completes: the legal moves (when it is the human's turn) and the commands."""
        moves = self.legal_texts() if self.to_move() == "human" else []
        return moves + list(COMMANDS)

    def legal_texts(self) -> list[str]:
        """The legal moves, in the human's words."""
        return [self.said(m.text) for m in self.state.legal_moves()]

    # -- the loop -----------------------------------------------------------
    def run(self, read_line) -> int:
        # the board, and what the position asks, are on screen (None: the player left)
        shown: bool | None = False
        asked = False
        while not self.state.is_terminal():
            player = self.state.current_player
            if player == CHANCE:
                self.chance_step()
            elif player != self.human:
                try:
                    self.play_ai()
                except Forfeit as forfeit:
                    return self.forfeited(forfeit)
                asked = False
            else:
                # one board a turn, at the human's first decision in it (and
                # on 'board' and undo); otherwise what happened, in lines
                if not shown or self.turn() != self.board_turn:
                    self.show_board()
                    shown = True
                else:
                    self.tell_events()
                if not asked:
                    self.teach()
                    question = self.narrator.asking(self.state)
                    # not again while it stays the same, except in a window the
                    # human answers again after a move of its own (a fast operation)
                    again = self.moved and self.narrator.asks_again(self.state)
                    if question != self.last_question or again:
                        self.say(folded(question))
                        self.last_question = question
                    self.moved = False
                    asked = True
                line = self.only_answer() or read_line("your move> ")
                if line is None:
                    # the end of the input on a terminal (Ctrl-D) asks to leave
                    # as quit does; from a pipe or a file, no one is left to ask
                    left = self.leave(can_stay=self.interactive)
                    if left is not None:
                        return left
                    continue
                length = len(self.record.lines)
                shown = self.handle(line.strip())
                if shown is None:
                    left = self.leave()
                    if left is not None:
                        return left
                    shown = True
                    continue
                self.leave_failed = False  # a second quit counts straight after the first
                asked = asked and len(self.record.lines) == length
                self.moved = self.moved or len(self.record.lines) > length
                self.played = self.played or self.moved
        self.show_board()
        self.finish()
        outcome = self.state.returns()[self.human]
        self.say({1: "You win.", -1: "The AI wins.", 0: "Draw."}[int(outcome)])
        path = self.save_or_say()
        if path is None:
            return 1
        self.say(f"Game record saved to {path}")
        return 0

    def only_answer(self) -> str | None:
        """With auto_answer, the one legal move, said in one line as it is
        played for the human (None: there is a choice, or auto_answer is off)."""
        if not self.auto_answer:
            return None
        moves = self.state.legal_moves()
        if len(moves) != 1:
            return None
        answer = self.said(moves[0].text)
        self.say(f"your move> {answer}   (the only legal answer, played for you: --auto-answer)")
        return answer

    def forfeited(self, forfeit: Forfeit) -> int:
        """The opponent program lost the game by its own fault (a crash, a
        timeout, an illegal or malformed answer): said in one line, and the
        game saved where it stopped (a game in progress, as selfplay keeps
        a forfeited game's record)."""
        self.forfeit = forfeit
        self.tell_events()
        self.say(
            folded(
                f"Your opponent {self.bot!r} forfeits the game ({forfeit.reason}): "
                f"{forfeit.message}. You win."
            )
        )
        path = self.save_or_say()
        if path is None:
            return 1
        self.say(f"Game saved to {path} (where it stopped)")
        return 0

    def teach(self) -> None:
        """In a guided game, the lesson of the phase, the first time it comes."""
        phase = self.state.view(self.human)["phase"]
        if phase in self.lessons and phase not in self.taught:
            self.taught.add(phase)
            self.say(folded(f"Lesson: {self.lessons[phase]}"))

    def play_ai(self) -> None:
        """The AI's move. While it searches, a terminal shows one fixed line:
        the search's progress, best move and estimate come from the AI's
        hidden cards, and so would tell the human something of them."""
        self.tell_events()
        thinking = ThinkingLine(self.out) if self.live else None
        if thinking:
            thinking.show(AI_THINKING)
        result = self.ai_search(self.bot)
        if thinking:
            thinking.clear()
        played = self.ai_play(self.bot, result)
        self.say(f"AI: {played.said}")
        if not self.state.is_terminal():
            self.tell_events()

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
            self.say(self.help_text())
            return True
        if command == "board":
            return False
        if command == "rules":
            self.show_rules()
            return True
        if command == "moves":
            texts = self.legal_texts()
            self.say(columns(texts))
            for note in self.narrator.moves_note(texts):
                self.say(folded(note))
            return True
        if command == "card":
            self.show_card(rest.strip())
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
            self.say(refusal(str(error)))
            return True
        self.tell_events()
        return True

    def show_rules(self) -> None:
        """How to win and a turn step by step: the opening of `xenophon rules GAME`."""
        game = self.state.game
        plugin = find_plugin(game.name)
        if plugin is not None and plugin.intro is not None:
            self.say("\n".join(folded(line) if line else "" for line in plugin.intro(game)))
        self.say(folded(f"Every card: xenophon rules {game.name} (or 'card NAME' here)."))

    def help_text(self) -> str:
        forms = self.narrator.card_forms
        return HELP.format(card_forms=f"\n               ({forms})" if forms else "")

    def show_card(self, word: str) -> None:
        if not word:
            self.say("card needs a card's name, or a square or slot with a card on it")
            return
        try:
            self.say("\n".join(folded(line) for line in self.narrator.card_lines(self.state, word)))
        except KeyError as error:
            self.say(str(error.args[0]))

    def show_hint(self) -> None:
        thinking = ThinkingLine(self.out) if self.live else None
        result = self.hint(self.hint_bot, thinking.update if thinking else None)
        if thinking:
            thinking.clear()
        if not result.iterations:
            self.say(f"  only move: {self.said(result.best.move.text)}")
            return
        self.say(f"  AI's view for you ({result.iterations:,} iterations):")
        top = result.moves[:3]
        width = max(len(self.said(stat.move.text)) for stat in top) + 2
        wins = percents_apart([stat.win_probability for stat in top])
        for stat, win in zip(top, wins):
            self.say(f"  {self.said(stat.move.text):<{width}} win {win:>4}  ({stat.visits} visits)")
        values = [stat.win_probability for stat in top]
        if values != sorted(values, reverse=True):
            self.say(folded(HINT_ORDER))

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
            if not self.played:  # nothing to keep yet: a new game leaves no file before a move
                return
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

    def leave(self, can_stay: bool = True) -> int | None:
        """Saves the game and leaves: the exit code. When the game cannot be
        saved, it stays open (None) if it can, and the player is told where
        it could not be written and why; asked to leave again straight
        away, or with no one left to ask, it is written in full, unsealed,
        as the last resort (docs/records.md, "When a save fails"). A new
        game the human has not moved in is not saved: it leaves no file."""
        if not self.played:
            self.say("\n" + NOTHING_SAVED.format(path=self.autosave))  # the path whole
            return 0
        path, reasons = self.save_somewhere()
        if path is not None:
            self.say(f"\nGame saved to {path}\nResume it with: {self.resume_command(path)}")
            return 0
        if can_stay and not self.leave_failed:
            self.leave_failed = True
            self.say("Not saved: " + "; ".join(reasons))  # one line, paths whole
            self.say(folded(STAYS_OPEN))
            return None
        return self.leave_unsealed(reasons)

    def resume_command(self, path: Path) -> str:
        """How the player goes on with the game saved at `path` (a guided
        game with its lessons)."""
        return f"xenophon {'learn' if self.lessons else 'play'} --resume {path}"

    def leave_unsealed(self, reasons: list[str]) -> int:
        path, more = self.save_unsealed_somewhere()
        if path is None:
            everything = list(dict.fromkeys(reasons + more))
            self.say("The game could not be saved anywhere: " + "; ".join(everything))
            return 1
        self.say("Not saved as usual: " + "; ".join(reasons))
        self.say(f"The game was written in full, unsealed, to {path}")
        self.say(
            folded(
                "That file shows the AI's hidden cards: do not open it if you mean "
                "to play on fairly."
            )
        )
        self.say(f"Resume it with: {self.resume_command(path)}")
        return 1


class ThinkingLine:
    """A line redrawn in place on a terminal while a search runs: the AI's
    fixed words, or the progress of the human's own search (`hint`: elapsed
    time, iterations, the best move so far and its win probability)."""

    def __init__(self, out: TextIO):
        self.out = out

    def show(self, text: str) -> None:
        self.out.write("\r\x1b[K" + text[:79])
        self.out.flush()

    def update(self, result: Any) -> None:
        if not result.moves:
            return
        best = result.best
        self.show(
            f"  thinking {result.seconds:4.1f} s, {result.iterations:,} iterations, "
            f"best {best.move.text} ({percent(best.win_probability)})"
        )

    def clear(self) -> None:
        self.out.write("\r\x1b[K")
        self.out.flush()


def folded(line: str, indent: str | None = None, width: int = 79) -> str:
    """A long line folded to `width` columns, its continuation lines indented
    like it (plus two spaces) unless `indent` says otherwise."""
    if len(line) <= width:
        return line
    if indent is None:
        indent = " " * (len(line) - len(line.lstrip()) + 2)
    return "\n".join(textwrap.wrap(line, width=width, subsequent_indent=indent))


def columns(texts: list[str], width: int = 80) -> str:
    """The texts in as many columns as fit in `width` characters."""
    cell = max(map(len, texts)) + 2
    per_line = max(1, width // cell)
    rows = [texts[i : i + per_line] for i in range(0, len(texts), per_line)]
    return "\n".join("".join(t.ljust(cell) for t in row).rstrip() for row in rows)


def new_game(args: argparse.Namespace, level: str | None) -> Start:
    """A new game: chance from a secret, or from --seed when the player chose one."""
    if args.game is None:
        raise UsageError(WHICH_GAME)
    return start_game(game_from_arguments(args, args.seed), args.seat, level, args.seed)


def chosen_level(args: argparse.Namespace) -> str | None:
    """--level, or the level --elo names (None: the default, or the saved one)."""
    if args.elo is None:
        return args.level
    if args.level is not None:
        raise UsageError("give --level or --elo, not both")
    game_name = load_record(args.resume).game if args.resume else args.game
    if game_name is None:
        raise UsageError(WHICH_GAME)
    return level_from_elo(game_name, args.elo)


def run(args: argparse.Namespace) -> int:
    if args.resume and (args.game or args.seed is not None or args.seat is not None):
        raise UsageError(
            "--resume continues a saved game as it was: give no game, --seed or --seat with it"
        )
    level = chosen_level(args)
    opponent = args.opponent
    if opponent is not None and level is not None:
        raise UsageError("give --level (or --elo) or --opponent, not both")
    if opponent is not None and not is_external(opponent):
        raise UsageError(
            f"--opponent takes cmd:PROGRAM ARGS or python:MODULE:CLASS, not '{shown(opponent)}' "
            "(the built-in AI is chosen with --level)"
        )
    # a resumed game goes on against a program only when the command line
    # names one: a record never makes the program start one (docs/records.md)
    if opponent is not None:
        Opponent(opponent, 0)  # a bad spec fails before the game starts
        level = level or DEFAULT_LEVEL  # a resumed game's level is not the opponent
    start = resumed_game(args.resume, level) if args.resume else new_game(args, level)
    if opponent is not None:
        start.record.seats[1 - start.human] = opponent
        start.note = ""
    if start.note:
        print(start.note)
    return play_start(start, args, opponent=opponent)


def play_start(
    start: Start,
    args: argparse.Namespace,
    lessons: Mapping[str, str] | None = None,
    opponent: str | None = None,
) -> int:
    """Plays a new or resumed game at the terminal until it ends or the player
    leaves: the exit code. `lessons` (a guided game) are said by phase;
    `opponent`, an external player's spec, plays instead of the level."""
    state, human, level = start.state, start.human, start.level
    # a resumed game is saved back to its own file (replaced whole by a rename:
    # until the new one is complete, the earlier save stays as it was)
    own = Path(args.resume) if args.resume else default_save_path(state.game.name)
    bot: Any = Opponent(opponent, start.chance.seed_for("ai", 0)) if opponent else None
    if bot is None:
        bot = bot_for_level(level, 0, args.workers)
    hint_bot = bot_for_level(HINT_LEVEL, 0, args.workers)
    session = TerminalSession(
        state,
        start.record,
        start.view_lines,
        human,
        bot,
        hint_bot,
        start.chance,
        sys.stdout,
        use_color(),
        own,
        live=sys.stdout.isatty(),
    )
    session.snapshots = start.snapshots
    if isinstance(bot, Opponent):
        bot.names_now = session.move_names  # the program is told the pieces' names as shown here
    session.lessons = lessons or {}
    session.auto_answer = args.auto_answer
    if lessons and args.resume:
        # the lessons of the phases the player has already decided in were given
        session.taught = {before.view(human)["phase"] for before, *_ in start.snapshots}
    if args.resume:
        session.written.append(Path(args.resume))  # this game's own file
        session.played = True  # saved back in place, as it was resumed
    read_line = LineReader(session.candidates)
    session.interactive = read_line.interactive
    who = (
        f"your opponent is {opponent}"
        if opponent
        else f"the AI plays at level {level_description(level, state.game.name)}"
    )
    session.say(
        folded(
            f"{state.game.name}{unusual_options(state.game)}: you are seat {human} ("
            f"{'first' if human == 0 else 'second'} to move), {who}. Type 'help' for "
            "commands."
        )
    )
    session.say(SAVED_TO.format(path=own) + (RESAVED if args.resume else ""))  # the path whole
    if not args.resume:
        session.say(ONCE_MOVED)
    try:
        while True:
            try:
                return session.run(read_line)
            except KeyboardInterrupt:  # Ctrl-C: leave, as quit does
                left = session.leave(can_stay=session.interactive)
                if left is not None:
                    return left
    finally:
        if isinstance(bot, Opponent):
            bot.close(session.state, session.forfeit)
