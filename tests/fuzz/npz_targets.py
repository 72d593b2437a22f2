"""`network_file`: any bytes as a network (weights) file, read by the
production reader (`read_network`, through `xenophon.kernel.arrays`).

Byte 0 of the input says what the rest is: even, the file's bytes as they
are (mutations of the zip itself: its directory, sizes, CRCs, deflate
streams); odd, the `.npy` members of a file, each after a line
`@@ NAME`, zipped here with correct CRCs (deflated when bit 1 is set), so
that mutations reach the arrays' headers, dtypes and shapes rather than
stopping at a CRC.

What must hold: the file is read, or refused with a XenophonError whose
message is one printable line (`sample.check_message`); any other exception
is a finding. And the reader's memory stays within its bound: the process's
peak resident memory while it reads (VmHWM, set back before each input) is
at most 4 times the file's size plus 50 MB over its resident memory before
(`MemoryFinding`); the driver's address-space cap (`--memory-mb`) stops a
bigger allocation outright.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from typing import TYPE_CHECKING

from xenophon.kernel.arrays import ALLOWANCE_BYTES, MAX_GROWTH
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import (
    NETWORK_ARRAYS,
    NETWORK_FILE_VERSION,
    NETWORK_FORMAT,
    read_network,
)

from . import sample

if TYPE_CHECKING:  # NumPy is imported when a seed is made: not in every target's worker
    import numpy as np

MEMBERS_MODE = 1
DEFLATE_BIT = 2
MEMBER_LINE = re.compile(rb"@@ ([^\n]*)\n")
#: a network of a few units over made-up inputs: every array, small
DIMENSIONS = {"inputs": 3, "features": 2, "hidden": 2, "buckets": 2}
SHAPES = NETWORK_ARRAYS  # the shapes the reader checks: its one owner


class MemoryFinding(AssertionError):
    """The reader's memory grew past its bound for the file."""


def small_network_arrays() -> dict[str, np.ndarray]:
    import numpy as np

    meta = {
        "format": NETWORK_FORMAT,
        "version": NETWORK_FILE_VERSION,
        "game": "hero",
        "inputs": [f"in{i}" for i in range(DIMENSIONS["inputs"])],
        "features": [f"f{i}" for i in range(DIMENSIONS["features"])],
        "hidden": DIMENSIONS["hidden"],
        "taper_turns": 20,
        "buckets": DIMENSIONS["buckets"],
        "made": {},
    }
    rng = np.random.default_rng(7)
    arrays = {
        key: rng.normal(0, 0.5, [DIMENSIONS[d] for d in dims]).astype(np.float32)
        for key, dims in SHAPES.items()
    }
    return {"meta": np.asarray(json.dumps(meta)), **arrays}


def _file(arrays: dict[str, np.ndarray], compressed: bool) -> bytes:
    import numpy as np

    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)  # type: ignore[operator]
    return buffer.getvalue()


def _members(arrays: dict[str, np.ndarray]) -> bytes:
    import numpy as np

    parts = []
    for key, array in arrays.items():
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        parts.append(b"@@ " + key.encode() + b".npy\n" + buffer.getvalue())
    return b"".join(parts)


def network_seeds() -> list[bytes]:
    arrays = small_network_arrays()
    return [
        b"\x00" + _file(arrays, compressed=True),
        b"\x00" + _file(arrays, compressed=False),
        bytes([MEMBERS_MODE]) + _members(arrays),
        bytes([MEMBERS_MODE | DEFLATE_BIT]) + _members(arrays),
    ]


def zipped_members(data: bytes, deflated: bool) -> bytes:
    """The members written as `@@ NAME` lines and their bytes, as a zip."""
    pieces = MEMBER_LINE.split(data)
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, body in zip(pieces[1::2], pieces[2::2], strict=True):
            info = zipfile.ZipInfo(name.decode("utf-8", "replace"))
            archive.writestr(info if info.filename else "-", body)
    return buffer.getvalue()


def file_of(data: bytes) -> bytes:
    if not data or not data[0] & MEMBERS_MODE:
        return data[1:]
    return zipped_members(data[1:], deflated=bool(data[0] & DEFLATE_BIT))


def _status_kib(field: str) -> int:
    """A memory figure of this process from /proc/self/status (kB)."""
    with open("/proc/self/status") as status:
        return int(re.search(rf"{field}:\s+(\d+)", status.read()).group(1))  # type: ignore[union-attr]


def _reset_peak() -> None:
    """The peak resident memory (VmHWM) set back to the present (Linux 4.0)."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


def network_target(data: bytes) -> None:
    content = file_of(data)
    path = sample.scratch("network.npz")
    path.unlink(missing_ok=True)  # a new file: ext4 flushes a file truncated over its data (6 ms)
    path.write_bytes(content)
    before = _status_kib("VmRSS")
    _reset_peak()
    try:
        read_network(path, "hero")
    except XenophonError as error:
        sample.check_message(error)
    grown = (_status_kib("VmHWM") - before) * 1024
    if grown > MAX_GROWTH * len(content) + ALLOWANCE_BYTES:
        raise MemoryFinding(f"{grown:,} bytes more for a file of {len(content):,}")


TARGETS = {"network_file": network_target}
SEEDS = {"network_file": network_seeds}
