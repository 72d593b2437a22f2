"""The test suite's own machinery (tests/conftest.py): the line that says why
the browser tests skipped, the slow list, and the fast tier's reach (every
module of the package is imported by a fast test)."""

import importlib
import pkgutil
from pathlib import Path
from types import SimpleNamespace

from conftest import browser_skip_line, is_slow, read_slow_tests

ROOT = Path(__file__).resolve().parents[1]


def skipped(nodeid, reason):
    return SimpleNamespace(nodeid=nodeid, longrepr=("file.py", 1, f"Skipped: {reason}"))


def test_skipped_browser_tests_give_one_line_with_their_reason():
    reports = [
        skipped("tests/test_web_browser.py::test_a", "no Chromium on this machine"),
        skipped("tests/test_web_browser.py::test_b[hero]", "no Chromium on this machine"),
        skipped("tests/test_other.py::test_c", "needs the train extra"),
    ]
    line = browser_skip_line(reports)
    assert line.startswith("2 browser tests skipped: no Chromium on this machine;")
    assert "README" in line and "\n" not in line


def test_no_line_when_no_browser_test_skipped():
    assert browser_skip_line([skipped("tests/test_other.py::test_c", "why")]) is None
    assert browser_skip_line([]) is None


def source_modules():
    """The module name of every Python and Cython source of src/ and cli/."""
    names = set()
    for top, package in (("src", "xenophon"), ("cli", "xenophon.cli")):
        for path in (ROOT / top).rglob("*"):
            if path.suffix not in (".py", ".pyx"):
                continue
            parts = path.relative_to(ROOT / top).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.add(".".join((package, *parts)))
    return names


def test_every_module_of_the_package_imports():
    """The fast tier touches every module: each is imported here, so a module
    that no fast test reaches still fails on a broken import."""
    import xenophon

    found = {info.name for info in pkgutil.walk_packages(xenophon.__path__, "xenophon.")}
    found.add("xenophon")
    assert source_modules() <= found, "sources the installed package lacks"
    failed = []
    for name in sorted(found):
        try:
            importlib.import_module(name)
        except Exception as error:
            failed.append(f"{name}: {error!r}")
    assert failed == []


def test_the_slow_list_names_tests_that_exist():
    """Each entry of tests/slow_tests.txt names a test file, and a test
    function defined in it: a renamed test cannot leave the list silently."""
    stale = []
    for entry in sorted(read_slow_tests()):
        file, _, test = entry.partition("::")
        path = ROOT / file
        function = test.split("[", 1)[0].split("::")[-1]
        if not path.is_file() or (function and f"def {function}(" not in path.read_text()):
            stale.append(entry)
    assert stale == []


def test_slow_entries_match_a_test_its_function_or_its_file():
    slow = {"tests/a.py::test_x[1]", "tests/b.py::test_y", "tests/c.py"}
    assert is_slow("tests/a.py::test_x[1]", slow)
    assert not is_slow("tests/a.py::test_x[2]", slow)
    assert is_slow("tests/b.py::test_y[anabasis]", slow) and is_slow("tests/b.py::test_y", slow)
    assert not is_slow("tests/b.py::test_y_more", slow)
    assert is_slow("tests/c.py::test_z[hero]", slow)
    assert not is_slow("tests/cc.py::test_z", slow)
