"""A labelled heatmap of scores from 0 to 1, drawn with matplotlib and
rendered to SVG and to PNG.

>>> picture = heatmap("title", ["a", "b"], ["a", "b"], [[None, (0.6, "60%")], [(0.4, "40%"), None]])
>>> picture.svg().startswith("<svg") and picture.png().startswith(b"\\x89PNG")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from io import BytesIO
from typing import Any

LOW, MID, HIGH = (215, 48, 39), (247, 247, 247), (69, 117, 180)
EMPTY = (200, 200, 200)
CELL_INCHES = (1.9, 0.62)  # width and height of one cell
COLUMN_LABEL_CHARS = 17  # a longer column name is cut to this
FONT_SIZE = 9
PNG_DPI = 100

Cell = tuple[float, str] | None


def color(score: float) -> tuple[int, int, int]:
    """Red (0) through white (0.5) to blue (1)."""
    score = min(max(score, 0.0), 1.0)
    a, b, t = (LOW, MID, score * 2) if score < 0.5 else (MID, HIGH, score * 2 - 1)
    red, green, blue = (round(x + (y - x) * t) for x, y in zip(a, b))
    return red, green, blue


@dataclass
class Picture:
    """A heatmap's title, row and column names, cells and note, rendered to
    SVG or PNG on demand."""

    title: str
    rows: list[str]
    columns: list[str]
    cells: list[list[Cell]]
    note: str = ""

    def svg(self) -> str:
        text = self._render("svg").decode("utf-8")
        # the <svg> element alone, as a page inlines it (no XML prolog)
        return text[text.index("<svg") :]

    def png(self) -> bytes:
        return self._render("png")

    def _render(self, image_format: str) -> bytes:
        import matplotlib

        matplotlib.use("Agg")  # no display: files only
        import matplotlib.pyplot as plt

        # SVG text stays text (searchable), and the same data gives the same file
        with matplotlib.rc_context(
            {"svg.fonttype": "none", "svg.hashsalt": "xenophon", "font.size": FONT_SIZE}
        ):
            figure = plt.figure(
                figsize=(
                    CELL_INCHES[0] * max(1, len(self.columns)),
                    CELL_INCHES[1] * max(1, len(self.rows)),
                )
            )
            try:
                self._draw(figure.add_axes((0, 0, 1, 1)))
                out = BytesIO()
                figure.savefig(
                    out,
                    format=image_format,
                    dpi=PNG_DPI,
                    bbox_inches="tight",
                    pad_inches=0.15,
                    facecolor="white",
                    metadata={"Date": None} if image_format == "svg" else None,
                )
                return out.getvalue()
            finally:
                plt.close(figure)

    def _draw(self, axes: Any) -> None:
        """Row r, column c is the unit square at (c, r), row 0 at the top."""
        from matplotlib.patches import Rectangle

        for r, line in enumerate(self.cells):
            for c, cell in enumerate(line):
                rgb = color(cell[0]) if cell else EMPTY
                axes.add_patch(
                    Rectangle(
                        (c, r),
                        1,
                        1,
                        facecolor=[v / 255 for v in rgb],
                        edgecolor="white",
                        linewidth=1.5,
                    )
                )
                axes.text(
                    c + 0.5,
                    r + 0.5,
                    cell[1] if cell else "-",
                    ha="center",
                    va="center",
                    linespacing=1.3,
                )
        axes.set_xlim(0, max(1, len(self.columns)))
        axes.set_ylim(max(1, len(self.rows)), 0)
        axes.xaxis.tick_top()
        axes.set_xticks(
            [c + 0.5 for c in range(len(self.columns))],
            [name[:COLUMN_LABEL_CHARS] for name in self.columns],
        )
        axes.set_yticks([r + 0.5 for r in range(len(self.rows))], self.rows)
        axes.tick_params(length=0)
        for side in axes.spines.values():
            side.set_visible(False)
        axes.set_title(self.title, loc="left", pad=24, fontsize=FONT_SIZE + 2)
        if self.note:
            axes.annotate(
                self.note,
                (0, 0),
                xycoords="axes fraction",
                xytext=(0, -12),
                textcoords="offset points",
                va="top",
                ha="left",
            )


def heatmap(
    title: str, rows: list[str], columns: list[str], cells: list[list[Cell]], note: str = ""
) -> Picture:
    """Rows by columns of cells, each (score for its colour, text; lines
    split at newlines) or None (grey)."""
    return Picture(title, list(rows), list(columns), [list(line) for line in cells], note)
