"""What both games' card modules share: reading a card or deck file (TOML),
and finding a named thing the way players type names (ignoring case and
surrounding spaces)."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Iterable, Protocol, TypeVar

from xenophon.errors import CardFileError
from xenophon.files import FileError, decode_text, read_bytes

#: a card or deck file's size cap; the reference card files are under 10 KB
MAX_CARD_FILE_BYTES = 1024 * 1024


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


def read_toml(path: Path, what: str) -> tuple[bytes, dict[str, Any]]:
    """The bytes of a TOML file (its digest is theirs) and what it holds.

    The file is read by `xenophon.files` (a regular file of at most
    MAX_CARD_FILE_BYTES, UTF-8), so a FIFO, a device or a folder is refused at
    once. CardFileError, naming the file, on any fault."""
    try:
        raw = read_bytes(path, what, MAX_CARD_FILE_BYTES)
        text = decode_text(raw, str(path), what)
    except FileError as error:
        raise CardFileError(str(error)) from None
    try:
        return raw, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CardFileError(f"{path}: not a valid TOML file ({error})") from None
    except ValueError:            # tomllib converts numbers of any length with int()
        raise CardFileError(f"{path}: not a valid TOML file (a number with more than "
                            "4300 digits)") from None
    except RecursionError:
        raise CardFileError(f"{path}: not a valid TOML file (arrays or tables nested too "
                            "deeply)") from None
