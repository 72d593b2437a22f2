"""The learning loop's command, `xenophon train` (xenophon.lab.learnloop): a
log with leaves, networks for several blends (the best on held-out games
kept, with its lineage), a gate that says whether it is kept, the loop
stopping after --patience generations not kept, all of it resumed without
playing or training anything twice; `bench/learn.py score` on the log; bad
input in one line."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import assert_clean_error, xenophon
from xenophon.kernel.evaluation import read_network

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "learn.py"
# the loop trains in a process of its own; the check does not import JAX here
needs_train_extra = pytest.mark.skipif(
    importlib.util.find_spec("optax") is None, reason="training needs the train extra"
)
#: a loop small enough for a test: 3 games a generation, a 4-game gate
TINY_LOOP = [
    "--games", 3, "--bot", "ismcts:iterations=30", "--deep-share", 0, "--leaves", 2,
    "--processes", 1, "--epochs", 1, "--hidden", 4, "--blend", "0,1", "--leaf-weight", 2,
    "--gate-games", 4, "--gate-options", "iterations=30",
]  # fmt: skip


def learn(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=600
    )


@needs_train_extra
def test_the_loop_logs_trains_gates_stops_and_resumes(tmp_path):
    folder = tmp_path / "loop"
    args = ["train", "hero", "--folder", folder, "--generations", 3, *TINY_LOOP]
    first = xenophon(*args)
    assert first.returncode == 0, first.stderr
    # four games decide no GSPRT: two generations not kept, and the loop stops there
    assert "generation 1: not kept (undecided at the cap of 4 games)" in first.stdout
    assert "2 generations in a row not kept: the loop stops here" in first.stdout
    assert "generation 3" not in first.stdout
    assert "os.fork() was called" not in first.stderr  # JAX's threads stayed in the training
    made = read_network(str(folder / "g1.npz"), "hero").meta["made"]
    assert set(made["report"]["blends_tried"]) == {"0", "1"}
    assert made["parent"] == "learned" and made["generation"] == 1
    assert made["log"]["games"] == 3 and made["log"]["positions"] > 0
    assert "train hero" in made["command"] and "commit" in made and made["version"]
    verdict = json.loads((folder / "g2-generation.json").read_text())
    assert verdict["kept"] is False and verdict["summary"]["games"] == 4
    rows = (folder / "g1" / "index.jsonl").read_text().splitlines()
    assert json.loads(rows[0])["config"]["leaves"] == 2 and len(rows) == 1 + 3
    # the second generation logged other games with the same parent
    seeds = {
        json.loads(row)["seed"]
        for row in (folder / "g2" / "index.jsonl").read_text().splitlines()[1:]
    }
    assert seeds == {4, 5, 6}
    # again: nothing is played or trained twice
    trained = (folder / "g1.npz").read_bytes()
    again = xenophon(*args)
    assert again.returncode == 0, again.stderr
    assert "generation 1: not kept" in again.stdout and "played now" not in again.stdout
    assert (folder / "g1.npz").read_bytes() == trained
    # a network file another recipe made is not overwritten
    (folder / "g1-generation.json").unlink()
    assert_clean_error(xenophon(*args, "--hidden", 5), "not made by this loop's training")
    assert (folder / "g1.npz").read_bytes() == trained
    # bench/learn.py score reads the loop's log
    scored = learn("score", "hero", "--folder", folder / "g1", "--networks", folder / "g1.npz")
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)
    assert set(report["models"]) == {"learned", str(folder / "g1.npz")}
    assert "correction" in report["models"][str(folder / "g1.npz")]


def test_bad_input_is_one_line(tmp_path):
    assert_clean_error(learn("score", "hero", "--folder", tmp_path), "no log index")
    assert_clean_error(
        xenophon("train", "hero", "--folder", tmp_path, "--blend", "0,x"),
        "--blend takes numbers from 0 to 1",
    )
    assert_clean_error(
        xenophon("train", "hero", "--folder", tmp_path, "--parent", tmp_path / "none.npz"),
        "none.npz",
    )
