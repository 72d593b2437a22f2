"""Reviewing one seat's decisions in a record: the search's win probability
before each decision and the decisions that lost more than a threshold
(`xenophon review` and the review page of `xenophon serve`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from xenophon.kernel.game import State
from xenophon.play.records import Record, names_before

#: the search iterations per decision and the drop in win probability that
#: makes a mistake, unless told: `xenophon review`'s and the web review's
#: alike, so that the two find the same mistakes in the same file
REVIEW_ITERATIONS = 1000
MISTAKE_THRESHOLD = 0.10


@dataclass
class ReviewPoint:
    """One decision of the reviewed seat."""

    index: int  # the record line's index (0 = the first line after the header)
    turn: int
    win: float  # the best move's win probability
    played: str
    played_win: float | None  # None when the search never tried the move played
    better: str
    mistake: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def decisions_of(record: Record, states: list[State], seat: int) -> list[int]:
    """Indexes of the record lines that are real decisions of `seat` (more than
    one legal move)."""
    return [
        i
        for i, line in enumerate(record.lines)
        if line["seat"] == seat and len(states[i].legal_actions()) > 1
    ]


def review_points(
    record: Record, before: list[State], seat: int, bot: Any, threshold: float
) -> Iterator[ReviewPoint]:
    """Searches the position before each of `seat`'s decisions with `bot`."""
    names = names_before(record, record.game, before)  # moves as the notation names units
    for index in decisions_of(record, before, seat):
        state = before[index]
        result = bot.analyse(state)
        played = state.move(record.lines[index]["move"])
        best = result.best
        mine = next((m for m in result.moves if m.move.code == played.code), None)
        played_win = mine.win_probability if mine is not None and mine.visits else None
        mistake = played_win is not None and best.win_probability - played_win > threshold
        yield ReviewPoint(
            index,
            state.to_dict()["turn"],
            best.win_probability,
            names[index].said(state, played.text),
            played_win,
            names[index].said(state, best.move.text),
            mistake,
        )


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
        1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [2, 1.3]}
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
        played = (point.played_win if point.played_win is not None else point.win) * 100
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
            f"{point.played_win * 100:.0f}%",  # type: ignore[operator]  # a mistake has it
            _short(point.better),
            f"{point.win * 100:.0f}%",
        ]
        for number, point in enumerate(mistakes[:MAX_TABLE_ROWS], start=1)
    ]
    if len(mistakes) > MAX_TABLE_ROWS:
        rows.append(["", "", f"... and {len(mistakes) - MAX_TABLE_ROWS} more", "", "", ""])
    table = axes.table(
        cellText=rows,
        colLabels=["#", "turn", "played", "win", "better", "win"],
        loc="upper center",
        cellLoc="left",
        colLoc="left",
        colWidths=[0.05, 0.08, 0.37, 0.08, 0.34, 0.08],
    )
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    table.scale(1, 1.25)
    axes.set_title("mistakes", fontsize=10)


def _short(text: str, width: int = 30) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
