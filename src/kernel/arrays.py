"""Reading a NumPy `.npz` file (a zip of `.npy` arrays) within its size:
the one owner of every `.npz` reader in the project (network files, the
learning log's shards).

`read_npz` reads the zip's directory and each member's `.npy` header (name,
dtype, shape) before any array's data: every array must be one the caller
names (`ArraySpec`: its dtype exactly, its shape exactly or in named
dimensions that agree across the arrays), each member's declared size must
be its header and data, and all the arrays together may take at most
`MAX_GROWTH` times the file's size plus `ALLOWANCE_BYTES`. Only then is the
data read. So a small file cannot make the reader allocate much more than
its size, and any fault (a torn zip, a bad CRC, a header claiming terabytes,
an unknown or mistyped array) is one line naming the file, in the caller's
error type.
"""

from __future__ import annotations

import math
import struct
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.files import open_regular

#: the arrays of a file take at most this many times its size ...
MAX_GROWTH = 4
#: ... plus this many bytes (docs/learning.md, "Network files")
ALLOWANCE_BYTES = 50 * 1024 * 1024
#: the dtype of a text array of any length (a JSON header, say)
TEXT = "<U"
#: how `np.savez` names a member
MEMBER_SUFFIX = ".npy"
#: the compressions `np.savez` and `np.savez_compressed` write
COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
#: deflate expands data at most about 1032 times (zlib's technical details)
MAX_DEFLATE_RATIO = 1032
#: every error the zip, zlib and NumPy readers raise on a bad file
READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    struct.error,
    MemoryError,
    ValueError,
    OSError,
    EOFError,
    KeyError,
    IndexError,
    OverflowError,
    RuntimeError,  # an encrypted member
    NotImplementedError,  # a compression zipfile lacks
)


@dataclass(frozen=True)
class ArraySpec:
    """What one array of a file must be: its dtype (a NumPy dtype string such
    as "<f4" or "|u1", exact; TEXT for text of any length) and its shape,
    each dimension a number or the name of a dimension that every array
    naming it shares. `required=False`: the file may leave it out."""

    dtype: str
    shape: tuple[int | str, ...]
    required: bool = True


@dataclass(frozen=True)
class _Member:
    name: str
    info: zipfile.ZipInfo
    dtype: Any
    shape: tuple[int, ...]
    nbytes: int


class _Refused(Exception):
    """Why a file is not what the caller expects (read_npz adds the file)."""


def read_npz(
    path: str | Path,
    what: str,
    specs: Mapping[str, ArraySpec],
    error: type[XenophonError],
    max_bytes: int,
) -> dict[str, Any]:
    """The arrays of the `.npz` file `path` (a `what`, at most `max_bytes`),
    each checked against `specs` before its data is read: `error` in one line
    naming the file when it is not such a file (FileError when it cannot be
    read at all)."""
    path = Path(path)
    stream, size = open_regular(path, what, max_bytes)
    try:
        with stream, zipfile.ZipFile(stream) as archive:
            members = _checked_members(archive, specs, size)
            return {m.name: _loaded(archive, m) for m in members}
    except _Refused as refused:
        raise error(f"{path}: not a {what} ({refused})") from None
    except READ_ERRORS as failed:
        reason = shown(str(failed)) or type(failed).__name__
        raise error(f"{path}: not a {what} ({reason})") from None


def _checked_members(
    archive: zipfile.ZipFile, specs: Mapping[str, ArraySpec], size: int
) -> list[_Member]:
    """Every member's header read and checked, the caller's order kept."""
    found: dict[str, _Member] = {}
    for info in archive.infolist():
        member = _member(archive, info, specs)
        if member.name in found:
            raise _Refused(f"'{shown(member.name)}' is in it twice")
        found[member.name] = member
    total, bound = sum(m.nbytes for m in found.values()), MAX_GROWTH * size + ALLOWANCE_BYTES
    if total > bound:
        raise _Refused(f"its arrays would take {total:,} bytes; a file of its size, {bound:,}")
    missing = [name for name, spec in specs.items() if spec.required and name not in found]
    if missing:
        raise _Refused(f"it has no '{missing[0]}' array")
    members = [found[name] for name in specs if name in found]
    _check_dimensions(members, specs)
    return members


