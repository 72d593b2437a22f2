"""bench/INDEX.md is true: every data file under bench/ has exactly one row,
in the section of its own folder, every row names files that exist, and the
counts the index states (all files and their size, each section's files)
are the counts of the tree.

The grammar the index keeps, which these tests read:

- a section heading names its folder and its count of files:
  `## Top of bench/ (N files)` for the files directly in bench/, and
  `## bench/FOLDER/ (N files): what it holds` for everything under
  bench/FOLDER/ (its sub-folders included);
- a row's first cell is only backticked paths separated by commas; a path
  may hold `{a,b}` alternatives, and a path without a folder is in the
  folder of the path before it;
- one line `N files, S MB (...)` counts them all, S in 10^6 bytes.

The data files are those git keeps or would keep (tracked, or untracked and
not ignored) under bench/, except Python files, dotfiles and INDEX.md.
"""

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "bench" / "INDEX.md"
HEADING = re.compile(r"^## (?:Top of )?(bench/(?:[^/ ]+/)?) \((\d+) files?\)")
TOTAL = re.compile(r"^(\d[\d,]*) files, (\d+\.\d) MB \(")
ROW_FILES = re.compile(r"`[^`]+`(?:, `[^`]+`)*")


def expand(pattern):
    """`a.{json,jsonl}` -> a.json, a.jsonl (alternatives may nest or repeat)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [name for part in match.group(1).split(",") for name in expand(head + part + tail)]


def row_paths(cell):
    """The paths of a row's first cell, each relative to the project."""
    paths = []
    folder = None
    for token in re.findall(r"`([^`]+)`", cell):
        if "/" not in token and folder is not None:
            token = f"{folder}/{token}"
        folder = token.rsplit("/", 1)[0]
        paths.extend(expand(token))
    return paths


def read_index(text):
    """(sections: {folder: stated count}, rows: [(folder, cell, paths)],
    the stated total (files, MB), lines the grammar does not take)."""
    sections, rows, totals, faults = {}, [], [], []
    folder = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            heading = HEADING.match(line)
            if heading is None:
                faults.append(f"line {number}: a heading without its folder and count: {line}")
                folder = None
                continue
            folder = heading.group(1)
            sections[folder] = int(heading.group(2))
        elif (total := TOTAL.match(line)) is not None:
            totals.append((int(total.group(1).replace(",", "")), total.group(2)))
        elif line.startswith("| `"):
            cell = line[2:].split(" | ", 1)[0]
            if folder is None:
                faults.append(f"line {number}: a row outside a folder's section")
            elif not ROW_FILES.fullmatch(cell):
                faults.append(f"line {number}: the first cell is not only backticked paths: {cell}")
            else:
                rows.append((folder, number, row_paths(cell)))
    return sections, rows, totals, faults


def data_files():
    """The data files under bench/, relative to the project."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "bench"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    names = {name for name in listed.split("\0") if name}
    return {
        name
        for name in names
        if (ROOT / name).is_file()
        and not name.endswith((".py", ".pyc"))
        and not Path(name).name.startswith(".")
        and name != "bench/INDEX.md"
    }


def folder_of(path):
    """The section a file belongs to: bench/ or bench/FOLDER/."""
    parts = path.split("/")
    return "bench/" if len(parts) == 2 else f"bench/{parts[1]}/"


@pytest.fixture(scope="module")
def index():
    if not (ROOT / ".git").exists():
        pytest.skip("the data files are those git keeps: this needs a git checkout")
    return read_index(INDEX.read_text(encoding="utf-8"))


def test_the_index_keeps_its_grammar(index):
    _, rows, totals, faults = index
    assert faults == []
    assert rows, "no rows read"
    assert len(totals) == 1, "one line gives the count of all files"


def test_every_data_file_has_exactly_one_row_under_its_own_folder(index):
    _, rows, _, _ = index
    files = data_files()
    named = Counter(path for _, _, paths in rows for path in paths)
    missing = sorted(files - set(named))
    twice = sorted(path for path, count in named.items() if count > 1)
    absent = sorted(set(named) - files)
    misfiled = sorted(
        f"line {number}: {path} (under {folder})"
        for folder, number, paths in rows
        for path in paths
        if folder_of(path) != folder
    )
    assert missing == [], "files without a row"
    assert twice == [], "files with more than one row"
    assert absent == [], "rows naming what is not a data file of bench/"
    assert misfiled == [], "rows under another folder's section"


def test_the_counts_of_the_index_are_true(index):
    sections, _, totals, _ = index
    files = data_files()
    size = sum((ROOT / name).stat().st_size for name in files)
    assert totals == [(len(files), f"{size / 1e6:.1f}")]
    per_folder = Counter(folder_of(name) for name in files)
    assert sections == dict(per_folder)


@pytest.mark.parametrize(
    "cell, paths",
    [
        ("`bench/a.json`", ["bench/a.json"]),
        ("`bench/x/a.{json,jsonl}`", ["bench/x/a.json", "bench/x/a.jsonl"]),
        (
            "`bench/x/{a,b}-{1,2}.txt`",
            ["bench/x/a-1.txt", "bench/x/a-2.txt", "bench/x/b-1.txt", "bench/x/b-2.txt"],
        ),
        ("`bench/x/a.json`, `b.json`", ["bench/x/a.json", "bench/x/b.json"]),
    ],
)
def test_row_paths_expand_alternatives_and_take_the_folder_before(cell, paths):
    assert row_paths(cell) == paths


def test_a_misfiled_or_loose_row_is_seen():
    text = "\n".join(
        [
            "## Top of bench/ (1 file)",
            "| `bench/a.json` | made | cited |",
            "## bench/x/ (2 files): things",
            "| `bench/y/b.json` | made | cited |",
            "| `bench/x/c.json` (a note) | made | cited |",
            "## bench/z/: no count",
            "2 files, 0.1 MB (all)",
        ]
    )
    sections, rows, totals, faults = read_index(text)
    assert sections == {"bench/": 1, "bench/x/": 2}
    assert [(folder, paths) for folder, _, paths in rows] == [
        ("bench/", ["bench/a.json"]),
        ("bench/x/", ["bench/y/b.json"]),
    ]
    assert folder_of("bench/y/b.json") != "bench/x/"
    assert totals == [(2, "0.1")]
    assert len(faults) == 2 and "line 5" in faults[0] and "line 6" in faults[1]
