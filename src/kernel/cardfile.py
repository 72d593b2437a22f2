"""What both games' card modules share: reading a card or deck file (TOML).

Each game's module keeps its own knowledge (its fields, kinds, effects and
keywords); this module owns what every card and deck file has in common:

- the file is read whole and bounded, by `xenophon.kernel.files` (a regular file of
  at most MAX_CARD_FILE_BYTES, UTF-8), and its digest is the sha256 of its
  raw bytes, comments included (saved records name their card file by it);
- its sections are tables (``[patterns]``) or lists of tables
  (``[[card]]``), and any other section is an error;
- every field is checked for presence, type and range by `CardFileReader`,
  and every fault is one CardFileError line naming the file, the card and
  the field: ``cards.toml: card 'Fireball': field 'cost' is negative (-2)``;
- names are found the way players type them, ignoring case and surrounding
  spaces, and are unique within their kind ignoring case.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, TypeVar

from xenophon.kernel.errors import CardFileError, shown
from xenophon.kernel.files import FileError, decode_text, read_bytes

#: a card or deck file's size cap; the reference card files are under 10 KB
MAX_CARD_FILE_BYTES = 1024 * 1024


class Named(Protocol):
    @property
    def name(self) -> str: ...  # read-only, so frozen dataclasses match


T = TypeVar("T", bound=Named)
Item = TypeVar("Item")


def find_by_name(items: Iterable[T], name: str) -> T:
    """The item called `name`, ignoring case and surrounding spaces; KeyError if none."""
    wanted = name.strip().casefold()
    for item in items:
        if item.name.casefold() == wanted:
            return item
    raise KeyError(name)


def packaged_data(*parts: str) -> Path:
    """A path in the package's data folder, e.g. ``packaged_data("GAME", "cards.toml")``."""
    return Path(str(resources.files("xenophon") / "data")).joinpath(*parts)


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class CardFile:
    """A card or deck file as read: its path, its digest and what it holds."""

    path: str
    digest: str  # sha256 of the file's raw bytes
    data: dict[str, Any]


def read_card_file(path: Path, what: str) -> CardFile:
    """Read and parse a card or deck file (`what` names it in messages).

    A FIFO, a device or a folder is refused at once; CardFileError, naming
    the file, on any fault."""
    try:
        raw = read_bytes(path, what, MAX_CARD_FILE_BYTES)
        text = decode_text(raw, str(path), what)
    except FileError as error:
        raise CardFileError(str(error)) from None
    return CardFile(str(path), digest(raw), _parse_toml(text, path))


def digest(raw: bytes) -> str:
    """A card or deck file's identity: the sha256 of its raw bytes."""
    return hashlib.sha256(raw).hexdigest()


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CardFileError(f"{path}: not a valid TOML file ({error})") from None
    except ValueError:  # tomllib converts numbers of any length with int()
        raise CardFileError(
            f"{path}: not a valid TOML file (a number with more than 4300 digits)"
        ) from None
    except RecursionError:
        raise CardFileError(
            f"{path}: not a valid TOML file (arrays or tables nested too deeply)"
        ) from None


# --------------------------------------------------------------------------- faults


def card_file_error(path: str, where: str, message: str) -> CardFileError:
    """``path: where: message``; `where` (the card, the section) may be empty."""
    return CardFileError(": ".join(part for part in (path, where, message) if part))


