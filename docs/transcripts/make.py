"""Makes the transcripts of docs/play.md: one whole game of each game at the
terminal, the human's side played by the AI at level `normal`.

    python docs/transcripts/make.py

First plays each game through the shared session (xenophon.play.session) to find
the human's moves, writes them to docs/transcripts/GAME-input.txt with a
few commands before them (card, hint, an illegal move), then runs

    xenophon play GAME --seed SEED --seat 0 --level easy < GAME-input.txt

and saves what it printed as docs/transcripts/GAME.txt. Chance comes from
the seed and the AI's choices from the position, so the same command prints
the same game (the saved game's file name, made from the time, is written
as -DATE-TIME).
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from xenophon.kernel.registry import game_from_spec
from xenophon.play.levels import bot_for_level
from xenophon.play.session import new_game, play_through

HERE = Path(__file__).resolve().parent
GAMES = {
    # game: (seed, the commands typed before the first move)
    "anabasis": (7, ["help", "card Spearman", "card g1", "buy Dragon", "place Militia e5",
                     "hint"]),
    "hero": (7, ["card Fire Drake", "card Flame Warlord", "deploy Grave Knight back",
                 "deploy Fire Drake back", "attack F1 > avatar", "hint"]),
}
LEVEL = "easy"
HUMAN_LEVEL = "normal"


def human_moves(game_name: str, seed: int) -> list[str]:
    """The moves the human's side plays, found by playing the game through,
    as a player types them (Hero units by their letters: docs/play.md)."""
    session = new_game(game_from_spec(game_name, seed=seed), 0, LEVEL, seed).session(None)
    session.narrator.lettered = True
    human = bot_for_level(HUMAN_LEVEL, 0)
    typed = []

    def choose(s):
        move = human.choose_from(s.hint(human))
        typed.append(s.narrator.as_seen(move.text, s.human))
        return move

    play_through(session, bot_for_level(LEVEL, 0), choose)
    return typed


def main() -> None:
    for game_name, (seed, commands) in GAMES.items():
        lines = commands + human_moves(game_name, seed)
        input_path = HERE / f"{game_name}-input.txt"
        input_path.write_text("\n".join(lines) + "\n")
        with tempfile.TemporaryDirectory() as home, input_path.open() as given:
            out = subprocess.run(["xenophon", "play", game_name, "--seed", str(seed),
                                  "--seat", "0", "--level", LEVEL], stdin=given,
                                 capture_output=True, text=True,
                                 env={**os.environ, "HOME": home, "NO_COLOR": "1"})
        # the saved game's file is named by the time: the one line that changes
        text = re.sub(r"-\d{8}-\d{6}\.jsonl", "-DATE-TIME.jsonl", out.stdout.replace(home, "~"))
        (HERE / f"{game_name}.txt").write_text(
            f"$ xenophon play {game_name} --seed {seed} --seat 0 --level {LEVEL} "
            f"< docs/transcripts/{game_name}-input.txt\n" + text)
        print(f"{game_name}: {len(lines)} lines typed, exit {out.returncode}", file=sys.stderr)


if __name__ == "__main__":
    main()
