"""The project's exceptions. Each carries a message a player can act on.

A message that quotes what a user or a file gave (a move, a card name, a
field, a value) quotes it through `shown`: its control characters escaped,
so that the message stays one line and sends a terminal nothing (no escape
sequence, no bell, no newline), and text over MAX_SHOWN characters cut with
"...". Every XenophonError escapes its whole message so, and `one_line`
makes any message so where it is printed (`xenophon.cli.main`)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

#: the characters of user text a message quotes; the rest is cut with "..."
MAX_SHOWN = 200
#: the characters of a whole error line
MAX_LINE = 2000
ELLIPSIS = "..."
#: what is escaped: C0 and C1 controls and DEL (escape sequences, bell,
#: newlines), the line and paragraph separators, the marks that reorder
#: text (bidirectional controls), and lone surrogates (undecodable bytes)
_UNSAFE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: object, limit: int | None = MAX_SHOWN) -> str:
    """`text` as a message quotes it: control characters escaped as Python
    writes them (a newline as backslash-n, ESC as backslash-x1b) and, past
    `limit` characters (None: no limit), cut with "..." (`shown("x" * 300,
    5)` is "xxxxx...")."""
    text = str(text)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    text = _UNSAFE.sub(_escaped, text)
    if limit is not None and len(text) > limit:  # escapes made it longer
        text, cut = text[:limit], True
    return text + ELLIPSIS if cut else text


def did_you_mean(text: str, names: Iterable[str]) -> str:
    """' (did you mean NAME?)' for the name closest to `text` (case
    ignored) when one is close, else '': what a message about an unknown
    word or name adds (`did_you_mean("palce", ["place", "move"])` is
    " (did you mean place?)")."""
    lowered = {name.lower(): name for name in names}
    close = difflib.get_close_matches(text.lower(), list(lowered), n=1)
    return f" (did you mean {lowered[close[0]]}?)" if close else ""


def one_line(message: object) -> str:
    """A whole error message as one printable line of at most MAX_LINE
    characters (what quotes user text through `shown` is far shorter)."""
    return shown(message, MAX_LINE)


class XenophonError(Exception):
    """Base class of every error xenophon raises on purpose. Its message is
    one line: control characters in it are escaped (`shown`, not cut), so
    that a quote that missed `shown` still cannot break the line or reach a
    terminal raw."""

    def __init__(self, *args: object):
        super().__init__(*(shown(arg, None) if isinstance(arg, str) else arg for arg in args))


class NotationError(XenophonError, ValueError):
    """A move written in a form the game's notation does not know."""


class IllegalMoveError(XenophonError, ValueError):
    """A well-formed move that is not legal in the current position."""


class CardFileError(XenophonError, ValueError):
    """A card or deck file that cannot be used; the message names the file and the card."""
