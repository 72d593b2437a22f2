"""Sealing the hidden part of a game in progress (docs/records.md, "Saved
games in progress").

A saved game must hold what the player did not see (the AI's cards, the
chance key) so that it can be resumed, but a player who opens the file must
not read it by accident. The hidden part is compressed, padded to a size
class, and encrypted and authenticated with AES-256-GCM (the `cryptography`
package) under a key kept in the user's data folder (`seal.key`, readable by
the user only). What the file shows in plain text (its header and visible
lines) is the cipher's associated data: neither the seal nor the visible part
can be edited, swapped for another save's or moved to another file without
the open failing.

What it gives: the file shows nothing hidden, and its length tells nothing
the visible part does not (up to the size class); a copy sent to someone
else cannot be opened without the key file; a changed file is refused. What
it does not give: protection from the player at their own machine, who can
read the key file (the AI plays on that machine anyway).

Each key has a public id (derived from it), which a seal carries; the ids
of every key the data folder has had are listed in `seal.keys`, so that a
save that does not open here says why: its key was deleted here, or
replaced here by a newer one, or it was sealed on another machine.

Formats: `xs2:` + base64(key id, nonce, ciphertext and tag); the older
`xs1:` seals (a SHA-256 key stream and an HMAC, over the hidden part only)
are still opened, so earlier saves resume.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import stat
import time
import zlib
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import FileError, read_bytes, read_text, user_data_folder

KEY_FILE = "seal.key"
#: the ids of the keys this data folder has had, one a line: "ID DATE"
KEY_HISTORY = "seal.keys"
MAX_HISTORY_BYTES = 64 * 1024
KEY_BYTES = 32
KEY_ID_BYTES = 8
NONCE_BYTES = 12  # AES-GCM's standard nonce
PREFIX = "xs2:"  # the seal format's version
MAX_SEALED_BYTES = 64 * 1024 * 1024
#: the padded plaintext is a power of two of at least this many bytes
LEAST_SIZE_CLASS = 1024
LENGTH_BYTES = 4  # the compressed length, before the padding
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


class SealError(XenophonError):
    """A seal that cannot be opened here, or a key that cannot be used."""


def key_path() -> Path:
    return user_data_folder() / KEY_FILE


# -- the key file -------------------------------------------------------------


def _check_key_file(path: Path) -> None:
    """Refuses a key that is not a private regular file of the user's: a
    symbolic link (another file could be read or written through it) or one
    that others may read."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise SealError(
            f"{path}: the seal key is a symbolic link; refused (make it a file "
            "of your own, readable by you only)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise SealError(f"{path}: the seal key is not a file")
    if info.st_mode & 0o077:
        raise SealError(f"{path}: the seal key can be read by others; refused (chmod 600 {path})")


def _read_key(path: Path) -> bytes:
    _check_key_file(path)
    key = read_bytes(path, "key file", max_bytes=KEY_BYTES)
    if len(key) != KEY_BYTES:
        raise SealError(
            f"{path}: not a xenophon key file (wrong length; move it away and "
            "a new key is made, but earlier saves then stay sealed)"
        )
    return key


def _private_folder(folder: Path) -> None:
    """The key's folder, made readable by the user only (0700)."""
    folder.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    if stat.S_IMODE(folder.stat().st_mode) & 0o077:
        folder.chmod(PRIVATE_FOLDER)


