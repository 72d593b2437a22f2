"""The floors of the installed package import one way: the layers contract
of pyproject.toml's [tool.importlinter] (kernel, then the games, search,
interop, play, lab, protocol and web, and cli on top), checked by
import-linter on the package that Python imports as `xenophon`.

The contract names the games' floor `GAMES`: this test fills in the packages
of the games the registry holds (each plugin's factory's package), so a new
game is checked without another line in pyproject.toml.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

from xenophon.kernel.plugin import plugins

CONFIG = Path(__file__).resolve().parents[1] / "pyproject.toml"
GAMES_LAYER = "GAMES"


def game_packages() -> list[str]:
    """The package of each registered game, relative to xenophon ("GAME")."""
    return sorted({plugin.factory.__module__.split(".")[1] for plugin in plugins()})


def ini_with_games(config: dict) -> str:
    """pyproject's import-linter section as an .ini file (import-linter's
    other format), with the GAMES layer filled in."""
    section = config["tool"]["importlinter"]
    lines = ["[importlinter]", f"root_package = {section['root_package']}"]
    for number, contract in enumerate(section["contracts"], 1):
        lines.append(f"[importlinter:contract:{number}]")
        for key, value in contract.items():
            if key == "layers":
                value = [" | ".join(game_packages()) if v == GAMES_LAYER else v for v in value]
            if isinstance(value, list):
                lines.append(f"{key} =" + "".join(f"\n    {item}" for item in value))
            else:
                lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n"


def test_the_games_layer_holds_every_registered_game():
    section = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert any(GAMES_LAYER in contract.get("layers", []) for contract in section["contracts"])
    assert len(game_packages()) == len(plugins()) >= 2


def test_the_floors_import_downwards_only(tmp_path):
    config = tmp_path / "importlinter.ini"
    config.write_text(ini_with_games(tomllib.loads(CONFIG.read_text(encoding="utf-8"))))
    # In its own process: import-linter's console keeps the output streams it
    # found, and within a long test run those can be ones pytest has closed.
    check = (
        "import sys; from importlinter import cli; "
        f"sys.exit(cli.lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
