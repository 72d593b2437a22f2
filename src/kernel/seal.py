"""Sealing the hidden part of a game in progress (docs/records.md, "Saved
games in progress").

A saved game must hold what the player did not see (the AI's cards, the
chance key) so that it can be resumed, but a player who opens the file must
not read it by accident. The hidden part is compressed, encrypted with a key
kept in the user's data folder (`seal.key`, readable by the user only) and
authenticated, so an edited seal is refused rather than resumed.

What it gives: the file shows nothing hidden; a copy sent to someone else
cannot be opened without the key file; a changed seal is detected. What it
does not give: protection from the player at their own machine, who can read
the key file (the AI plays on that machine anyway).

The cipher is SHA-256 in counter mode as a key stream, with an
encrypt-then-MAC HMAC-SHA-256 tag over a random nonce and the ciphertext:
the standard library's primitives only.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import zlib
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import FileError, read_bytes, user_data_folder

KEY_FILE = "seal.key"
KEY_BYTES = 32
NONCE_BYTES = 16
TAG_BYTES = 32
PREFIX = "xs1:"                          # the seal format's version
MAX_SEALED_BYTES = 64 * 1024 * 1024


class SealError(XenophonError):
    """A seal that cannot be opened here."""


def key_path() -> Path:
    return user_data_folder() / KEY_FILE


def _load_key(create: bool) -> bytes:
    path = key_path()
    if path.exists():
        key = read_bytes(path, "key file", max_bytes=KEY_BYTES)
        if len(key) != KEY_BYTES:
            raise SealError(f"{path}: not a xenophon key file (wrong length)")
        return key
    if not create:
        raise SealError(f"the seal key {path} is not on this machine")
    key = secrets.token_bytes(KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key)
    except FileExistsError:                # another xenophon made it meanwhile
        return _load_key(create=False)
    except OSError as error:
        raise FileError(f"{path}: cannot make the seal key ({error.strerror})") from None
    return key


def _key_stream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = (hashlib.sha256(key + nonce + counter.to_bytes(8, "big")).digest()
              for counter in range((length + 31) // 32))
    return b"".join(blocks)[:length]


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def _subkeys(key: bytes) -> tuple[bytes, bytes]:
    """Separate keys for encryption and authentication."""
    return (hmac.new(key, b"encrypt", hashlib.sha256).digest(),
            hmac.new(key, b"authenticate", hashlib.sha256).digest())


def seal(payload: bytes) -> str:
    """The payload compressed, encrypted and authenticated, as ASCII text."""
    encrypt_key, mac_key = _subkeys(_load_key(create=True))
    nonce = secrets.token_bytes(NONCE_BYTES)
    plain = zlib.compress(payload, 9)
    cipher = _xor(plain, _key_stream(encrypt_key, nonce, len(plain)))
    tag = hmac.new(mac_key, nonce + cipher, hashlib.sha256).digest()
    return PREFIX + base64.b64encode(nonce + cipher + tag).decode("ascii")


def unseal(text: str) -> bytes:
    """The payload of `seal`; SealError when it is not a seal, was changed,
    or was made with another machine's key."""
    if not isinstance(text, str) or not text.startswith(PREFIX):
        raise SealError("not a sealed game (unknown seal format)")
    try:
        raw = base64.b64decode(text[len(PREFIX):], validate=True)
    except (binascii.Error, ValueError):
        raise SealError("the sealed part is damaged (not base64)") from None
    if len(raw) < NONCE_BYTES + TAG_BYTES:
        raise SealError("the sealed part is damaged (too short)")
    nonce, cipher, tag = raw[:NONCE_BYTES], raw[NONCE_BYTES:-TAG_BYTES], raw[-TAG_BYTES:]
    encrypt_key, mac_key = _subkeys(_load_key(create=False))
    if not hmac.compare_digest(tag, hmac.new(mac_key, nonce + cipher, hashlib.sha256).digest()):
        raise SealError("the sealed part was changed, or sealed on another machine "
                        f"(with another {KEY_FILE})")
    plain = _xor(cipher, _key_stream(encrypt_key, nonce, len(cipher)))
    try:
        decompressor = zlib.decompressobj()
        payload = decompressor.decompress(plain, MAX_SEALED_BYTES)
    except zlib.error:
        raise SealError("the sealed part is damaged (does not decompress)") from None
    if decompressor.unconsumed_tail:
        raise SealError("the sealed part is too large")
    return payload
