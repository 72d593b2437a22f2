"""Action codes, shared by every game: the layout and the protocol constants.

A code is ``kind << KIND_SHIFT | x << FIELD_BITS | y``, the layout of
src/engine_c/codes.h, which owns it: the compiled extension exports it
(``xenophon._core.CODE_KIND_SHIFT``, ``CODE_FIELD_BITS``) and everything in
Python reads it from here. Each game's kinds are numbered by its C core,
which exports them (`xenophon._core.<game>.KINDS`), and each game's notation
module takes them from there, so the numbering has one owner too.
"""

from __future__ import annotations

from typing import Any

from xenophon import _core

KIND_SHIFT: int = _core.CODE_KIND_SHIFT
FIELD_BITS: int = _core.CODE_FIELD_BITS
FIELD_MASK = (1 << FIELD_BITS) - 1
#: kinds are numbered below this (a code is 16 bits)
KIND_LIMIT = 1 << (16 - KIND_SHIFT)

#: the player to move at a chance node and once the game is over (the cores' values)
CHANCE: int = _core.CHANCE
TERMINAL: int = _core.TERMINAL


def encode(kind: int, x: int = 0, y: int = 0) -> int:
    """The 16-bit code of (kind, x, y)."""
    if not (0 <= kind < KIND_LIMIT and 0 <= x <= FIELD_MASK and 0 <= y <= FIELD_MASK):
        raise ValueError(f"cannot encode kind={kind} x={x} y={y}")
    return kind << KIND_SHIFT | x << FIELD_BITS | y


def decode(code: int) -> tuple[int, int, int]:
    """(kind, x, y) of a code."""
    return code >> KIND_SHIFT, (code >> FIELD_BITS) & FIELD_MASK, code & FIELD_MASK


def kind_of(code: int) -> int:
    """The kind of a code (an action's or a chance outcome's)."""
    return code >> KIND_SHIFT


def core_kinds(core: Any, names: tuple[str, ...]) -> tuple[int, ...]:
    """The numbers the C core gives these kind names (one clear error if the
    core and the notation disagree on which kinds exist)."""
    missing = [name for name in names if name not in core.KINDS]
    if missing or len(names) != len(core.KINDS):
        raise ImportError(
            f"the C core's kinds {sorted(core.KINDS)} differ from the "
            f"notation's {sorted(names)}: rebuild the extension"
        )
    return tuple(core.KINDS[name] for name in names)
