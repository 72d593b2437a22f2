"""Every fuzz target by name: this folder's own, and those of
`core_targets.py` (the C core's state readers) when that file is present.

`TARGETS[name]` is ``fn(data: bytes) -> None``; `SEEDS[name]()` the list of
seed inputs (taken from real games, shipped card files and records).
`resolve("package.module:function")` also finds a target outside the
registry (the driver's own tests plant theirs that way).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from . import (
    card_targets,
    engine_targets,
    notation_targets,
    npz_targets,
    player_targets,
    record_targets,
    save_targets,
    web_targets,
)

Target = Callable[[bytes], None]
Seeds = Callable[[], list[bytes]]

_MODULES = [
    notation_targets,
    player_targets,
    record_targets,
    card_targets,
    engine_targets,
    save_targets,
    web_targets,
    npz_targets,
]
try:
    _MODULES.append(importlib.import_module(f"{__package__}.core_targets"))
except ModuleNotFoundError as error:  # written by another hand; not there yet
    if error.name != f"{__package__}.core_targets":
        raise

TARGETS: dict[str, Target] = {
    name: fn for module in _MODULES for name, fn in module.TARGETS.items()
}
SEEDS: dict[str, Seeds] = {
    name: module.SEEDS.get(name, lambda: [b""]) for module in _MODULES for name in module.TARGETS
}


def resolve(name: str) -> tuple[Target, Seeds]:
    """(target, seeds) of a registered name or of 'module:function'
    (seeds: the module's SEEDS[function], else one empty input)."""
    if name in TARGETS:
        return TARGETS[name], SEEDS[name]
    if ":" not in name:
        raise KeyError(
            f"unknown fuzz target '{name}' (one of {', '.join(TARGETS)}, or module:function)"
        )
    module_name, _, attribute = name.partition(":")
    module = importlib.import_module(module_name)
    seeds = getattr(module, "SEEDS", {}).get(attribute, lambda: [b""])
    return getattr(module, attribute), seeds
