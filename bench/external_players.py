"""What an external player costs (docs/players.md, "Cost"): the examples of
examples/ (a Python class, the same file as a program, the sh and awk
script) each play `random` on the same deals from both seats, and the time
spent in their `choose` is split into the first decision (the child started
and greeted), the others, and the game's end (the child told and gone);
each step of the game (any player's or chance's) is timed too, since an
external player follows the steps for the names of the pieces (a game's
names that stay with them). The in-process `random` on the same games gives the floor.

    python bench/external_players.py [--deals 10]
"""

import argparse
import sys
import time
from pathlib import Path

from xenophon.kernel.registry import GAMES
from xenophon.lab import tournament
from xenophon.lab.tournament import play_one
from xenophon.play import external
from xenophon.search import bots

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FORMS = {
    "random, in process": "random",
    "python class": f"python:{EXAMPLES / 'random_player.py'}:RandomPlayer",
    "cmd: python3": f"cmd:{sys.executable} {EXAMPLES / 'random_player.py'}",
    "cmd: sh + awk": f"cmd:{EXAMPLES / 'random_player.sh'}",
}
#: seconds and counts of each kind of call: first, other decisions, end, step
TIMES: dict[str, list[float]] = {}


def timed(kind: str, call, *args):
    start = time.perf_counter()
    result = call(*args)
    count, seconds = TIMES.get(kind, [0, 0.0])
    TIMES[kind] = [count + 1, seconds + time.perf_counter() - start]
    return result


def instrument() -> None:
    """Times the external players' decisions and ends, the random bot's
    decisions, and every step the match plays (a follower shown it)."""
    choose, finish = external.ExternalPlayer.choose, external.ExternalPlayer.finish
    random_choose = bots.RandomBot.choose
    play_step = tournament.play_step
    tournament.play_step = lambda *args: timed("step", play_step, *args)  # type: ignore[attr-defined]

    def external_choose(self, state):
        return timed("first" if self.channel is None else "other", choose, self, state)

    external.ExternalPlayer.choose = external_choose  # type: ignore[method-assign]
    external.ExternalPlayer.finish = lambda self, *args: timed("end", finish, self, *args)  # type: ignore[method-assign]
    bots.RandomBot.choose = lambda self, state: timed("other", random_choose, self, state)  # type: ignore[method-assign]


def milliseconds(kind: str) -> str:
    count, seconds = TIMES.get(kind, [0, 0.0])
    return f"{seconds / count * 1000:7.3f}" if count else "      -"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10)
    args = parser.parse_args()
    instrument()
    print(
        "game       player               games  decisions  first ms  other ms  end ms  step ms"
        "  wall s"
    )
    for game in GAMES:
        for label, spec in FORMS.items():
            TIMES.clear()
            start = time.perf_counter()
            for seed in range(1, args.deals + 1):
                for seat in (0, 1):
                    # the opponent is greedy, not timed, so that "other" is the player's own
                    play_one(game, [spec, "greedy:samples=1"], seed, seat)
            wall = time.perf_counter() - start
            decisions = sum(TIMES.get(kind, [0, 0.0])[0] for kind in ("first", "other"))
            print(
                f"{game:10} {label:20} {2 * args.deals:5}  {decisions:9}  {milliseconds('first')}"
                f"   {milliseconds('other')} {milliseconds('end')}  {milliseconds('step')}"
                f"  {wall:6.2f}"
            )


if __name__ == "__main__":
    main()
