"""Chance for games played live: outcomes fixed in advance, from a secret.

A physical game fixes its chance before play: the deck is shuffled, and the
tenth card drawn is the tenth card whatever the players do in between. A
`ChanceStream` does the same. Each kind of chance event (a draw, a strike, a
market reveal, ...) has its own sequence of uniform numbers, derived with
HMAC-SHA256 from the stream's key and the event's place in that sequence; the
outcome is the one whose cumulative probability covers the number. Taking a
move back and playing it again therefore meets the same outcomes, and playing
another move cannot spend a known strike on a market reveal.

The key is secret (drawn from the operating system) unless the player asks
for a seeded game; it is never written in plain text (docs/records.md).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import Counter
from collections.abc import Iterable

from xenophon.kernel.codes import kind_of
from xenophon.kernel.game import Move, State

KEY_BYTES = 32


def event_kind(state: State) -> int:
    """The kind of the chance event at `state` (the action kind of its outcome
    codes: they share one)."""
    return kind_of(state.legal_actions()[0])


class ChanceStream:
    """The chance outcomes of one game, one sequence per kind of event."""

    def __init__(self, key: bytes):
        if len(key) != KEY_BYTES:
            raise ValueError(f"a chance key has {KEY_BYTES} bytes")
        self.key = key
        self.used: Counter[int] = Counter()  # events drawn so far, per kind

    @classmethod
    def secret(cls) -> ChanceStream:
        """A stream nobody can predict: its key comes from the operating system."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_seed(cls, seed: int) -> ChanceStream:
        """A reproducible stream, for games whose seed the player chose."""
        return cls(hashlib.sha256(b"xenophon chance seed %d" % seed).digest())

    def uniform(self, kind: int, index: int) -> float:
        """The `index`-th number of the sequence of `kind`, in [0, 1)."""
        message = b"%d:%d" % (kind, index)
        digest = hmac.new(self.key, message, hashlib.sha256).digest()
        return (int.from_bytes(digest[:8], "big") >> 11) / float(1 << 53)

    def seed_for(self, label: str, index: int) -> int:
        """A 63-bit seed for other randomness of the game (the AI's search at
        its `index`-th decision), as fixed as the chance is."""
        digest = hmac.new(self.key, f"{label}:{index}".encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def draw(self, state: State) -> Move:
        """The outcome of the chance event at `state` (not applied); counts it."""
        kind = event_kind(state)
        u = self.uniform(kind, self.used[kind])
        self.used[kind] += 1
        outcomes = state.chance_outcomes()
        total = sum(p for _, p in outcomes)
        running = 0.0
        for move, probability in outcomes:
            running += probability / total
            if u < running:
                return move
        return outcomes[-1][0]  # rounding left u above the last sum

    def rewind(self, kinds: Iterable[int]) -> None:
        """Sets the counts to those of a game whose chance events so far were
        of `kinds` (after an undo or a resume)."""
        self.used = Counter(kinds)
