"""Reviewing one seat's decisions in a record: the search's win probability
before each decision and the decisions that lost more than a threshold
(`xenophon review` and the review page of `xenophon serve`, which find the
same mistakes in the same file with the same budget: both call
`review_points`).

A decision is first searched as a whole (`iterations`, the search's own
choice of where they go). When the move played is not the search's best,
the played move and the best are then each searched alone (`root_moves`:
every one of `iterations` goes through that move), so that both values come
from the same guaranteed budget and never from a handful of visits. The
decision is a mistake only when the best's value exceeds the played move's
by more than the threshold plus the 95% interval of that difference
(`drop_margin`): a move that wins as well as the best (a winning final
attack from another square) is never one."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import State
from xenophon.play.records import Record, names_before

#: the search iterations per decision (and per move checked) and the drop in
#: win probability that makes a mistake, unless told: `xenophon review`'s
#: and the web review's alike, so that the two find the same mistakes in the
#: same file
REVIEW_ITERATIONS = 1000
MISTAKE_THRESHOLD = 0.10
#: the normal quantile of the interval around a drop (95%, two-sided)
INTERVAL_Z = 1.96


@dataclass
class ReviewPoint:
    """One decision of the reviewed seat."""

    index: int  # the record line's index (0 = the first line after the header)
    turn: int
    win: float  # the best move's win probability
    played: str
    played_win: float  # the played move's win probability
    better: str  # the search's best move (the played one when it is)
    mistake: bool
    played_visits: int  # the iterations behind played_win
    better_visits: int  # the iterations behind win
    margin: float  # the 95% interval's half-width around win - played_win

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def drop_margin(better: float, better_visits: int, played: float, played_visits: int) -> float:
    """The half-width of the 95% interval around `better - played`, two
    means of outcomes in [0, 1]: such an outcome with mean p has a variance
    of at most p(1 - p), so the normal interval of the difference is
    z * sqrt(p1(1 - p1)/n1 + p2(1 - p2)/n2) (1, the widest, without visits)."""
    if better_visits <= 0 or played_visits <= 0:
        return 1.0
    variance = better * (1 - better) / better_visits + played * (1 - played) / played_visits
    return INTERVAL_Z * math.sqrt(variance)


def is_mistake(point: ReviewPoint, threshold: float) -> bool:
    """The drop is above the threshold by more than its interval."""
    return point.win - point.played_win > threshold + point.margin


def review_seat(
    record: Record, final: State, asked: int | None, verb: str, ask: str = "with --as"
) -> int:
    """The seat a record is reviewed (analysed, suggested for) as: the one
    asked; a redacted record's own; a saved game's human; else the player to
    move at its end (XenophonError when none of these answers)."""
    if record.view is not None and asked not in (None, record.view):
        raise XenophonError(
            f"this record was redacted for seat {record.view}; it can only be "
            f"{verb} from seat {record.view}'s side"
        )
    if asked is not None:
        return asked
    if record.view is not None:
        return record.view
    if record.seats.count("human") == 1:
        return record.seats.index("human")
    if not final.is_terminal() and final.current_player in (0, 1):
        return final.current_player
    raise XenophonError(f"the game is over: say which seat is {verb} {ask}")


def decisions_of(record: Record, states: list[State], seat: int) -> list[int]:
    """Indexes of the record lines that are real decisions of `seat` (more than
    one legal move)."""
    return [
        i
        for i, line in enumerate(record.lines)
        if line["seat"] == seat and len(states[i].legal_actions()) > 1
    ]


def _alone(bot: Any, state: State, code: int) -> tuple[float, int]:
    """One move's win probability searched with the whole budget through it."""
    result = bot.analyse(state, root_moves=[code])
    (stat,) = [stat for stat in result.moves if stat.move.code == code]
    return stat.win_probability, stat.visits


def review_point(state: State, index: int, move: str, bot: Any, threshold: float) -> ReviewPoint:
    """The review of one decision: `state` before it, `move` the one played."""
    scan = bot.analyse(state)
    played = state.move(move)
    best = scan.best
    turn = state.to_dict()["turn"]
    if best.move.code == played.code:
        win, visits = best.win_probability, best.visits
        return ReviewPoint(
            index, turn, win, played.text, win, played.text, False, visits, visits, 0.0
        )
    played_win, played_visits = _alone(bot, state, played.code)
    win, better_visits = _alone(bot, state, best.move.code)
    margin = drop_margin(win, better_visits, played_win, played_visits)
    point = ReviewPoint(
        index,
        turn,
        win,
        played.text,
        played_win,
        best.move.text,
        False,
        played_visits,
        better_visits,
        margin,
    )
    point.mistake = is_mistake(point, threshold)
    return point


def review_points(
    record: Record, before: list[State], seat: int, bot: Any, threshold: float
) -> Iterator[ReviewPoint]:
    """Reviews each of `seat`'s decisions with `bot` (its `analyse` taking
    `root_moves`), in order, the moves said as the notation names units."""
    names = names_before(record, record.game, before)
    for index in decisions_of(record, before, seat):
        state = before[index]
        point = review_point(state, index, record.lines[index]["move"], bot, threshold)
        point.played = names[index].said(state, point.played)
        point.better = names[index].said(state, point.better)
        yield point