def _create_key(path: Path) -> bytes:
    """A new key, written whole or not at all: a private temporary file,
    synced, then linked to the key's name (a link fails if the name exists,
    so two processes starting at once end with one key, and a crash leaves
    no partial key file)."""
    key = secrets.token_bytes(KEY_BYTES)
    _private_folder(path.parent)
    temporary = path.with_name(f".{KEY_FILE}.{secrets.token_hex(8)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    _sync_folder(path.parent)
    return key


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder
    finally:
        os.close(descriptor)


def _load_key(create: bool) -> bytes:
    path = key_path()
    try:
        if os.path.lexists(path):
            key = _read_key(path)
        elif not create:
            raise SealError(f"the seal key {path} is not on this machine")
        else:
            try:
                key = _create_key(path)
            except FileExistsError:  # another xenophon made it meanwhile
                key = _read_key(path)
    except OSError as error:
        raise FileError(f"{path}: cannot use the seal key ({error.strerror})") from None
    _remember(key)
    return key


# -- the keys this data folder has had ----------------------------------------


def history_path() -> Path:
    return user_data_folder() / KEY_HISTORY


def key_history() -> dict[str, str]:
    """The id (hex) of each key this data folder has had, with the date it
    was first used here; empty when there is no history or it cannot be
    read (lines that are not "ID DATE" are skipped)."""
    try:
        text = read_text(history_path(), "key history", max_bytes=MAX_HISTORY_BYTES)
    except FileError:
        return {}
    history: dict[str, str] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and len(words[0]) == 2 * KEY_ID_BYTES:
            try:
                bytes.fromhex(words[0])
            except ValueError:
                continue
            history.setdefault(words[0], words[1])
    return history


def _remember(key: bytes) -> None:
    """Adds the key's id to the history when it is not there yet (a key made
    now, or one made before the history was kept). Best effort: a history
    that cannot be written only makes a later message less precise, and no
    save should fail for it. Never written through a symbolic link."""
    name = key_id(key).hex()
    if name in key_history():
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(history_path(), flags, PRIVATE_FILE)
        with os.fdopen(descriptor, "a", encoding="ascii") as handle:
            handle.write(f"{name} {time.strftime('%Y-%m-%d')}\n")
    except OSError:
        pass


def _no_key_message(sealed_by: str) -> str:
    """Why a seal of key `sealed_by` cannot be opened where there is no key."""
    path, known = key_path(), key_history()
    if sealed_by in known:
        return (
            f"sealed with this machine's key {sealed_by} (known here since "
            f"{known[sealed_by]}), but {path} has been deleted: the game cannot "
            "be opened without that file (put it back from a backup to resume it)"
        )
    return (
        f"the seal key {path} is not on this machine: this game was sealed with "
        f"key {sealed_by}, elsewhere (or here, before the data folder was cleared)"
    )


def _other_key_message(sealed_by: str, current: str) -> str:
    """Why a seal of key `sealed_by` cannot be opened under key `current`."""
    path, known = key_path(), key_history()
    if sealed_by in known:
        return (
            f"sealed with this machine's earlier key (key {sealed_by}, known here "
            f"since {known[sealed_by]}); {path} was replaced since by key {current}, "
            "so the game cannot be opened: put the earlier key file back to resume it"
        )
    return (
        f"sealed with another key (key {sealed_by}; this machine's {KEY_FILE} is "
        f"key {current}, and {history_path()} has no record of that key: sealed on "
        "another machine, or here before the data folder was cleared)"
    )


def _derived(key: bytes, purpose: bytes, length: int) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=length, salt=None, info=b"xenophon seal v2 " + purpose
    ).derive(key)


def key_id(key: bytes) -> bytes:
    """A short public name of a key: which key sealed a save, without
    revealing the key."""
    return _derived(key, b"key id", KEY_ID_BYTES)


# -- sealing ------------------------------------------------------------------


def _padded(plain: bytes) -> bytes:
    """The length, the bytes, then zeros up to the size class: a power of two
    of at least LEAST_SIZE_CLASS bytes."""
    size = LEAST_SIZE_CLASS
    while size < LENGTH_BYTES + len(plain):
        size *= 2
    return (len(plain).to_bytes(LENGTH_BYTES, "big") + plain).ljust(size, b"\0")


def _unpadded(padded: bytes) -> bytes:
    length = int.from_bytes(padded[:LENGTH_BYTES], "big")
    if len(padded) < LENGTH_BYTES + length:
        raise SealError("the sealed part is damaged (bad length)")
    return padded[LENGTH_BYTES : LENGTH_BYTES + length]


