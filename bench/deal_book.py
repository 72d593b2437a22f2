"""A balanced deal book: the deals on which a pair of equal bots did not
split by seat (`xenophon.lab.dealbook`), screened once by an A/A match of
the baseline bot against itself, so that which deals the book holds does not
depend on the bots later compared on it.

    python bench/deal_book.py --game hero --bot ismcts:iterations=500 \\
        --deals 1500 --seed 800001 --out bench/books/hero-i500.json [--check]

The screening's games go to OUT-screen.jsonl as they finish (an interrupted
screening resumes; `--tally` plays nothing and makes the book of the deals
screened so far). `--check` then plays the A/A match on the book with the
bots seeded otherwise (`--bot-salt 1`; OUT-check.jsonl, resumable) and
reports its score, which should be 50%, and the information a book deal
carries against a screened one: near equal strength a deal tells of the
bots in proportion to E[p(1 − p)], p the first seat's chance on it, which
is half the share of the deals that do not split by seat, so the share on
the book over the share in the screening is how many times fewer deals the
book needs at equal power.
"""

import argparse
import math
import shlex
import sys
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.lab.dealbook import DealBook, read_book, screen_deals
from xenophon.lab.tournament import MatchReport, finished_match, play_match


def unsplit(report: MatchReport) -> tuple[int, int]:
    """Of the deals played from both seats, how many did not split by seat,
    and how many there are."""
    deals = [
        (0, seat0, seat1)
        for seat0, seat1 in report.deal_outcomes()
        if seat0 is not None and seat1 is not None
    ]
    return len(screen_deals(deals)), len(deals)


def ratio_line(book: tuple[int, int], screen: tuple[int, int]) -> str:
    """The share of unsplit deals on the book over the screening's, with the
    95% interval of a ratio of two independent proportions (on the log)."""
    (kept_b, n_b), (kept_s, n_s) = book, screen
    share_b, share_s = kept_b / n_b, kept_s / n_s
    ratio = share_b / share_s
    spread = 1.96 * math.sqrt((1 - share_b) / kept_b + (1 - share_s) / kept_s)
    return (
        f"deals that did not split by seat: {share_b:.1%} of {n_b} on the book against "
        f"{share_s:.1%} of {n_s} in the screening: a book deal carries {ratio:.2f}x "
        f"[{ratio * math.exp(-spread):.2f}, {ratio * math.exp(spread):.2f}] the information "
        "of a screened one near equal strength (that many times fewer deals at equal power)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--bot", required=True, help="the baseline bot, against itself")
    parser.add_argument("--deals", type=int, default=1000, help="deals to screen")
    parser.add_argument("--seed", type=int, default=1, help="the first deal screened")
    parser.add_argument("--out", required=True, help="the book file (.json)")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--tally", action="store_true", help="play nothing: book what is screened")
    parser.add_argument("--check", action="store_true", help="then play the A/A on the book")
    args = parser.parse_args()
    out = Path(args.out)
    screen_file = str(out.with_name(out.stem + "-screen.jsonl"))
    match = (args.game, args.bot, args.bot, 2 * args.deals, args.seed)
    if args.tally:
        screen = finished_match(*match, screen_file)
    else:
        screen = play_match(
            *match[:3], games=match[3], seed=args.seed, processes=args.processes,
            results=screen_file, resume=True,
        )  # fmt: skip
    print("screening:", screen.text())
    outcomes = [
        (seed, seat0, seat1)
        for seed, (seat0, seat1) in screen.seat_scores().items()
        if seat0 is not None and seat1 is not None
    ]
    if not screen_deals(outcomes):
        raise SystemExit(
            f"deal_book: none of the {len(outcomes)} deals screened is unsplit: no book"
        )
    book = DealBook(
        args.game,
        screen_deals(outcomes),
        {
            "bot": args.bot,
            "first_deal": args.seed,
            "deals_screened": len(outcomes),
            "command": "python bench/deal_book.py " + shlex.join(sys.argv[1:]),
        },
    )
    book.write(str(out))
    print(
        f"{len(book.deals)} of {len(outcomes)} deals screened did not split by seat "
        f"({len(book.deals) / max(1, len(outcomes)):.1%}): book written to {out}"
    )
    if args.check:
        book = read_book(str(out), args.game)
        check = play_match(
            args.game, args.bot, args.bot, games=2 * len(book.deals), processes=args.processes,
            results=str(out.with_name(out.stem + "-check.jsonl")), resume=True,
            book=book.deals, salt=1,
        )  # fmt: skip
        print("A/A on the book, bots seeded otherwise:", check.text())
        print(ratio_line(unsplit(check), unsplit(screen)))


if __name__ == "__main__":
    try:
        main()
    except XenophonError as error:
        raise SystemExit(f"deal_book: {error}") from None