# -- the picture -----------------------------------------------------------------
PLOT_FORMATS = ("svg", "png")
PNG_DPI = 120
MAX_TABLE_ROWS = 17  # mistakes listed beside the plot (the rest are counted)


def review_picture(points: list[ReviewPoint], title: str, image_format: str) -> bytes:
    """The review as a picture (SVG or PNG): the win probability before each
    decision, against the turn, with the 50% line and each mistake marked and
    labelled; the table of mistakes beside it."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    # SVG text stays text (searchable, readable by a screen reader), and the
    # same review gives the same file
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "xenophon"}):
        return _picture(plt, points, title, image_format)


def _picture(plt: Any, points: list[ReviewPoint], title: str, image_format: str) -> bytes:
    from io import BytesIO

    figure, (curve, table) = plt.subplots(
        1, 2, figsize=(14, 4.8), gridspec_kw={"width_ratios": [2, 1.5]}
    )
    try:
        _draw_curve(curve, points)
        _draw_table(table, [point for point in points if point.mistake])
        figure.suptitle(title, fontsize=12)
        figure.tight_layout()
        out = BytesIO()
        figure.savefig(
            out,
            format=image_format,
            dpi=PNG_DPI,
            metadata={"Date": None} if image_format == "svg" else None,
        )
        return out.getvalue()
    finally:
        plt.close(figure)


def _draw_curve(axes: Any, points: list[ReviewPoint]) -> None:
    xs = list(range(len(points)))
    axes.plot(
        xs,
        [point.win * 100 for point in points],
        color="#1f5fbf",
        linewidth=1.8,
        marker="o",
        markersize=2.5,
        label="win probability before the decision",
    )
    axes.axhline(50, color="#888888", linestyle="--", linewidth=1, label="50%")
    axes.set_ylim(0, 100)
    axes.set_xlim(-0.5, max(0.5, len(points) - 0.5))
    axes.set_ylabel("win probability (%)")
    axes.set_xlabel("turn")
    ticks = _turn_ticks(points)
    axes.set_xticks([index for index, _ in ticks], [str(turn) for _, turn in ticks])
    axes.grid(True, color="#e5e5e5", linewidth=0.6)
    mistakes = [(index, point) for index, point in enumerate(points) if point.mistake]
    for number, (index, point) in enumerate(mistakes, start=1):
        played = point.played_win * 100
        axes.plot([index, index], [played, point.win * 100], color="#c0392b", linewidth=1.2)
        axes.plot(index, played, marker="v", color="#c0392b", markersize=7)
        below = played > 12  # near 0% the number goes above the mark
        axes.annotate(
            str(number),
            (index, played),
            textcoords="offset points",
            xytext=(0, -13 if below else 7),
            ha="center",
            fontsize=8,
            color="#c0392b",
        )
    if mistakes:
        axes.plot(
            [],
            [],
            marker="v",
            color="#c0392b",
            linestyle="none",
            label="mistake (played move's win probability)",
        )
    axes.legend(loc="upper left", fontsize=8, frameon=False)


def _turn_ticks(points: list[ReviewPoint], most: int = 16) -> list[tuple[int, int]]:
    """(decision index, turn) for the first decision of each turn, thinned
    to at most `most` labels."""
    firsts = [
        (index, point.turn)
        for index, point in enumerate(points)
        if index == 0 or points[index - 1].turn != point.turn
    ]
    step = max(1, -(-len(firsts) // most))
    return firsts[::step]


def _draw_table(axes: Any, mistakes: list[ReviewPoint]) -> None:
    axes.axis("off")
    if not mistakes:
        axes.text(0.5, 0.5, "no mistakes", ha="center", va="center", fontsize=11)
        return
    rows = [
        [
            str(number),
            str(point.turn),
            _short(point.played),
            f"{point.played_win * 100:.0f}%",
            _short(point.better),
            f"{point.win * 100:.0f}%",
            f"{(point.win - point.played_win) * 100:.0f}±{point.margin * 100:.0f}",
        ]
        for number, point in enumerate(mistakes[:MAX_TABLE_ROWS], start=1)
    ]
    if len(mistakes) > MAX_TABLE_ROWS:
        rows.append(["", "", f"... and {len(mistakes) - MAX_TABLE_ROWS} more", "", "", "", ""])
    table = axes.table(
        cellText=rows,
        colLabels=["#", "turn", "played", "win", "better", "win", "drop ±95%"],
        loc="upper center",
        cellLoc="left",
        colLoc="left",
        colWidths=[0.04, 0.06, 0.33, 0.06, 0.31, 0.06, 0.14],
    )
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    table.scale(1, 1.25)
    axes.set_title("mistakes", fontsize=10)


def _short(text: str, width: int = 30) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
