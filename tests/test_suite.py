"""The test suite's own machinery (tests/conftest.py): the line that says why
the browser tests skipped."""

from types import SimpleNamespace

from conftest import browser_skip_line


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