def _member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, specs: Mapping[str, ArraySpec]
) -> _Member:
    """One member's name, dtype and shape from its header, with its sizes checked."""
    name = info.filename.removesuffix(MEMBER_SUFFIX)
    spec = specs.get(name)
    if spec is None or info.filename == name:
        raise _Refused(f"an unknown array '{shown(info.filename)}'")
    if info.compress_type not in COMPRESSIONS or info.flag_bits & 0x1:
        raise _Refused(f"'{name}' is encrypted or compressed in a way NumPy does not write")
    with archive.open(info) as stream:
        try:
            dtype, shape, header = _header(stream)
        except READ_ERRORS:
            raise
        except Exception as error:  # NumPy parses the header as Python: tokenize, ast
            reason = shown(str(error)) or type(error).__name__
            raise _Refused(f"'{name}' has no readable .npy header ({reason})") from None
    if not _dtype_matches(dtype, spec.dtype):
        raise _Refused(f"'{name}' must hold {spec.dtype}, not {shown(dtype.str)}")
    if len(shape) != len(spec.shape) or any(n < 0 for n in shape):
        raise _Refused(f"'{name}' must be an array of shape {_shown_shape(spec.shape)}")
    nbytes = math.prod(shape) * dtype.itemsize
    _check_sizes(name, info, header + nbytes)
    return _Member(name, info, dtype, shape, nbytes)


def _header(stream: IO[bytes]) -> tuple[Any, tuple[int, ...], int]:
    """(dtype, shape, header bytes) of a `.npy` stream, read up to its data."""
    from numpy.lib import format as npy

    version = npy.read_magic(stream)
    if version == (1, 0):
        shape, _, dtype = npy.read_array_header_1_0(stream)
    elif version == (2, 0):
        shape, _, dtype = npy.read_array_header_2_0(stream)
    else:
        raise _Refused(f"an array of .npy version {version}, which NumPy does not write here")
    return dtype, tuple(shape), stream.tell()


def _dtype_matches(dtype: Any, wanted: str) -> bool:
    import numpy as np

    if wanted == TEXT:
        return dtype.kind == "U" and dtype.str.startswith(TEXT) and dtype.fields is None
    return bool(dtype.str == np.dtype(wanted).str and dtype.fields is None)


def _check_sizes(name: str, info: zipfile.ZipInfo, declared: int) -> None:
    """The member's sizes in the zip agree with its header's byte count."""
    if info.file_size != declared:
        raise _Refused(f"'{name}' is {info.file_size:,} bytes, its header says {declared:,} bytes")
    stored = info.compress_type == zipfile.ZIP_STORED
    if (stored and info.compress_size != declared) or (
        not stored and declared > MAX_DEFLATE_RATIO * info.compress_size + 64
    ):
        raise _Refused(f"'{name}' is compressed to {info.compress_size:,} bytes, not {declared:,}")


def _check_dimensions(members: list[_Member], specs: Mapping[str, ArraySpec]) -> None:
    """Each array's fixed dimensions, and the named ones agreeing across the arrays."""
    bound: dict[str, int] = {}
    for member in members:
        wanted = specs[member.name].shape
        for size, dimension in zip(member.shape, wanted, strict=True):
            expected = (
                bound.setdefault(dimension, size) if isinstance(dimension, str) else dimension
            )
            if size != expected:
                shape = tuple(bound.get(d, d) if isinstance(d, str) else d for d in wanted)
                raise _Refused(
                    f"'{member.name}' must be an array of shape {_shown_shape(shape)}, "
                    f"not {member.shape}"
                )


def _shown_shape(shape: tuple[int | str, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _loaded(archive: zipfile.ZipFile, member: _Member) -> Any:
    """A checked member's array, its data read to the end (the CRC checked)."""
    from numpy.lib import format as npy

    with archive.open(member.info) as stream:
        array = npy.read_array(stream, allow_pickle=False)
        if stream.read(1):
            raise _Refused(f"'{member.name}' has bytes after its data")
    return array
