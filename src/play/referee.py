"""What the referee keeps from the players: the key their seeds come from.

Chance is drawn from a deal's seed, so a seed a player program is given must
say nothing of the deal, nor of any other seat's seed: a player that could
replay chance from it would know every hidden card (docs/players.md, "Trust
model"). Each seed a player is given is therefore an HMAC-SHA256 of the
seed the referee would have used, keyed by a secret that only the referee
holds: drawn from the operating system when the process starts, or read from
the environment variable `XENOPHON_REFEREE_KEY` (hex, at least 16 bytes) for
a referee that wants the players' seeds reproducible across runs. The
variable is never passed on to a player's process (`player_environment`).

Deals themselves are public where the user made them so (`--seed`, a deal
book); a match against a player program with neither draws its deals from
the operating system (`secret_deal_seed`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets

from xenophon.kernel.errors import XenophonError

#: the environment variable that fixes the referee's key (hex)
KEY_VARIABLE = "XENOPHON_REFEREE_KEY"
#: the fewest bytes a key given in KEY_VARIABLE has
MIN_KEY_BYTES = 16
#: the bits of a deal seed drawn from the operating system
SECRET_DEAL_BITS = 62


@functools.cache
def referee_key() -> bytes:
    """The key of this process: KEY_VARIABLE's, else a secret of its own."""
    text = os.environ.get(KEY_VARIABLE)
    if text is None:
        return secrets.token_bytes(32)
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) < MIN_KEY_BYTES:
        raise XenophonError(
            f"{KEY_VARIABLE} must be at least {MIN_KEY_BYTES} bytes written in hex "
            f"(e.g. from: python -c 'import secrets; print(secrets.token_hex(32))')"
        )
    return key


def player_seed(seed: int) -> int:
    """The 63-bit seed a player program is given in place of `seed` (the
    number a bot of the referee's would have been seeded with)."""
    message = b"xenophon player seed %d" % seed
    digest = hmac.new(referee_key(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def player_environment() -> dict[str, str]:
    """The environment a player's process starts with: the referee's, less its key."""
    return {name: value for name, value in os.environ.items() if name != KEY_VARIABLE}


def secret_deal_seed() -> int:
    """The first deal of a match whose deals nobody chose: from the operating system."""
    return secrets.randbits(SECRET_DEAL_BITS)
