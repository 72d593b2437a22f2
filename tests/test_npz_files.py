"""`.npz` files read within their size (xenophon.kernel.arrays): network
files and the learning log's shards. Hostile files (an unknown array of a
GiB compressed into a MiB, a header claiming terabytes, a torn zip, a wrong
dtype or shape) are one line naming the file, and cost little memory."""

from __future__ import annotations

import functools
import io
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest
from numpy.lib import format as npy

from xenophon.kernel import arrays
from xenophon.kernel.arrays import ArraySpec, read_npz
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import WeightsError, read_network, shipped_network_file
from xenophon.lab.learnlog import LogError, read_shard, write_shard

GIB = 1 << 30
MIB = 1 << 20


class MadeUpError(XenophonError):
    pass


# -- files made by hand ------------------------------------------------------------
def npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def deflated(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush()


def raw_zip(members: list[tuple[str, int, int, int, bytes]]) -> bytes:
    """A zip of (name, method, crc, uncompressed size, payload) members, each
    as given (a size or CRC may lie)."""
    out, directory = io.BytesIO(), io.BytesIO()
    for name, method, crc, size, payload in members:
        offset, encoded = out.tell(), name.encode()
        fields = (20, 0, method, 0, 0x21, crc, len(payload), size, len(encoded), 0)
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", *fields) + encoded + payload)
        directory.write(
            struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, *fields, 0, 0, 0, 0, offset) + encoded
        )
    start, listed = out.tell(), directory.getvalue()
    n = len(members)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, len(listed), start, 0)
    return out.getvalue() + listed + end


def members_of(path) -> list[tuple[str, int, int, int, bytes]]:
    """A real file's members, deflated again for raw_zip."""
    with zipfile.ZipFile(path) as archive:
        datas = [(info.filename, archive.read(info)) for info in archive.infolist()]
    return [(n, 8, zlib.crc32(d), len(d), deflated(d)) for n, d in datas]


