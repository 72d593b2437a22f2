"""The rules of the tree about games: a game is its own folders plus one
registration line, so no module outside a game's folders names a game, and
the registry holds exactly the games pyproject.toml registers, each plugin
complete.

What counts as naming a game: its name anywhere in the text of a module, in
any case and inside any word (an identifier such as `HeroGame` or
`_anabasis_core`, a string, a comment, a docstring). One thing is allowed: the
path of a document (``docs/GAME-engine.md``), since a shared module may cite
each game's spec by its file.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.plugin import ENTRY_POINT_GROUP, GamePlugin, plugins
from xenophon.kernel.registry import GAMES, make_game

ROOT = Path(__file__).resolve().parents[1]
#: the shared code: every Python module of src/ and cli/, the kernel's C
#: headers, the bindings' and the OpenSpiel bridge's glue, the web page (its
#: HTML, script and sheet: each game's board is in the game's folder), and
#: the build
SHARED_PATTERNS = {
    "src": (
        "*.py",
        "*.pyx",
        "*.pxd",
        "*.pxi",
        "engine_c/*.h",
        "bindings/*.cpp",
        "bindings/*.hpp",
        "interop/*.cc",
        "interop/*.hpp",
        "web/static/*",
    ),
    "cli": ("*.py",),
}
SHARED_FILES = ("setup.py",)
DOC_PATH = re.compile(r"\bdocs/[\w./-]+\.md\b")


def game_folders(name: str) -> list[Path]:
    """A game's own folders: its package, its C core, its data."""
    return [ROOT / "src" / name, ROOT / "src" / "engine_c" / name, ROOT / "src" / "data" / name]


def is_games_own(path: Path) -> bool:
    """A file of a game's folders, or a game's own binding (src/bindings/GAME.cpp)."""
    for name in GAMES:
        if any(folder in path.parents for folder in game_folders(name)):
            return True
        if path == ROOT / "src" / "bindings" / f"{name}.cpp":
            return True
    return False


def shared_files() -> list[Path]:
    files = set()
    for top, patterns in SHARED_PATTERNS.items():
        for pattern in patterns:
            files.update((ROOT / top).rglob(pattern))
    files.update(ROOT / name for name in SHARED_FILES)
    return sorted(path for path in files if not is_games_own(path))


def game_mentions(text: str) -> list[str]:
    """The lines of `text` that name a game (outside a document's path)."""
    names = re.compile("|".join(map(re.escape, GAMES)), re.IGNORECASE)
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if names.search(DOC_PATH.sub("", line))
    ]


def test_the_shared_code_is_found():
    files = shared_files()
    assert ROOT / "src" / "kernel" / "registry.py" in files
    assert ROOT / "cli" / "main.py" in files
    assert ROOT / "src" / "bindings" / "module.cpp" in files
    assert ROOT / "src" / "interop" / "xenophon_spiel.hpp" in files
    assert ROOT / "src" / "engine_c" / "codes.h" in files
    assert {"index.html", "app.js", "style.css"} <= {
        path.name for path in files if path.parent == ROOT / "src" / "web" / "static"
    }
    assert ROOT / "setup.py" in files
    assert not any(path.parent.name in GAMES for path in files)


def test_no_shared_module_names_a_game():
    offenders = {}
    for path in shared_files():
        mentions = game_mentions(path.read_text(encoding="utf-8"))
        if mentions:
            offenders[str(path.relative_to(ROOT))] = mentions
    assert offenders == {}, (
        "shared modules that name a game (ask xenophon.kernel.plugin):\n"
        + "\n".join(f"{path}:{line}" for path, lines in offenders.items() for line in lines)
    )


def test_a_game_named_in_a_shared_module_is_caught():
    assert game_mentions(f"x = {GAMES[0].upper()}_SLOT\n# see docs/{GAMES[0]}-engine.md\n") == [
        f"1: x = {GAMES[0].upper()}_SLOT"
    ]


def declared_games() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"][ENTRY_POINT_GROUP]


def test_the_registry_holds_exactly_the_declared_games():
    declared = declared_games()
    assert GAMES == tuple(sorted(declared))
    for name, target in declared.items():
        assert target == f"xenophon.{name}.plugin:PLUGIN"
        assert (ROOT / "src" / name / "plugin.py").is_file()


@pytest.mark.parametrize("plugin", plugins(), ids=lambda plugin: plugin.name)
def test_each_plugin_is_complete(plugin: GamePlugin):
    for field in dataclasses.fields(GamePlugin):
        value = getattr(plugin, field.name)
        assert value is not None or field.default is None, field.name
    assert plugin.title and plugin.spec_forms and "cards" in plugin.options
    assert set(plugin.option_checks) <= set(plugin.options)
    assert set(plugin.list_options) | set(plugin.option_from_text) <= set(plugin.options)
    assert {flag.option for flag in plugin.cli_flags} <= set(plugin.options)
    assert plugin.default_evaluation in plugin.cutoff_turns
    game = make_game(plugin.name, seed=1)
    assert isinstance(game, plugin.factory) and game.name == plugin.name
    state = game.new_initial_state()
    state.resolve_chance(game.rng)
    assert plugin.narrator(state, 0).seat == 0
    assert plugin.catalogue(game)["cards"]
    assert all(isinstance(plugin.anchors(move.text), list) for move in state.legal_moves())
    assert plugin.balance.default_sides()
    assert plugin.benchmark_spec({}).split(":")[0] == plugin.name
    oracle = make_game(plugin.name, seed=1, engine="oracle").new_initial_state()
    assert oracle.legal_actions() == game.new_initial_state().legal_actions()
    for module in [*plugin.engines.values(), plugin.reference_features]:
        assert module.startswith(f"xenophon.{plugin.name}.")
    # the page: controls of its own options, its board code in its data folder
    # (as installed), registering the board under the game's name
    assert {control.option for control in plugin.page_controls()} <= set(plugin.options)
    assert plugin.page_code().parent == packaged_data(plugin.name)
    board = (plugin.page_code() / "board.js").read_text(encoding="utf-8")
    assert f'registerBoard("{plugin.name}",' in board
    assert (plugin.page_code() / "board.css").is_file()


def test_the_code_layout_has_one_owner():
    from xenophon import _core
    from xenophon.kernel import codes

    header = (ROOT / "src" / "engine_c" / "codes.h").read_text(encoding="utf-8")
    shift = int(re.search(r"XEN_KIND_SHIFT = (\d+)", header).group(1))
    bits = int(re.search(r"XEN_FIELD_BITS = (\d+)", header).group(1))
    assert (
        (codes.KIND_SHIFT, codes.FIELD_BITS)
        == (_core.CODE_KIND_SHIFT, _core.CODE_FIELD_BITS)
        == (shift, bits)
    )
    for path in shared_files() + [p for name in GAMES for p in (ROOT / "src" / name).glob("*.py")]:
        if path.suffix == ".py" and path.name != "codes.py":
            assert not re.search(r"(>>|<<)\s*12\b", path.read_text(encoding="utf-8")), path
