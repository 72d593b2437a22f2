"""Reading and writing the user's files safely: the one owner of every file
check in the project.

Readers are bounded (regular files only, a size cap, valid UTF-8, JSON with a
depth cap), so no input can hang a command, exhaust memory or end in a
traceback. Writers check the target before the work starts (not a folder, its
folder exists and is writable, an existing file is replaced only when the user
says so, never the command's own input) and write atomically (a temporary
file beside the target, renamed over it), leaving nothing behind on failure.
Every fault is a `FileError` with one line naming the file.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import platformdirs

from xenophon.kernel.errors import XenophonError, shown

MAX_INPUT_BYTES = 64 * 1024 * 1024  # a record of a very long game is well under 1 MiB
MAX_JSON_DEPTH = 64  # records and queries nest 3 or 4 levels deep


class FileError(XenophonError):
    """A file that cannot be read or written; the message names it."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


# -- reading ----------------------------------------------------------------
def _open_regular(path: Path, what: str) -> tuple[int, os.stat_result]:
    """A descriptor of a regular file and its status, or one clear line.

    Opened without blocking, so a FIFO or a device is refused instead of
    waited on; /dev/zero and its like are not regular files."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise FileError(f"{path}: cannot read {what} ({_reason(error)})") from None
    except (ValueError, UnicodeEncodeError):  # a NUL byte or a lone surrogate in the name
        raise FileError(f"{ascii(str(path))}: not a usable file name") from None
    info = os.fstat(descriptor)
    if stat.S_ISREG(info.st_mode):
        return descriptor, info
    os.close(descriptor)
    if stat.S_ISDIR(info.st_mode):
        raise FileError(f"{path}: is a folder, not a {what}")
    raise FileError(f"{path}: not a regular file (a {what} is read from a file)")


def _open_bounded(path: Path, what: str, max_bytes: int) -> tuple[int, os.stat_result]:
    """_open_regular's descriptor and status, of a file of at most `max_bytes`."""
    descriptor, info = _open_regular(path, what)
    if info.st_size > max_bytes:
        os.close(descriptor)
        raise FileError(
            f"{path}: too large for a {what} ({info.st_size:,} bytes; at most {max_bytes:,})"
        )
    return descriptor, info


