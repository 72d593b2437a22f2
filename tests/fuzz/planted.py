"""Targets with planted faults, for the driver's own tests: one that raises,
one that hangs, one that crashes its process, one that is merely slow."""

from __future__ import annotations

import os
import time


class PlantedFailure(Exception):
    pass


def fails(data: bytes) -> None:
    if b"boom" in data:
        raise PlantedFailure(f"planted failure on {data[:20]!r}")


def hangs(data: bytes) -> None:
    if data == b"hang":
        while True:
            pass


def crashes(data: bytes) -> None:
    if data == b"crash":
        os.abort()


def slow(data: bytes) -> None:
    time.sleep(0.01)


SEEDS = {
    "fails": lambda: [b"boom", b"fine"],
    "hangs": lambda: [b"hang", b"fine"],
    "crashes": lambda: [b"fine", b"crash"],
    "slow": lambda: [b"fine"],
}
