"""Action codes, shared by both games: the layout and the protocol constants.

A code is ``kind << 12 | x << 6 | y`` (docs/anabasis-engine.md §7,
docs/hero-engine.md §8); each game's kinds are numbered by its C core, which
exports them (`xenophon._core.<game>.KINDS`), and each game's notation
module takes them from there, so the numbering has one owner.
"""
from __future__ import annotations

from typing import Any

from xenophon._core import anabasis as _anabasis_core

KIND_SHIFT, FIELD_BITS = 12, 6
FIELD_MASK = (1 << FIELD_BITS) - 1

#: the player to move at a chance node and once the game is over (the cores' values)
CHANCE: int = _anabasis_core.CHANCE
TERMINAL: int = _anabasis_core.TERMINAL


def encode(kind: int, x: int = 0, y: int = 0) -> int:
    """The 16-bit code of (kind, x, y)."""
    if not (0 <= kind < 16 and 0 <= x <= FIELD_MASK and 0 <= y <= FIELD_MASK):
        raise ValueError(f"cannot encode kind={kind} x={x} y={y}")
    return kind << KIND_SHIFT | x << FIELD_BITS | y


def decode(code: int) -> tuple[int, int, int]:
    """(kind, x, y) of a code."""
    return code >> KIND_SHIFT, (code >> FIELD_BITS) & FIELD_MASK, code & FIELD_MASK


def core_kinds(core: Any, names: tuple[str, ...]) -> tuple[int, ...]:
    """The numbers the C core gives these kind names (one clear error if the
    core and the notation disagree on which kinds exist)."""
    missing = [name for name in names if name not in core.KINDS]
    if missing or len(names) != len(core.KINDS):
        raise ImportError(f"the C core's kinds {sorted(core.KINDS)} differ from the "
                          f"notation's {sorted(names)}: rebuild the extension")
    return tuple(core.KINDS[name] for name in names)
