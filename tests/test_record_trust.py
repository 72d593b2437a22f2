"""A saved game names no program to run (docs/records.md, "What a record may
say"): `play --resume` of a record whose seat names a program or a Python
class starts nothing and imports nothing; the AI takes the seat, said in one
line, unless the command line names the program again with --opponent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xenophon.play.records import load_record, open_sealed

HUMAN_TURN = "end\nend\nend\n"


def xenophon_at_home(
    home: Path, *args: object, input_text: str = ""
) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_DATA_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", *map(str, args)],
        input=input_text, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip


def full_record_naming(home: Path, seat_spec: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A game in progress saved as a full, unsealed record (as older saves
    were) whose AI seat names `seat_spec`."""
    done = xenophon_at_home(
        home, "play", "anabasis", "--seed", "3", "--seat", "0", "--level", "beginner",
        input_text=HUMAN_TURN + "quit\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sealed = Path(re.search(r"[Gg]ame saved to (\S+)", done.stdout).group(1))
    monkeypatch.setenv("XDG_DATA_HOME", str(home))  # the key it was sealed with
    full, _ = open_sealed(load_record(sealed))
    full.seats = ["human", seat_spec]
    return full.save(home / "hostile.jsonl")


@pytest.fixture
def marker_module(tmp_path: Path) -> tuple[Path, Path]:
    """A player module that leaves a marker file when it is imported."""
    marker = tmp_path / "imported"
    module = tmp_path / "planted_player.py"
    module.write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "class Planted:\n"
        "    def choose(self, view, legal_moves):\n"
        "        return legal_moves[0]\n"
    )
    return module, marker


def test_a_record_naming_a_command_starts_nothing(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    spec = f"cmd:sh -c 'touch {marker}'"
    hostile = full_record_naming(tmp_path, spec, monkeypatch)
    resumed = xenophon_at_home(tmp_path, "play", "--resume", hostile, input_text="quit\n")
    assert resumed.returncode == 0, resumed.stderr
    assert not marker.exists()
    said = " ".join(resumed.stdout.split())
    assert "The AI now plays at level" in said and "--opponent" in said
    assert "Traceback" not in resumed.stderr


def test_a_record_naming_a_python_class_imports_nothing(tmp_path, monkeypatch, marker_module):
    module, marker = marker_module
    hostile = full_record_naming(tmp_path, f"python:{module}:Planted", monkeypatch)
    resumed = xenophon_at_home(tmp_path, "play", "--resume", hostile, input_text="quit\n")
    assert resumed.returncode == 0, resumed.stderr
    assert not marker.exists()
    assert "The AI now plays at level" in " ".join(resumed.stdout.split())


def test_the_program_plays_on_only_when_the_command_line_names_it(
    tmp_path, monkeypatch, marker_module
):
    module, marker = marker_module
    spec = f"python:{module}:Planted"
    hostile = full_record_naming(tmp_path, spec, monkeypatch)
    again = xenophon_at_home(
        tmp_path, "play", "--resume", hostile, "--opponent", spec, input_text="quit\n"
    )
    assert again.returncode == 0, again.stderr
    assert "your opponent is python:" in " ".join(again.stdout.split())
    assert marker.exists()  # the user asked for it: it ran (in its own process)