def is_whole_number(value: Any) -> bool:
    """An int and not a bool (TOML's true is no number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _listed(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, (", ".join(words[:-1]), words[-1])))


@dataclass(frozen=True)
class NameRule:
    """The names a game allows: a pattern the whole (stripped) name must
    match, and the sentence telling a user what a name may hold."""

    pattern: re.Pattern[str]
    explanation: str


# --------------------------------------------------------------------------- the reader


class CardFileReader:
    """Walks a parsed card or deck file, raising CardFileError on the first fault.

    Each game subclasses it with its own sections and entries; `where` in
    every method is the card (or section) a message names, such as
    ``card 'Fireball'``."""

    def __init__(self, file: CardFile):
        self.file = file
        self.path = file.path
        self.data = file.data

    def fail(self, where: str, message: str) -> CardFileError:
        return card_file_error(self.path, where, message)

    # -- sections -----------------------------------------------------------
    def check_sections(self, *, tables: Collection[str] = (), lists: Collection[str] = ()) -> None:
        """The file holds only these ``[tables]`` and ``[[lists]]`` of tables."""
        for key in self.data:
            if key not in tables and key not in lists:
                sections = [f"[{t}]" for t in tables] + [f"[[{k}]]" for k in lists]
                raise self.fail(
                    f"section '{shown(key)}'", f"unknown section ({_listed(sections)} only)"
                )

    def table(self, key: str) -> dict[str, Any]:
        """A ``[key]`` section (empty if the file has none)."""
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"section '{key}'", f"must be a table ([{key}])")
        return value

    def entries(self, kind: str) -> list[dict[str, Any]]:
        """The ``[[kind]]`` tables (none if the file has none)."""
        entries = self.data.get(kind, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise self.fail(f"section '{kind}'", f"must be a list of tables ([[{kind}]])")
        return entries

    def read_entries(
        self, kind: str, read: Callable[[int, dict[str, Any]], Item], *, first_id: int = 0
    ) -> list[Item]:
        """`read(id, entry)` for each ``[[kind]]`` table, ids counting from `first_id`."""
        return [read(first_id + index, entry) for index, entry in enumerate(self.entries(kind))]

    def check_unique_names(self, items: Iterable[Named], what: str) -> None:
        seen: set[str] = set()
        for item in items:
            if item.name.casefold() in seen:
                raise self.fail(f"{what} '{shown(item.name)}'", "duplicate name")
            seen.add(item.name.casefold())

    def check_defined(self, items: Collection[object], what: str) -> None:
        """The file defines at least one `what` (a singular noun)."""
        if not items:
            raise self.fail(f"{what}s", f"the file defines no {what}")

    def check_at_most(self, items: Collection[object], most: int, what: str) -> None:
        """At most `most` items (`what`: a plural noun, such as "field cards")."""
        if len(items) > most:
            raise self.fail(what, f"{len(items)} {what}, at most {most} are supported")

    # -- entries ------------------------------------------------------------
    def header(
        self, entry: dict[str, Any], kind: str, nameless: str, rule: NameRule
    ) -> tuple[str, str, str]:
        """An entry's name, the `where` of its messages (``kind 'name'``) and its
        optional ``japanese`` name; `nameless` is the `where` of an entry
        without a name."""
        self.require(entry, "name", nameless)
        name = self.text(entry, "name", nameless)
        where = f"{kind} '{shown(name)}'"
        if not rule.pattern.fullmatch(name):
            raise self.fail(where, rule.explanation)
        return name, where, self.text(entry, "japanese", where, default="", empty=True)

    def check_fields(
        self, entry: dict[str, Any], allowed: Collection[str], where: str, context: str = ""
    ) -> None:
        """No field but the allowed ones; `context` ends the message (" for a unit")."""
        for key in entry:
            if key not in allowed:
                raise self.fail(where, f"unknown field '{shown(key)}'{context}")

    def require(self, entry: Mapping[str, Any], key: str, where: str) -> None:
        if key not in entry:
            raise self.fail(where, f"missing field '{key}'")

    # -- fields -------------------------------------------------------------
    def text(
        self,
        entry: dict[str, Any],
        key: str,
        where: str,
        *,
        default: str | None = None,
        empty: bool = False,
    ) -> str:
        """A string field, stripped; non-empty unless `empty`."""
        value = entry.get(key, default)
        if value is None:
            raise self.fail(where, f"missing field '{key}'")
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(where, f"field '{key}' must be a {'' if empty else 'non-empty '}string")
        return value.strip()

    def choice(
        self,
        entry: dict[str, Any],
        key: str,
        where: str,
        options: Collection[str],
        *,
        default: str | None = None,
        what: str | None = None,
    ) -> str:
        """A string field that is one of `options` (`what` names them, default the key)."""
        value = self.text(entry, key, where, default=default)
        if value not in options:
            raise self.fail(
                where, f"unknown {what or key} '{shown(value)}' (one of {', '.join(options)})"
            )
        return value

    def whole_number(
        self, entry: dict[str, Any], key: str, where: str, default: int | None = None
    ) -> int:
        value = entry.get(key, default)
        if value is None:
            raise self.fail(where, f"missing field '{key}'")
        if not is_whole_number(value):
            raise self.fail(where, f"field '{key}' must be a whole number")
        return value

    def in_range(self, value: int, key: str, where: str, low: int, high: int) -> int:
        if not low <= value <= high:
            raise self.fail(
                where, f"field '{key}' must be between {low} and {high} ({shown(value)})"
            )
        return value

    def number(
        self,
        entry: dict[str, Any],
        key: str,
        where: str,
        *,
        high: int,
        low: int = 0,
        default: int | None = None,
    ) -> int:
        """A whole number from `low` (at least 0) to `high`."""
        value = self.whole_number(entry, key, where, default)
        if value < 0:
            raise self.fail(where, f"field '{key}' is negative ({shown(value)})")
        return self.in_range(value, key, where, low, high)

    def strings(self, entry: dict[str, Any], key: str, where: str, example: str = "") -> list[str]:
        """A list of strings, empty by default; `example` ends the message of a wrong type."""
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            raise self.fail(where, f"field '{key}' must be a list of strings{example}")
        return value

    def keywords(self, entry: dict[str, Any], where: str, known: Collection[str]) -> frozenset[str]:
        """The ``keywords`` field: a list of the game's keywords, none by default."""
        keywords = self.strings(entry, "keywords", where)
        for keyword in keywords:
            if keyword not in known:
                raise self.fail(where, f"unknown keyword '{shown(keyword)}'")
        return frozenset(keywords)