def seal(payload: bytes, associated: bytes) -> str:
    """The payload compressed, padded, encrypted and authenticated together
    with `associated` (what the file shows in plain text), as ASCII text."""
    key = _load_key(create=True)
    nonce = secrets.token_bytes(NONCE_BYTES)
    plain = _padded(zlib.compress(payload, 9))
    cipher = AESGCM(_derived(key, b"encryption", KEY_BYTES)).encrypt(nonce, plain, associated)
    return PREFIX + base64.b64encode(key_id(key) + nonce + cipher).decode("ascii")


def unseal(text: str, associated: bytes) -> bytes:
    """The payload of `seal`; SealError when it is not a seal, when it or the
    associated data was changed, or when it was made with another key."""
    if isinstance(text, str) and text.startswith(LEGACY_PREFIX):
        return _unseal_legacy(text)
    if not isinstance(text, str) or not text.startswith(PREFIX):
        raise SealError("not a sealed game (unknown seal format)")
    raw = _decoded(text[len(PREFIX) :])
    if len(raw) < KEY_ID_BYTES + NONCE_BYTES + 16:
        raise SealError("the sealed part is damaged (too short)")
    sealed_by, nonce, cipher = (
        raw[:KEY_ID_BYTES],
        raw[KEY_ID_BYTES : KEY_ID_BYTES + NONCE_BYTES],
        raw[KEY_ID_BYTES + NONCE_BYTES :],
    )
    if not os.path.lexists(key_path()):
        raise SealError(_no_key_message(sealed_by.hex()))
    key = _load_key(create=False)
    if sealed_by != key_id(key):
        raise SealError(_other_key_message(sealed_by.hex(), key_id(key).hex()))
    try:
        plain = AESGCM(_derived(key, b"encryption", KEY_BYTES)).decrypt(nonce, cipher, associated)
    except InvalidTag:
        raise SealError(
            "the sealed part was changed, or the header and visible lines it "
            "seals with, or it was copied from another saved game"
        ) from None
    return _decompressed(_unpadded(plain))


def _decoded(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise SealError("the sealed part is damaged (not base64)") from None


def _decompressed(plain: bytes) -> bytes:
    try:
        decompressor = zlib.decompressobj()
        payload = decompressor.decompress(plain, MAX_SEALED_BYTES)
    except zlib.error:
        raise SealError("the sealed part is damaged (does not decompress)") from None
    if decompressor.unconsumed_tail:
        raise SealError("the sealed part is too large")
    return payload


# -- the first format, read only ----------------------------------------------
# xs1 seals (xenophon before the xs2 format) are opened so that earlier saves
# resume; nothing is sealed this way any more. They bind the hidden part only.

LEGACY_PREFIX = "xs1:"
LEGACY_NONCE_BYTES = 16
LEGACY_TAG_BYTES = 32


def _legacy_key_stream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (
        hashlib.sha256(key + nonce + counter.to_bytes(8, "big")).digest()
        for counter in range((length + 31) // 32)
    )
    return b"".join(blocks)[:length]


def _unseal_legacy(text: str) -> bytes:
    raw = _decoded(text[len(LEGACY_PREFIX) :])
    if len(raw) < LEGACY_NONCE_BYTES + LEGACY_TAG_BYTES:
        raise SealError("the sealed part is damaged (too short)")
    nonce, cipher, tag = (
        raw[:LEGACY_NONCE_BYTES],
        raw[LEGACY_NONCE_BYTES:-LEGACY_TAG_BYTES],
        raw[-LEGACY_TAG_BYTES:],
    )
    key = _load_key(create=False)
    encrypt_key = hmac.new(key, b"encrypt", hashlib.sha256).digest()
    mac_key = hmac.new(key, b"authenticate", hashlib.sha256).digest()
    if not hmac.compare_digest(tag, hmac.new(mac_key, nonce + cipher, hashlib.sha256).digest()):
        raise SealError(
            f"the sealed part was changed, or sealed on another machine (with another {KEY_FILE})"
        )
    stream = _legacy_key_stream(encrypt_key, nonce, len(cipher))
    plain = (int.from_bytes(cipher, "big") ^ int.from_bytes(stream, "big")).to_bytes(
        len(cipher), "big"
    )
    return _decompressed(plain)
