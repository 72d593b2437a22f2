"""Line editing for `xenophon play`: history, arrow keys and Tab completion
of the legal moves, through readline where the platform has it; and input
cleaned of the escape sequences a terminal sends for keys the reader did not
handle, so that no error ever echoes one."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

#: CSI and SS3 sequences (arrows, function keys), other ESC pairs, then any
#: other control character but tab
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1bO.|\x1b.?|[\x00-\x08\x0a-\x1f\x7f]")


def clean(text: str) -> str:
    """`text` without escape sequences and control characters, tabs as spaces."""
    return ESCAPES.sub("", text).replace("\t", " ")


class LineReader:
    """Reads one line at a prompt; with readline on a terminal, completes the
    words `candidates()` gives (the legal moves and the commands)."""

    def __init__(self, candidates: Callable[[], list[str]], interactive: bool | None = None):
        self.candidates = candidates
        self.matches: list[str] = []
        self.readline = None
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        if self.interactive:
            try:
                import readline
            except ImportError:  # no readline on this platform: plain input()
                readline = None  # type: ignore[assignment]
            if readline is not None:
                readline.set_completer_delims("")  # a move is completed as a whole line
                readline.set_completer(self.complete)
                readline.parse_and_bind("tab: complete")
                self.readline = readline

    def complete(self, text: str, index: int) -> str | None:
        """readline's completer: the `index`-th candidate starting with `text`
        (case ignored)."""
        if index == 0:
            typed = text.lower()
            self.matches = [c for c in self.candidates() if c.lower().startswith(typed)]
        return self.matches[index] if index < len(self.matches) else None

    def __call__(self, prompt: str) -> str | None:
        """The line typed (cleaned), or None at the end of the input. Lines
        read from a file or a pipe are echoed after the prompt, so that the
        output reads as a session at the terminal does."""
        try:
            line = clean(input(prompt))
        except EOFError:
            return None
        if not self.interactive:
            print(line, flush=True)
        return line