def read_bytes(path: str | Path, what: str = "file", max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`."""
    path = Path(path)
    descriptor, _ = _open_bounded(path, what, max_bytes)
    try:
        chunks, total = [], 0
        while True:
            chunk = os.read(descriptor, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:  # the file grew while being read
                raise FileError(f"{path}: too large for a {what} (at most {max_bytes:,} bytes)")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise FileError(f"{path}: cannot read {what} ({_reason(error)})") from None
    finally:
        os.close(descriptor)


def open_regular(path: str | Path, what: str, max_bytes: int) -> tuple[BinaryIO, int]:
    """A regular file of at most `max_bytes` opened to read (the caller
    closes it) and its size, or a FileError: for readers that take a file
    piece by piece (`xenophon.kernel.arrays`)."""
    descriptor, info = _open_bounded(Path(path), what, max_bytes)
    return os.fdopen(descriptor, "rb"), info.st_size


def decode_text(data: bytes, where: str, what: str = "file") -> str:
    """UTF-8 text (a leading byte-order mark is dropped), or one clear line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FileError(f"{where}: not a {what} (not UTF-8 text at byte {error.start})") from None


def read_text(path: str | Path, what: str = "file", max_bytes: int = MAX_INPUT_BYTES) -> str:
    return decode_text(read_bytes(path, what, max_bytes), str(path), what)


def iter_lines(
    path: str | Path,
    what: str = "file",
    max_line_bytes: int = MAX_INPUT_BYTES,
    max_bytes: int | None = None,
) -> Generator[tuple[str, bool], None, None]:
    """The lines of a regular file, one at a time, each of at most
    `max_line_bytes` and valid UTF-8: (text without its newline, whether a
    newline ended it). Only one line is held at a time, so a fault on a line
    is found before the rest of the file is read. A file over `max_bytes`
    (None: any size, such as a results file of many games) is refused
    before its first line."""
    path = Path(path)
    descriptor, info = _open_regular(path, what)
    if max_bytes is not None and info.st_size > max_bytes:
        os.close(descriptor)
        raise FileError(
            f"{path}: too large for a {what} ({info.st_size:,} bytes; at most {max_bytes:,})"
        )
    with os.fdopen(descriptor, "rb") as handle:
        number = total = 0
        while True:
            try:
                data = handle.readline(max_line_bytes + 1)
            except OSError as error:
                raise FileError(f"{path}: cannot read {what} ({_reason(error)})") from None
            if not data:
                return
            number += 1
            total += len(data)
            if max_bytes is not None and total > max_bytes:  # the file grew while being read
                raise FileError(f"{path}: too large for a {what} (at most {max_bytes:,} bytes)")
            ended = data.endswith(b"\n")
            if len(data) > max_line_bytes and not ended:
                raise FileError(
                    f"{path}: line {number} is too long for a {what} "
                    f"(at most {max_line_bytes:,} bytes)"
                )
            yield decode_text(data.rstrip(b"\r\n"), f"{path}: line {number}", what), ended


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects in a JSON text nest deeper than `limit`.

    Counting brackets first keeps the common case in C: a text with at most
    `limit` opening brackets cannot nest deeper, and only the rest is scanned
    (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


class JsonError(XenophonError, ValueError):
    """A JSON text that is malformed or nests too deeply."""


def _no_constant(name: str) -> Any:
    raise JsonError(f"not valid JSON ({name} is not a JSON number)")


def loads(text: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """json.loads with a depth cap; JsonError (a one-line reason) on any fault."""
    if json_depth_exceeds(text, max_depth):
        raise JsonError(f"nested more than {max_depth} levels deep")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise JsonError(f"not valid JSON ({error.msg})") from None
    except (RecursionError, ValueError) as error:  # numbers too long to convert, ...
        raise JsonError(f"not valid JSON ({error})") from None


def dumps_line(data: Any) -> str:
    """One JSON line that is always valid UTF-8: text that holds a lone
    surrogate (possible in data that came from JSON escapes) is written with
    ASCII escapes instead of raw."""
    line = json.dumps(data, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(data, ensure_ascii=True)
    return line


def user_data_folder() -> Path:
    """Where xenophon keeps the user's games and keys: $XDG_DATA_HOME/xenophon
    when that is set (on every system), else the system's own place for a
    program's data (platformdirs: ~/.local/share/xenophon on Linux,
    ~/Library/Application Support/xenophon on macOS, %LOCALAPPDATA%\\xenophon
    on Windows), except that a ~/.local/share/xenophon made by an earlier
    version is still used while that place holds nothing."""
    if os.environ.get("XDG_DATA_HOME"):
        return Path(os.environ["XDG_DATA_HOME"]) / "xenophon"
    own = Path(platformdirs.user_data_dir("xenophon", appauthor=False))
    earlier = Path(os.path.expanduser("~")) / ".local" / "share" / "xenophon"
    if earlier.is_dir() and not own.exists():
        return earlier
    return own


def check_header(
    data: Any,
    where: str,
    what: str,
    fmt: str,
    version: int,
    error: type[Exception],
    version_key: str = "version",
) -> None:
    """The header check of every versioned file: `data` (a parsed file's
    header, a JSON object) must name the format `fmt` and, under
    `version_key`, the version `version`; else `error` (the caller's type),
    one line naming `where` and saying what it is not ("not a deal book
    (format 'x', expected 'xenophon-deal-book')") or which version it is."""
    found = data.get("format") if isinstance(data, dict) else None
    if found != fmt:
        raise error(f"{where}: not a {what} (format {shown(repr(found))}, expected {fmt!r})")
    number = data.get(version_key)
    if isinstance(number, bool) or number != version:
        raise error(
            f"{where}: a {what} of format version {shown(repr(number))}; "
            f"this xenophon reads version {version}"
        )


# -- writing ----------------------------------------------------------------
def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (by path where either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _check_writable(folder: Path, named: Path) -> None:
    """Makes and removes a file in `folder`: the only test that holds for
    root, read-only mounts and access lists alike (os.access does not)."""
    try:
        descriptor, probe = tempfile.mkstemp(dir=folder, prefix=".xenophon-probe-")
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise FileError(
            f"{named}: cannot write in the folder {folder} ({_reason(error)})"
        ) from None


def check_output(
    path: str | Path,
    *,
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    what: str = "output",
    replaceable: Iterable[str | Path] = (),
) -> Path:
    """Checks, before any work, that `path` can be written; returns it.

    Refused: a folder; a missing or unwritable folder (folders are never made
    silently); an existing file unless `force` or it is one of `replaceable`
    (files this command wrote itself); a file that is one of the command's
    `inputs`, even with `force`; anything that is not a regular file."""
    path = Path(path)
    if str(path) == "" or path.name in ("", ".", ".."):
        raise FileError(f"'{path}': not a file name")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise FileError(f"{ascii(str(path))}: not a usable file name") from None
    if "\0" in str(path):
        raise FileError(f"{ascii(str(path))}: not a usable file name")
    try:
        return _checked_output(path, force, inputs, replaceable)
    except OSError as error:  # a name the system refuses: too long, a loop of links...
        raise FileError(f"{shown(path)}: cannot write ({_reason(error)})") from None


#: how a command replaces a file that exists (a page, which has no options, says otherwise)
REPLACE_WITH_FORCE = "(add --force to replace it)"


def _checked_output(
    path: Path, force: bool, inputs: Iterable[str | Path], replaceable: Iterable[str | Path]
) -> Path:
    """check_output's questions to the file system (which may raise OSError)."""
    for source in inputs:
        if same_file(path, Path(source)):
            raise FileError(f"{path}: is this command's input; choose another file to write")
    if path.is_dir():
        raise FileError(f"{path}: is a folder; give a file name")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileError(f"{path}: the folder {folder} does not exist")
    _check_writable(folder, path)
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise FileError(f"{path}: exists and is not a regular file")
        if not force and not any(same_file(path, Path(p)) for p in replaceable):
            raise FileError(f"{path}: exists already {REPLACE_WITH_FORCE}")
    return path


def check_output_folder(
    folder: str | Path, names: Iterable[str], *, force: bool = False, what: str = "output"
) -> list[Path]:
    """Checks a folder a command writes several files into (it is made when
    missing, as the user named it), and that none of `names` exists there
    unless `force`; returns the paths."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise FileError(f"{folder}: is a file; give a folder for the {what}")
    if not folder.exists():
        if not folder.parent.is_dir() and str(folder.parent) not in ("", "."):
            raise FileError(f"{folder}: its folder {folder.parent} does not exist")
        try:
            folder.mkdir()
        except OSError as error:
            raise FileError(f"{folder}: cannot make the folder ({_reason(error)})") from None
    _check_writable(folder, folder)
    paths = [folder / name for name in names]
    clashes = [p for p in paths if p.exists() or p.is_symlink()]
    if clashes and not force:
        shown = ", ".join(p.name for p in clashes[:3]) + (", ..." if len(clashes) > 3 else "")
        raise FileError(
            f"{folder}: {len(clashes)} of the files exist already ({shown}); "
            "add --force to replace them"
        )
    for clash in clashes:
        if not clash.is_file():
            raise FileError(f"{clash}: exists and is not a regular file")
    return paths


def make_folders(folder: str | Path) -> Path:
    """Makes `folder` and the folders above it where missing (the user's own
    data folder); a FileError in words, naming it, when it cannot be."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FileError(f"{folder}: cannot make the folder ({_reason(error)})") from None
    return folder


def _mode_for(path: Path) -> int:
    """The permissions a new file gets (mkstemp's are owner-only), or the
    replaced file's own."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: str | Path, text: str | bytes) -> Path:
    """Writes the whole file or nothing: a temporary file in the same folder,
    flushed to disk, then renamed over the target. On failure the temporary
    file is removed and a FileError says why; the target is untouched."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    data = text.encode("utf-8") if isinstance(text, str) else text
    temporary = None
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        os.chmod(temporary, _mode_for(path))
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        reason = "is a folder" if error.errno == errno.EISDIR else _reason(error)
        raise FileError(f"{path}: cannot write ({reason})") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    return path
