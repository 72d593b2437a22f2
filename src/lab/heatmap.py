"""A labelled heatmap of scores from 0 to 1, drawn once as a list of shapes and
rendered to SVG and to PNG (written here with zlib, text in a built-in 5 x 7
bitmap font), so a picture needs nothing beyond the standard library.

>>> picture = heatmap("title", ["a", "b"], ["a", "b"], [[None, (0.6, "60%")], [(0.4, "40%"), None]])
>>> picture.svg().startswith("<svg") and picture.png().startswith(b"\\x89PNG")
True
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from html import escape

#: 5 x 7 glyphs, seven rows of five bits each (as hex pairs, top row first);
#: lower case is drawn as upper case, anything else as '?'
GLYPHS = {
    " ": "00000000000000", "0": "0E11131519110E", "1": "040C040404040E",
    "2": "0E11010204081F", "3": "1F02040201110E", "4": "02060A121F0202",
    "5": "1F101E0101110E", "6": "0608101E11110E", "7": "1F010204080808",
    "8": "0E11110E11110E", "9": "0E11110F01020C", "A": "0E1111111F1111",
    "B": "1E11111E11111E", "C": "0E11101010110E", "D": "1C12111111121C",
    "E": "1F10101E10101F", "F": "1F10101E101010", "G": "0E11101711110F",
    "H": "1111111F111111", "I": "0E04040404040E", "J": "0702020202120C",
    "K": "11121418141211", "L": "1010101010101F", "M": "111B1515111111",
    "N": "11111915131111", "O": "0E11111111110E", "P": "1E11111E101010",
    "Q": "0E11111115120D", "R": "1E11111E141211", "S": "0F10100E01011E",
    "T": "1F040404040404", "U": "1111111111110E", "V": "11111111110A04",
    "W": "1111111515150A", "X": "11110A040A1111", "Y": "1111110A040404",
    "Z": "1F01020408101F", "%": "18190204081303", ".": "00000000000C0C",
    "-": "0000001F000000", "+": "0004041F040400", ":": "000C0C000C0C00",
    "[": "0E08080808080E", "]": "0E02020202020E", "(": "02040808080402",
    ")": "08040202020408", "_": "0000000000001F", "/": "00010204081000",
    ",": "000000000C0408", "'": "04040800000000", "?": "0E110102040004", "=": "00001F001F0000",
}
SCALE = 2                       # screen pixels per font pixel
CHAR_W, CHAR_H = 6 * SCALE, 8 * SCALE
CELL_W, CELL_H, MARGIN = 18 * CHAR_W, 3 * CHAR_H, 10
LOW, MID, HIGH = (215, 48, 39), (247, 247, 247), (69, 117, 180)
EMPTY, INK = (200, 200, 200), (0, 0, 0)


def color(score: float) -> tuple[int, int, int]:
    """Red (0) through white (0.5) to blue (1)."""
    score = min(max(score, 0.0), 1.0)
    a, b, t = (LOW, MID, score * 2) if score < 0.5 else (MID, HIGH, score * 2 - 1)
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


@dataclass
class Picture:
    """Rectangles and lines of text on a white page, rendered to SVG or PNG."""

    width: int
    height: int
    rects: list[tuple[int, int, int, int, tuple[int, int, int]]] = field(default_factory=list)
    texts: list[tuple[int, int, str, bool]] = field(default_factory=list)  # x, y, text, centred

    def text_width(self, text: str) -> int:
        return len(text) * CHAR_W

    def svg(self) -> str:
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
               f'height="{self.height}" font-family="monospace" font-size="{CHAR_H - 2}">',
               f'<rect width="{self.width}" height="{self.height}" fill="white"/>']
        for x, y, w, h, rgb in self.rects:
            out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" '
                       f'fill="rgb{rgb}" stroke="white"/>')
        for x, y, text, centred in self.texts:
            anchor = ' text-anchor="middle"' if centred else ""
            out.append(f'<text x="{x}" y="{y + CHAR_H - 3}"{anchor}>{escape(text)}</text>')
        return "\n".join(out) + "\n</svg>\n"

    def png(self) -> bytes:
        pixels = [bytearray(b"\xff" * (3 * self.width)) for _ in range(self.height)]
        for x, y, w, h, rgb in self.rects:
            for row in pixels[y + 1:y + h - 1]:
                row[3 * (x + 1):3 * (x + w - 1)] = bytes(rgb) * (w - 2)
        for x, y, text, centred in self.texts:
            left = x - self.text_width(text) // 2 if centred else x
            for number, char in enumerate(text):
                _draw_glyph(pixels, left + number * CHAR_W, y, char)
        return png_bytes(self.width, self.height, pixels)


def _draw_glyph(pixels: list[bytearray], x: int, y: int, char: str) -> None:
    glyph = GLYPHS.get(char.upper(), GLYPHS["?"])
    for row in range(7):
        bits = int(glyph[2 * row:2 * row + 2], 16)
        for column in range(5):
            if bits & (0x10 >> column):
                for dy in range(SCALE):
                    line = pixels[y + row * SCALE + dy]
                    start = 3 * (x + column * SCALE)
                    if 0 <= start and start + 3 * SCALE <= len(line):
                        line[start:start + 3 * SCALE] = bytes(INK) * SCALE


def png_bytes(width: int, height: int, rows: list[bytearray]) -> bytes:
    """An 8-bit RGB PNG of the rows (3 bytes a pixel)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                             0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def heatmap(title: str, rows: list[str], columns: list[str],
            cells: list[list[tuple[float, str] | None]], note: str = "") -> Picture:
    """Rows by columns of cells, each (score for its colour, text; lines
    split at newlines) or None (grey)."""
    label_w = max(map(len, rows)) * CHAR_W + MARGIN
    top = MARGIN + 3 * CHAR_H
    width = max(MARGIN * 2 + label_w + CELL_W * len(columns),
                MARGIN * 2 + CHAR_W * max(len(title), len(note)))
    picture = Picture(width, top + CELL_H * len(rows) + 2 * MARGIN + CHAR_H)
    picture.texts.append((MARGIN, MARGIN, title, False))
    if note:
        picture.texts.append((MARGIN, picture.height - MARGIN - CHAR_H, note, False))
    left = MARGIN + label_w
    for number, name in enumerate(columns):
        picture.texts.append((left + CELL_W * number + CELL_W // 2, top - CHAR_H - 2,
                              name[:CELL_W // CHAR_W - 1], True))
    for r, (name, line) in enumerate(zip(rows, cells)):
        y = top + CELL_H * r
        picture.texts.append((MARGIN, y + (CELL_H - CHAR_H) // 2, name, False))
        for c, cell in enumerate(line):
            x = left + CELL_W * c
            picture.rects.append((x, y, CELL_W, CELL_H, color(cell[0]) if cell else EMPTY))
            lines = cell[1].split("\n") if cell else ["-"]
            first = y + (CELL_H - CHAR_H * len(lines)) // 2
            for k, text in enumerate(lines):
                picture.texts.append((x + CELL_W // 2, first + CHAR_H * k, text, True))
    return picture
