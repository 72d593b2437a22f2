"""The child process of a `python:MODULE:CLASS` player: loads the class and
speaks the player protocol (docs/players.md) for it on its standard input
and output, so that the class's errors, hangs and crashes are those of a
program, handled alike (`xenophon.play.external`).

    python -m xenophon.play.python_player MODULE CLASS
    python -m xenophon.play.python_player --check MODULE CLASS

(`--check` loads the class, writes one JSON line, ``{"ok": true}`` or
``{"error": "what is wrong"}``, and exits: the referee checks a spec so,
never importing the module itself.)

The class is made without arguments and has
``choose(view, legal_moves) -> str`` (a dict and a list of move texts; the
answer one of them) and, if it wants them, ``new_game(game, seat, options,
seed)`` and ``game_over(view, returns, forfeit)``. A class with an attribute
``tensor = "information_state"`` (or ``"observation"``) is asked
``choose(view, legal_moves, tensor, legal_codes)`` instead: the seat's tensor
(a list of floats) and the legal moves' action codes. A class with
``protocol = 1`` is spoken to in protocol 1 (the engine's notation, pieces
named by where they stand) instead of the current one (pieces named by the
names that stay with them, where a game gives such names). MODULE is a
module name (imported with the current folder first on the path) or a
``.py`` file.
An exception in the class ends this process: the game is lost with its
last line quoted.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from typing import Any

#: the protocol version: the one the start message names
#: (xenophon.play.external imports it from here, since the child that runs
#: this module loads it alone) and the one answered for a class that names none
PROTOCOL = 2


def load_class(module: str, name: str) -> type:
    """The class `name` of a module (by name, or a `.py` file's path);
    ValueError or the import's own error saying what is missing."""
    loaded = _load_file(module) if module.endswith(".py") else _import(module)
    found = getattr(loaded, name, None)
    if not isinstance(found, type):
        raise ValueError(f"module '{module}' has no class '{name}'")
    if not callable(getattr(found, "choose", None)):
        raise ValueError(f"class '{name}' of '{module}' has no method choose(view, legal_moves)")
    return found


def _import(module: str) -> Any:
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and module.startswith(error.name):
            raise ValueError(f"no module named '{module}'") from None
        raise


def _load_file(path: str) -> Any:
    if not os.path.isfile(path):
        raise ValueError(f"no such file '{path}'")
    name = "xenophon_player_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load '{path}' as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def answer(player: Any, message: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to one message of the engine (None for the game's end)."""
    kind = message.get("type")
    if kind == "start":
        _hook(
            player,
            "new_game",
            message["game"],
            message["seat"],
            message["options"],
            message["seed"],
        )
        protocol = getattr(player, "protocol", PROTOCOL)
        ready = {"type": "ready", "protocol": protocol, "name": type(player).__name__}
        tensor = getattr(player, "tensor", None)
        return ready if tensor is None else {**ready, "tensor": tensor}
    if kind == "move":
        if "tensor" in message:
            return {
                "move": player.choose(
                    message["view"],
                    message["legal_moves"],
                    message["tensor"],
                    message["legal_codes"],
                )
            }
        return {"move": player.choose(message["view"], message["legal_moves"])}
    _hook(player, "game_over", message.get("view"), message.get("returns"), message.get("forfeit"))
    return None


def _hook(player: Any, name: str, *args: Any) -> None:
    hook = getattr(player, name, None)
    if hook is not None:
        hook(*args)


def check(module: str, name: str, out: Any) -> int:
    """Loads the class and writes whether it loaded to `out`, one JSON line."""
    try:
        load_class(module, name)
        result: dict[str, Any] = {"ok": True}
    except BaseException as error:  # the user's module may raise anything as it loads
        result = {"error": str(error) or type(error).__name__}
    out.write(json.dumps(result) + "\n")
    out.flush()
    return 0


def _protocol_output() -> Any:
    """The protocol's output: the standard output as it was, while the
    descriptor 1 itself and sys.stdout become the standard error, so that
    nothing the module or the class writes, by print or os.write(1, ...),
    is taken for an answer."""
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answers


def main(argv: list[str]) -> int:
    checking = argv[:1] == ["--check"]
    if len(argv) != 2 + checking:
        print(
            "usage: python -m xenophon.play.python_player [--check] MODULE CLASS", file=sys.stderr
        )
        return 2
    protocol_out = _protocol_output()
    if checking:
        return check(argv[1], argv[2], protocol_out)
    player = load_class(*argv)()
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(player, json.loads(line))
        if reply is None:
            return 0
        protocol_out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        protocol_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
