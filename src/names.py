"""Finding a named thing the way players type names: ignoring case and
surrounding spaces. Shared by both games' card sets."""
from __future__ import annotations

from typing import Iterable, Protocol, TypeVar


class Named(Protocol):
    name: str


T = TypeVar("T", bound=Named)


def find_by_name(items: Iterable[T], name: str) -> T:
    """The item called `name`, ignoring case and surrounding spaces; KeyError if none."""
    wanted = name.strip().casefold()
    for item in items:
        if item.name.casefold() == wanted:
            return item
    raise KeyError(name)