@functools.cache
def zeros_member(name: str, dtype: str, shape: tuple[int, ...]) -> tuple:
    """A member of zeros of that shape, deflated a MiB at a time (a GiB of
    zeros takes 1 MiB) without ever holding more than a MiB."""
    header = npy_header(dtype, shape)
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = packer.compress(header) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(bytes(MIB)) + packer.flush(zlib.Z_FULL_FLUSH)
    assert size % MIB == 0
    crc = zlib.crc32(header)
    for _ in range(size // MIB):
        crc = zlib.crc32(bytes(MIB), crc)
    payload = head + block * (size // MIB) + packer.flush()
    return (name, 8, crc, len(header) + size, payload)


SHIPPED = shipped_network_file("hero")


@pytest.fixture(scope="module")
def gib_file(tmp_path_factory):
    """The shipped network with an unknown GiB of zeros: about 1.1 MB."""
    path = tmp_path_factory.mktemp("npz") / "gib.npz"
    path.write_bytes(raw_zip(members_of(SHIPPED) + [zeros_member("junk.npy", "<f4", (GIB // 4,))]))
    return path


def peak_bytes(fn) -> int:
    """The most memory Python and NumPy held while `fn` ran (tracemalloc)."""
    tracemalloc.start()
    try:
        fn()
    except XenophonError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def refused(fn, error=WeightsError) -> str:
    with pytest.raises(error) as raised:
        fn()
    message = str(raised.value)
    assert "\n" not in message and len(message) < 400, message
    return message


# -- network files -----------------------------------------------------------------
def test_an_unknown_gib_array_in_a_mib_file_is_refused_before_it_is_read(gib_file):
    assert gib_file.stat().st_size < 1.2e6
    message = refused(lambda: read_network(gib_file, "hero"))
    assert str(gib_file) in message and "unknown array 'junk.npy'" in message
    assert peak_bytes(lambda: read_network(gib_file, "hero")) < 50 * MIB


def test_a_known_array_of_a_gib_in_a_mib_file_is_over_the_bound(gib_file, tmp_path):
    # the same GiB under a name a file may hold: refused by the bound on the total
    path = tmp_path / "gib-known.npz"
    spec = {"junk": ArraySpec("<f4", ("n",))}
    path.write_bytes(raw_zip([zeros_member("junk.npy", "<f4", (GIB // 4,))]))
    message = refused(lambda: read_npz(path, "thing", spec, MadeUpError, 16 * MIB), MadeUpError)
    assert "would take 1,073,741,824 bytes" in message
    assert peak_bytes(lambda: read_npz(path, "thing", spec, MadeUpError, 16 * MIB)) < 50 * MIB


def test_an_array_within_the_bound_is_read(tmp_path, monkeypatch):
    path = tmp_path / "mib.npz"
    path.write_bytes(raw_zip([zeros_member("junk.npy", "<f4", (MIB // 4,))]))
    spec = {"junk": ArraySpec("<f4", ("n",))}
    assert read_npz(path, "thing", spec, MadeUpError, MIB)["junk"].shape == (MIB // 4,)
    monkeypatch.setattr(arrays, "ALLOWANCE_BYTES", MIB // 2)  # 4 x 1 KiB + 512 KiB < 1 MiB
    assert "would take" in refused(
        lambda: read_npz(path, "thing", spec, MadeUpError, MIB), MadeUpError
    )


@pytest.mark.parametrize("keep", [0.02, 0.5, 0.9, 0.999])
def test_a_truncated_network_file_is_one_line(tmp_path, keep):
    data = SHIPPED.read_bytes()
    path = tmp_path / "torn.npz"
    path.write_bytes(data[: int(len(data) * keep)])
    assert str(path) in refused(lambda: read_network(path, "hero"))


def test_a_header_claiming_terabytes_is_one_line(tmp_path):
    path = tmp_path / "huge.npz"
    header = npy_header("<f4", (7 << 40 >> 2,))  # 7 TiB of float32 ...
    data = header + bytes(128)  # ... in 128 bytes
    bias = ("bias.npy", 8, zlib.crc32(data), len(data), deflated(data))
    path.write_bytes(raw_zip([m for m in members_of(SHIPPED) if m[0] != "bias.npy"] + [bias]))
    assert "its header says 7,696,581,394,560 bytes" in refused(lambda: read_network(path, "hero"))
    three_gib = npy_header("<f4", (3 * GIB // 4,))  # a header and a zip agreeing on 3 GiB
    lying = ("bias.npy", 8, zlib.crc32(three_gib), len(three_gib) + 3 * GIB, deflated(three_gib))
    path.write_bytes(raw_zip([m for m in members_of(SHIPPED) if m[0] != "bias.npy"] + [lying]))
    assert "is compressed to" in refused(lambda: read_network(path, "hero"))


def test_a_header_numpy_cannot_parse_is_one_line(tmp_path):
    # found by the network_file fuzz target: NumPy's parser raised tokenize.TokenError
    text = b"{'descr': '<f4', 'fortran_order': False, 'shape': (32,\n"
    data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text
    bias = ("bias.npy", 8, zlib.crc32(data), len(data), deflated(data))
    path = tmp_path / "unparsed.npz"
    path.write_bytes(raw_zip([m for m in members_of(SHIPPED) if m[0] != "bias.npy"] + [bias]))
    assert "'bias' has no readable .npy header" in refused(lambda: read_network(path, "hero"))


def saved(path, **named) -> None:
    with zipfile.ZipFile(SHIPPED) as archive:
        kept = {
            n.removesuffix(".npy"): np.load(io.BytesIO(archive.read(n))) for n in archive.namelist()
        }
    np.savez(path, **{**kept, **named})


@pytest.mark.parametrize(
    "named, says",
    [
        ({"extra": np.zeros(3, dtype=np.float32)}, "an unknown array 'extra.npy'"),
        ({"bias": np.zeros(32)}, "'bias' must hold <f4, not <f8"),
        ({"bias": np.zeros(32, dtype=">f4")}, "'bias' must hold <f4, not >f4"),
        ({"bias": np.zeros(31, dtype=np.float32)}, "'bias' must be an array of shape (32,), not"),
        (
            {"bias": np.zeros((32, 1), dtype=np.float32)},
            "'bias' must be an array of shape (hidden,)",
        ),
        ({"meta": np.asarray(b"{}")}, "'meta' must hold <U, not |S2"),
        ({"bias": np.array([None] * 32, dtype=object)}, "'bias' must hold <f4, not |O"),
    ],
)
def test_an_unknown_or_mistyped_array_is_refused(tmp_path, named, says):
    path = tmp_path / "spoilt.npz"
    saved(path, **named)
    message = refused(lambda: read_network(path, "hero"))
    assert says in message and str(path) in message


def test_a_file_missing_an_array_or_holding_one_twice_is_refused(tmp_path):
    members = members_of(SHIPPED)
    path = tmp_path / "short.npz"
    path.write_bytes(raw_zip([m for m in members if m[0] != "policy.npy"]))
    assert "it has no 'policy' array" in refused(lambda: read_network(path, "hero"))
    path.write_bytes(raw_zip(members + members[-1:]))
    assert "is in it twice" in refused(lambda: read_network(path, "hero"))


def test_a_bad_crc_or_a_lying_size_is_one_line(tmp_path):
    members = members_of(SHIPPED)
    path = tmp_path / "crc.npz"
    name, method, crc, size, payload = members[1]
    path.write_bytes(raw_zip([members[0], (name, method, crc ^ 1, size, payload), *members[2:]]))
    assert "Bad CRC-32" in refused(lambda: read_network(path, "hero"))
    path.write_bytes(raw_zip([members[0], (name, method, crc, size + 4, payload), *members[2:]]))
    assert "its header says" in refused(lambda: read_network(path, "hero"))


def test_the_shipped_network_reads_as_numpy_reads_it():
    network = read_network(SHIPPED, "hero")
    with np.load(SHIPPED) as data:
        for key, array in network.arrays.items():
            assert np.array_equal(array, data[key].astype(np.float64)), key


def test_the_cli_says_one_line_for_a_hostile_weights_file(gib_file):
    bot = f"ismcts:iterations=5,eval=net,weights={gib_file}"
    code = (
        "import re, sys; from xenophon.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        # the peak of this process's own memory (ru_maxrss would keep pytest's across exec)
        "peak = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print(peak, code, file=sys.stderr)"
    )
    args = ["match", "--game", "hero", "--games", "1", "--processes", "1", bot, "random"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and "unknown array 'junk.npy'" in lines[0], done.stderr
    peak_kib, exit_code = lines[1].split()
    # 51 MiB here; 1,079 MiB before the reader checked the arrays
    assert exit_code not in ("0", "None") and int(peak_kib) < 150 * 1024


# -- shards --------------------------------------------------------------------------
def a_shard(leaves: int = 2) -> dict[str, np.ndarray]:
    n, moves, n_in = 3, 5, 4
    shard = {
        "own": np.zeros((n, n_in), np.uint8),
        "enemy": np.zeros((n, n_in), np.uint8),
        "features": np.zeros((n, 2), np.float32),
        "turn": np.zeros(n, np.int16),
        "player": np.zeros(n, np.int8),
        "decision": np.arange(n, dtype=np.int32),
        "root_value": np.zeros(n, np.float32),
        "deep_value": np.full(n, np.nan, np.float32),
        "result": np.ones(n, np.float32),
        "move_start": np.array([0, 2, 4, 5], np.int32),
        "move_code": np.arange(moves, dtype=np.int32),
        "move_visits": np.ones(moves, np.int32),
    }
    if leaves:
        shard.update(
            leaf_own=np.zeros((leaves, n_in), np.uint8),
            leaf_enemy=np.zeros((leaves, n_in), np.uint8),
            leaf_features=np.zeros((leaves, 2), np.float32),
            leaf_turn=np.zeros(leaves, np.int16),
            leaf_row=np.zeros(leaves, np.int32),
            leaf_value=np.zeros(leaves, np.float32),
            leaf_visits=np.zeros(leaves, np.int32),
        )
    return shard


@pytest.mark.parametrize("leaves", [0, 2])
def test_a_shard_reads_back_as_written(tmp_path, leaves):
    path = tmp_path / "shard-1.npz"
    write_shard(path, a_shard(leaves))
    back = read_shard(path)
    for key, array in a_shard(leaves).items():
        assert np.array_equal(back[key], array, equal_nan=True) and back[key].dtype == array.dtype


@pytest.mark.parametrize(
    "spoil, says",
    [
        (lambda s: s.update(junk=np.zeros(3)), "an unknown array 'junk.npy'"),
        (lambda s: s.update(own=s["own"].astype(np.int64)), "'own' must hold |u1, not <i8"),
        (lambda s: s.update(leaf_own=s["leaf_own"][:, :3]), "'leaf_own' must be an array of shape"),
        (lambda s: s.pop("leaf_value"), "all of the leaves' arrays or none"),
        (lambda s: s.update(move_start=s["move_start"][:2]), "one more row than the positions"),
    ],
)
def test_a_spoilt_shard_is_one_line(tmp_path, spoil, says):
    shard = a_shard()
    spoil(shard)
    path = tmp_path / "shard-1.npz"
    write_shard(path, shard)
    message = refused(lambda: read_shard(path), LogError)
    assert says in message and str(path) in message


def test_a_truncated_or_huge_shard_is_one_line(tmp_path):
    path = tmp_path / "shard-1.npz"
    write_shard(path, a_shard())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert str(path) in refused(lambda: read_shard(path), LogError)
    path.write_bytes(raw_zip([zeros_member("turn.npy", "<i2", (128 * MIB // 2,))]))
    assert "would take" in refused(lambda: read_shard(path), LogError)
