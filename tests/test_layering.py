"""The floors of the installed package import one way: the layers contract
of pyproject.toml's [tool.importlinter] (kernel, then the games, search,
interop, play, lab, protocol and web, and cli on top), checked by
import-linter on the package that Python imports as `xenophon`."""

from pathlib import Path

from importlinter import cli

CONFIG = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_floors_import_downwards_only(capsys):
    status = cli.lint_imports(config_filename=str(CONFIG), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report
